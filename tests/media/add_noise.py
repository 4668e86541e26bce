#!/usr/bin/env python3
"""Mixes seeded pink noise into a 16-bit mono WAV at a given signal-to-noise ratio, so that the
audio loop can be judged on speech that is not studio-clean (README, Audio).

    tests/media/add_noise.py IN.wav OUT.wav --snr 20 [--seed 1]

The SNR is of the whole file's RMS (pauses included). The noise is white noise through Paul
Kellet's three-pole pink filter (-3 dB per octave within about 1 %), from Python's own seeded
generator: the same seed gives the same file.
"""
import argparse
import array
import math
import random
import sys
import wave


def pink_noise(count, seed):
    rng = random.Random(seed)
    b0 = b1 = b2 = 0.0
    out = []
    for _ in range(count):
        white = rng.gauss(0.0, 1.0)
        b0 = 0.99765 * b0 + white * 0.0990460
        b1 = 0.96300 * b1 + white * 0.2965164
        b2 = 0.57000 * b2 + white * 1.0526913
        out.append(b0 + b1 + b2 + white * 0.1848)
    return out


def rms(values):
    return math.sqrt(sum(v * v for v in values) / len(values)) if values else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--snr", type=float, required=True, help="signal-to-noise ratio in dB")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    with wave.open(args.input, "rb") as w:
        params = w.getparams()
        if params.sampwidth != 2 or params.nchannels != 1:
            sys.exit(f"{args.input}: 16-bit mono WAV expected")
        speech = array.array("h")
        speech.frombytes(w.readframes(params.nframes))
    if sys.byteorder == "big":
        speech.byteswap()
    noise = pink_noise(len(speech), args.seed)
    speech_rms, noise_rms = rms(speech), rms(noise)
    if speech_rms == 0:
        sys.exit(f"{args.input}: silent")
    gain = speech_rms / noise_rms / 10 ** (args.snr / 20)
    mixed = array.array("h", (max(-32768, min(32767, round(s + gain * n)))
                              for s, n in zip(speech, noise)))
    if sys.byteorder == "big":
        mixed.byteswap()
    with wave.open(args.output, "wb") as w:
        w.setparams(params)
        w.writeframes(mixed.tobytes())


if __name__ == "__main__":
    main()
