#!/bin/sh
# Starts OnionVoice from its self-contained bundle. Called as "onionvoice" it runs the window,
# as "onionvoice-cli" (the symlink beside it) the command line; the bundled tor, libraries and Qt
# plugins are found through RUNPATHs and qt.conf, so nothing leaks into other programs' environment.
#   ./onionvoice [ARGS]            ./onionvoice-cli COMMAND [ARGS]
#   ./onionvoice --install-desktop-entry   menu entry, icon and onionvoice: link handler for this user
set -eu
bundle=$(dirname "$(readlink -f "$0")")
program=onionvoice
[ "$(basename "$0")" = onionvoice-cli ] && program=onionvoice-cli

if [ "$program" = onionvoice ] && [ "${1:-}" = --install-desktop-entry ]; then
    id=org.onionvoice.OnionVoice
    data=${XDG_DATA_HOME:-$HOME/.local/share}
    mkdir -p "$data/applications" "$data/icons/hicolor/scalable/apps"
    sed "s|^Exec=onionvoice|Exec=\"$bundle/onionvoice\"|" \
        "$bundle/share/applications/$id.desktop" > "$data/applications/$id.desktop"
    cp "$bundle/share/icons/hicolor/scalable/apps/$id.svg" "$data/icons/hicolor/scalable/apps/"
    if command -v xdg-mime >/dev/null; then
        xdg-mime default "$id.desktop" x-scheme-handler/onionvoice
    fi
    if command -v update-desktop-database >/dev/null; then
        update-desktop-database "$data/applications"
    fi
    echo "OnionVoice: menu entry and onionvoice: links now start $bundle/onionvoice"
    exit 0
fi
# The host's ALSA configuration knows its sound cards; the bundle's copy is for hosts without one.
if [ ! -e /usr/share/alsa/alsa.conf ] && [ -z "${ALSA_CONFIG_DIR:-}" ]; then
    ALSA_CONFIG_DIR=$bundle/share/alsa
    export ALSA_CONFIG_DIR
fi
exec "$bundle/lib/onionvoice/$program" "$@"
