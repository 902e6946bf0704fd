#!/usr/bin/env bash
# check-clean-debian.sh BUILD_DIR: installs the Debian package on a clean
# Debian 12 and starts it there. The clean system is a minimal bookworm root
# made by debootstrap from the Debian archive in the host's apt sources
# (scripts/lib/debian-root.sh, shared with scripts/check-fresh.sh); the
# package goes in with apt (which pulls its Depends from that archive), then
# the CLI scans the installed sample cache and the GUI, offscreen, opens it
# and saves a screenshot. Needs root, the Debian archive and a built tree;
# not part of `make test` or CI, run by hand before a release.
set -euo pipefail

build="$(cd "${1:?usage: check-clean-debian.sh BUILD_DIR}" && pwd)"
# shellcheck source=scripts/lib/debian-root.sh
source "$(dirname "$0")/../scripts/lib/debian-root.sh"
debian_root_require

work="$(mktemp -d)"
root="$work/root"
cleanup() {
    if [[ -d "$root/var/cache/apt" ]]; then
        debian_root_save_debs "$root" || true
    fi
    debian_root_cleanup "$root" && rm -rf "$work"
}
trap cleanup EXIT

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log"
deb="$(ls "$work"/out/cachelens_*.deb)"
debian_root_create "$root"
debian_root_mount "$root"
debian_root_restore_debs "$root"
cp "$deb" "$root/tmp/"
chroot "$root" bash -euo pipefail -c '
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q /tmp/cachelens_*.deb >/tmp/install.log
    cachelens --version
    cachelens scan /usr/share/cachelens/sample-cache
    test -f /usr/share/applications/io.github.cachelens.cachelens.desktop
    test -f /usr/share/icons/hicolor/scalable/apps/io.github.cachelens.cachelens.svg
    test -f /usr/share/metainfo/io.github.cachelens.cachelens.metainfo.xml
    HOME=/root QT_QPA_PLATFORM=offscreen timeout 60 cachelens-gui --screenshot /tmp/gui.png
    test -s /tmp/gui.png
'
cp "$root/tmp/gui.png" "$build/clean-debian-gui.png"
echo "check-clean-debian: installed and started on a clean Debian 12; the window: $build/clean-debian-gui.png"
