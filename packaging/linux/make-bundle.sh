#!/usr/bin/env bash
# Builds the self-contained Linux bundle: the installed tree of BUILD (programs, bundled tor,
# desktop files) plus every shared library they load except glibc's, the Qt plugins, a qt.conf and
# RUNPATHs that point into the bundle, started through one script. Output:
#   BUILD/packages/onionvoice-VERSION-linux-ARCH.tar.gz
#   packaging/linux/make-bundle.sh BUILD
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: make-bundle.sh BUILD}" && pwd)
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
name=onionvoice-$version-linux-$(uname -m)
work=$build/bundle
root=$work/$name
app=$root/lib/onionvoice

rm -rf "$work"
mkdir -p "$work" "$build/packages"
cmake --install "$build" --prefix "$root" --strip >/dev/null
rm -rf "$root/share/man"

# Qt plugins: windowing (xcb for desktops, offscreen/minimal for headless runs), SVG icons, input.
qt_plugins=$(qtpaths6 --query QT_INSTALL_PLUGINS 2>/dev/null ||
    echo /usr/lib/$(gcc -print-multiarch)/qt6/plugins)
for plugin in platforms/libqxcb.so platforms/libqoffscreen.so platforms/libqminimal.so \
    xcbglintegrations/libqxcb-glx-integration.so xcbglintegrations/libqxcb-egl-integration.so \
    imageformats/libqsvg.so imageformats/libqico.so imageformats/libqjpeg.so \
    iconengines/libqsvgicon.so platforminputcontexts/libcomposeplatforminputcontextplugin.so \
    platforminputcontexts/libibusplatforminputcontextplugin.so; do
    if [ -f "$qt_plugins/$plugin" ]; then
        mkdir -p "$app/plugins/$(dirname "$plugin")"
        cp "$qt_plugins/$plugin" "$app/plugins/$plugin"
    fi
done
# Qt's own strings (Cancel, Yes/No) in the user's language, where the build machine has them
# (Debian: qt6-translations-l10n); the app's own translation is inside the program.
qt_translations=$(qtpaths6 --query QT_INSTALL_TRANSLATIONS 2>/dev/null || echo /usr/share/qt6/translations)
if compgen -G "$qt_translations/qtbase_*.qm" > /dev/null; then
    mkdir -p "$app/translations"
    cp "$qt_translations"/qtbase_*.qm "$app/translations/"
else
    echo "make-bundle.sh: no qtbase_*.qm in $qt_translations (apt install qt6-translations-l10n):" \
        "Qt's own buttons stay English in the bundle" >&2
fi
printf '[Paths]\nPrefix = .\nPlugins = plugins\nTranslations = translations\n' > "$app/qt.conf"

# ALSA's configuration, for hosts without one: without it PortAudio aborts while listing devices.
alsa=/usr/share/alsa
mkdir -p "$root/share/alsa"
tar -C "$alsa" --exclude=./ucm --exclude=./ucm2 -cf - . | tar -C "$root/share/alsa" -xf -

# Every library the ELF files need, except the C library itself (the one thing the host provides).
glibc='^(ld-linux.*|libc|libm|libdl|libpthread|librt|libresolv|libutil|libanl|libBrokenLocale|libnss_.*|libmvec|libthread_db)\.so'
mkdir -p "$app/lib"
# One path per element: a build directory with a space in its path split into words here.
mapfile -t elves < <(find "$app" -type f -exec sh -c 'head -c4 "$1" | grep -q "ELF" && echo "$1"' _ {} \;)
for elf in "${elves[@]}"; do
    ldd "$elf" | awk '/=> \// { print $3 }'
done | sort -u | while read -r lib; do
    base=$(basename "$lib")
    if ! [[ $base =~ $glibc ]]; then
        cp -L "$lib" "$app/lib/$base"
    fi
done
for elf in "${elves[@]}"; do
    if ldd "$elf" | grep -q 'not found'; then
        echo "make-bundle: $elf has unresolved libraries:" >&2
        ldd "$elf" | grep 'not found' >&2
        exit 1
    fi
done

# RUNPATHs: programs look in lib/, libraries beside themselves, plugins two levels up.
is_dynamic() { readelf -d "$1" 2>/dev/null | grep -q NEEDED; }
for elf in "${elves[@]}"; do
    is_dynamic "$elf" || continue
    case $elf in
    "$app"/plugins/*) patchelf --set-rpath '$ORIGIN/../../lib' "$elf" ;;
    *) patchelf --set-rpath '$ORIGIN/lib' "$elf" ;;
    esac
done
for lib in "$app"/lib/*; do
    is_dynamic "$lib" && patchelf --set-rpath '$ORIGIN' "$lib"
done
# The RUNPATHs changed tor's programs, so the pinned upstream sums no longer matched them and
# `sha256sum -c tor-bundle.sha256` in the bundle read as tampering: the upstream pins are kept
# under their own name and tor-bundle.sha256 lists the files as the bundle ships them.
(
    cd "$app"
    mv tor-bundle.sha256 tor-bundle.upstream.sha256
    awk '{ print $2 }' tor-bundle.upstream.sha256 | while read -r file; do
        sha256sum "$file"
    done > tor-bundle.sha256
)

install -m 0755 "$here/bundle-launcher.sh" "$root/onionvoice"
ln -sf onionvoice "$root/onionvoice-cli"
rm -rf "$root/bin"
tar -C "$work" -czf "$build/packages/$name.tar.gz" "$name"
echo "$build/packages/$name.tar.gz"
