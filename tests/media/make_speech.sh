#!/bin/sh
# Generates the test speech for the audio tests: Harvard sentences (IEEE 1969, public domain)
# spoken by espeak-ng with two voices, resampled by sox to 48 kHz mono 16-bit.
#   make_speech.sh OUT.wav
set -eu
out=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
espeak-ng -v en-us -s 150 -w "$tmp/a.wav" "The birch canoe slid on the smooth planks. \
Glue the sheet to the dark blue background. It is easy to tell the depth of a well. \
These days a chicken leg is a rare dish. Rice is often served in round bowls. \
The juice of lemons makes fine punch. The box was thrown beside the parked truck. \
The hogs were fed chopped corn and garbage. Four hours of steady work faced us. \
A large size in stockings is hard to sell."
espeak-ng -v en-gb+f3 -s 140 -w "$tmp/b.wav" "The boy was there when the sun rose. \
A rod is used to catch pink salmon. The source of the huge river is the clear spring. \
Kick the ball straight and follow through. Help the woman get back to her feet. \
A pot of tea helps to pass the evening. Smoky fires lack flame and heat. \
The soft cushion broke the man's fall. The salt breeze came across from the sea. \
The girl at the booth sold fifty bonds."
sox -R "$tmp/a.wav" "$tmp/b.wav" -r 48000 -c 1 -b 16 "$out" gain -n -3
