#!/usr/bin/env bash
# check-package.sh BUILD_DIR: builds the Debian package from a built tree
# (cpack -G DEB) and checks it: its contents, its Depends, lintian, and that
# both binaries start from a scratch root unpacked with dpkg-deb -x. Nothing
# is installed on the system; the package and cpack's staging go to a temp dir.
set -euo pipefail

build="$(cd "${1:?usage: check-package.sh BUILD_DIR}" && pwd)"
source_root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

fail() {
    echo "check-package: $*" >&2
    exit 1
}

for tool in cpack dpkg-deb dpkg-shlibdeps file desktop-file-validate appstreamcli lintian; do
    command -v "$tool" >/dev/null ||
        fail "$tool is missing (scripts/debian-packages.txt; make install-deps)"
done

# -B keeps cpack's staging dir and the .deb out of the build dir.
if ! cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/out" >"$tmp/cpack.log" 2>&1; then
    cat "$tmp/cpack.log" >&2
    fail "cpack failed"
fi
shopt -s nullglob
debs=("$tmp"/out/cachelens_*.deb)
shopt -u nullglob
[[ ${#debs[@]} -eq 1 ]] || fail "expected one cachelens_*.deb, found ${#debs[@]}"
deb="${debs[0]}"
echo "check-package: built $(basename "$deb")"

# Contents: dpkg-deb -c prints "mode owner size date time ./path".
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' | sort >"$tmp/contents"
for path in \
    /usr/bin/cachelens \
    /usr/bin/cachelens-gui \
    /usr/share/applications/io.github.cachelens.cachelens.desktop \
    /usr/share/metainfo/io.github.cachelens.cachelens.metainfo.xml \
    /usr/share/icons/hicolor/scalable/apps/io.github.cachelens.cachelens.svg \
    /usr/share/doc/cachelens/README.md \
    /usr/share/doc/cachelens/copyright \
    /usr/share/doc/cachelens/changelog.gz \
    /usr/share/man/man1/cachelens.1.gz \
    /usr/share/man/man1/cachelens-gui.1.gz \
    /usr/share/bash-completion/completions/cachelens \
    /usr/share/lintian/overrides/cachelens; do
    grep -qxF "$path" "$tmp/contents" || fail "$path is not in the package"
done
# Every file of the sample cache, not just the dir.
(cd "$source_root/resources/sample-cache" && find . -type f | sed 's|^\.|/usr/share/cachelens/sample-cache|' | sort) \
    >"$tmp/sample"
missing="$(comm -23 "$tmp/sample" "$tmp/contents")"
[[ -z "$missing" ]] || fail "sample cache files missing from the package: $missing"

# Control fields.
[[ "$(dpkg-deb -f "$deb" Package)" == cachelens ]] || fail "Package is not cachelens"
[[ "$(dpkg-deb -f "$deb" Architecture)" == "$(dpkg --print-architecture)" ]] ||
    fail "Architecture is $(dpkg-deb -f "$deb" Architecture), not dpkg's"
[[ "$(dpkg-deb -f "$deb" Section)" == devel ]] || fail "Section is not devel"
depends="$(dpkg-deb -f "$deb" Depends)"
echo "check-package: Depends: $depends"
[[ -n "$depends" ]] || fail "Depends is empty"
for lib in libqt6widgets6 libqt6svg6 libsqlite3-0 libssl3; do
    [[ "$depends" =~ (^|[ ,])$lib([ ,]|$) ]] || fail "Depends does not name $lib"
done

version="$(dpkg-deb -f "$deb" Version)"
[[ "$version" == "$(grep -oPm1 '<release version="\K[^"]+' \
    "$source_root/packaging/io.github.cachelens.cachelens.metainfo.xml")" ]] ||
    fail "the newest release in the metainfo is not $version"

dpkg-deb -x "$deb" "$tmp/root"
# The copyright file states the project's license in the words of LICENSE.
license_text() { tr -s ' \n' ' ' | sed 's/^ //; s/ $//'; }
# (The stand-alone paragraph: the one that starts with "License: Expat".)
expat="$(awk -v RS= '/^License: Expat\n/' "$tmp/root/usr/share/doc/cachelens/copyright" |
    sed '1d; s/^ \.$//; s/^ //' | license_text)"
[[ "$expat" == "$(sed -n '/^Permission is hereby granted/,$p' "$source_root/LICENSE" | license_text)" ]] ||
    fail "the Expat license in packaging/copyright is not the text of LICENSE"

desktop-file-validate "$tmp/root/usr/share/applications/io.github.cachelens.cachelens.desktop" ||
    fail "the desktop file is not valid"
# validate-tree also checks that the desktop file the metainfo launches is installed.
appstreamcli validate-tree --no-net "$tmp/root" >"$tmp/appstream.log" 2>&1 || {
    cat "$tmp/appstream.log" >&2
    fail "the AppStream metadata is not valid"
}

# lintian: no tag (info level included) but those packaging/lintian-overrides
# explains; lintian reads that file from the package and shows them as O:.
lintian --display-info --show-overrides --fail-on none "$deb" >"$tmp/lintian.log" 2>&1 ||
    { cat "$tmp/lintian.log" >&2; fail "lintian failed to run"; }
allowed='^$'
if [[ "$(dpkg-deb -f "$deb" Maintainer)" == *@invalid\> ]]; then
    # The default CACHELENS_PACKAGE_MAINTAINER: the project has no mailing
    # list, so its address is under .invalid until whoever builds the package
    # for others names theirs (cmake -DCACHELENS_PACKAGE_MAINTAINER=...).
    allowed='^E: cachelens: (bogus-mail-host Maintainer|bogus-mail-host-in-debian-changelog) [^ ]+@invalid( |$)'
fi
if grep -E '^[EWIX]: ' "$tmp/lintian.log" | grep -vE "$allowed" >&2; then
    fail "lintian reports the tags above: fix them, or explain them in packaging/lintian-overrides"
fi
echo "check-package: lintian: no unexplained tag, $(grep -c '^O: ' "$tmp/lintian.log" || true) tags overridden"

# Installed into a scratch root: both binaries start, and the GUI, given no
# cache, opens the sample cache installed beside it (found from its own
# binary's dir). No user cache may get in the way: TORCHINDUCTOR_CACHE_DIR is
# unset and /tmp/torchinductor_$USER does not exist for this USER.
mkdir -p "$tmp/home"
run_isolated() {
    env -u TORCHINDUCTOR_CACHE_DIR -u DISPLAY -u WAYLAND_DISPLAY \
        USER="cachelens-package-check-$$" HOME="$tmp/home" \
        XDG_CONFIG_HOME="$tmp/home/config" XDG_DATA_HOME="$tmp/home/data" \
        XDG_CACHE_HOME="$tmp/home/cache" XDG_RUNTIME_DIR="$tmp/home" \
        QT_QPA_PLATFORM=offscreen "$@"
}
[[ ! -e "/tmp/torchinductor_cachelens-package-check-$$" ]] || fail "/tmp/torchinductor_cachelens-package-check-$$ exists"

said="$(run_isolated "$tmp/root/usr/bin/cachelens" --version)" || fail "cachelens --version failed"
[[ "$said" == "cachelens $version" ]] || fail "cachelens --version says '$said', the package is $version"
echo "check-package: cachelens --version: $said"

run_isolated timeout 120 "$tmp/root/usr/bin/cachelens-gui" \
    --catalog "$tmp/catalog.sqlite" --screenshot "$tmp/shot.png" >"$tmp/gui.log" 2>&1 || {
    cat "$tmp/gui.log" >&2
    fail "cachelens-gui --screenshot failed"
}
[[ -s "$tmp/shot.png" ]] || fail "cachelens-gui wrote no screenshot"
[[ "$(head -c 8 "$tmp/shot.png" | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a ]] ||
    fail "the screenshot is not a PNG"
# The GUI indexes what it opens: the catalog names the dir it opened.
run_isolated "$tmp/root/usr/bin/cachelens" stats --catalog "$tmp/catalog.sqlite" >"$tmp/stats.txt" ||
    fail "cachelens stats on the GUI's catalog failed"
grep -qF "$tmp/root/usr/share/cachelens/sample-cache" "$tmp/stats.txt" || {
    cat "$tmp/stats.txt" >&2
    fail "the GUI did not open the installed sample cache"
}
echo "check-package: ok ($(wc -l <"$tmp/contents") paths; the GUI opened the installed sample cache)"
