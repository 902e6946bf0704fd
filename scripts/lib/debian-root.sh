# shellcheck shell=bash
# scripts/lib/debian-root.sh: a clean Debian 12 (bookworm) root, for the
# checks that need a machine with nothing installed (scripts/check-fresh.sh,
# packaging/check-clean-debian.sh). Sourced, not run; needs root.
#
# The root is `debootstrap --variant=minbase bookworm` from the Debian
# archive in the host's apt sources, with the apt sources a Debian installer
# writes (bookworm, bookworm-updates, bookworm-security; main). Two caches
# under $DEBIAN_ROOT_CACHE, both safe to delete at any time:
#  - the debootstrapped root as a tarball, one per ISO week, mirror and
#    architecture (a root older than a week is made again);
#  - the .deb files apt downloaded in earlier roots, put back into a new
#    root's /var/cache/apt/archives before it installs anything (apt checks
#    each against the archive's current index, and downloads it again unless
#    it is exactly that file). What gets installed is never cached.

DEBIAN_ROOT_CACHE="${DEBIAN_ROOT_CACHE:-/var/cache/cachelens-check-fresh}"
DEBIAN_ROOT_SUITE=bookworm

debian_root_log() {
    echo "$(basename "$0"): $*" >&2
}

debian_root_die() {
    debian_root_log "error: $*"
    exit 2
}

# The URI of the host's apt source for SUITE (the first that names it), or
# DEFAULT when the host has none.
debian_root_source_uri() {
    local suite="$1" default="$2" uri=""
    if [[ -r /etc/apt/sources.list.d/debian.sources ]]; then
        uri="$(awk -v suite="$suite" '
            /^URIs:/ { uris = $2 }
            /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) { print uris; exit } }
            /^$/ { uris = "" }' /etc/apt/sources.list.d/debian.sources)"
    fi
    if [[ -z "$uri" && -r /etc/apt/sources.list ]]; then
        uri="$(awk -v suite="$suite" '$1 == "deb" && $3 == suite { print $2; exit }' \
            /etc/apt/sources.list)"
    fi
    echo "${uri:-$default}"
}

debian_root_mirror() {
    debian_root_source_uri "$DEBIAN_ROOT_SUITE" http://deb.debian.org/debian
}

debian_root_security_mirror() {
    debian_root_source_uri "$DEBIAN_ROOT_SUITE-security" http://deb.debian.org/debian-security
}

# Fails (exit 2) unless this can make a root here: root, debootstrap (which
# it installs with apt-get when missing), chroot.
debian_root_require() {
    [[ $EUID -eq 0 ]] || debian_root_die "needs root (debootstrap, mount, chroot); run it with sudo"
    command -v chroot >/dev/null || debian_root_die "no chroot command"
    if ! command -v debootstrap >/dev/null; then
        debian_root_log "installing debootstrap (apt-get)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null ||
            debian_root_die "cannot install debootstrap: apt-get install -y debootstrap"
    fi
}

# debian_root_create ROOT: a fresh minbase root at ROOT (which must not
# exist), from this week's cached tarball or made by debootstrap (and then
# cached); its apt sources, DNS, and a policy that starts no services.
debian_root_create() {
    local root="$1" mirror arch tarball
    mirror="$(debian_root_mirror)"
    arch="$(dpkg --print-architecture)"
    tarball="$DEBIAN_ROOT_CACHE/$DEBIAN_ROOT_SUITE-minbase-$arch-$(date +%G-w%V)-$(
        printf '%s' "$mirror" | sha256sum | cut -c1-12).tar.gz"
    mkdir -p "$DEBIAN_ROOT_CACHE"
    (
        # One debootstrap at a time; the others wait for its tarball.
        flock 9
        if [[ ! -s "$tarball" ]]; then
            local fresh="$DEBIAN_ROOT_CACHE/new-root.$$"
            debian_root_log "debootstrap --variant=minbase $DEBIAN_ROOT_SUITE from $mirror"
            rm -rf "$fresh"
            if ! debootstrap --variant=minbase "$DEBIAN_ROOT_SUITE" "$fresh" "$mirror" \
                >"$DEBIAN_ROOT_CACHE/debootstrap.log" 2>&1; then
                tail -20 "$DEBIAN_ROOT_CACHE/debootstrap.log" >&2
                rm -rf "$fresh"
                debian_root_die "debootstrap failed (log: $DEBIAN_ROOT_CACHE/debootstrap.log)"
            fi
            tar --numeric-owner -C "$fresh" -czf "$tarball.part" .
            mv "$tarball.part" "$tarball"
            rm -rf "$fresh"
            # Older weeks' roots are never used again.
            find "$DEBIAN_ROOT_CACHE" -maxdepth 1 -name "$DEBIAN_ROOT_SUITE-minbase-*.tar.gz" \
                ! -path "$tarball" -delete
        else
            debian_root_log "the debootstrapped root of this week: $tarball"
        fi
    ) 9>"$DEBIAN_ROOT_CACHE/root.lock"
    mkdir -p "$root"
    tar --numeric-owner -C "$root" -xzpf "$tarball"

    cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror $DEBIAN_ROOT_SUITE main
deb $mirror $DEBIAN_ROOT_SUITE-updates main
deb $(debian_root_security_mirror) $DEBIAN_ROOT_SUITE-security main
EOF
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    # Packages that start a service (redis-server) must not start it here:
    # nothing would stop it, and its files would keep the root busy.
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
    chmod 755 "$root/usr/sbin/policy-rc.d"
    # A root that is thrown away needs no fsync after every file dpkg writes.
    echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/unsafe-io"
}

# debian_root_mount ROOT: /proc, /sys, and in the root's own /dev (the
# nodes debootstrap made; the host's is not shared) its own ptys and shared
# memory. Undone by debian_root_cleanup.
debian_root_mount() {
    local root="$1"
    mount -t proc proc "$root/proc"
    mount -t sysfs sysfs "$root/sys"
    mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$root/dev/pts"
    ln -sf pts/ptmx "$root/dev/ptmx"
    mount -t tmpfs tmpfs "$root/dev/shm"
}

# debian_root_restore_debs ROOT: the cached .deb files into the root's apt
# cache (hard links where the file system allows).
debian_root_restore_debs() {
    local root="$1" archives="$DEBIAN_ROOT_CACHE/archives"
    mkdir -p "$archives" "$root/var/cache/apt/archives"
    find "$archives" -maxdepth 1 -name '*.deb' -exec cp -l -n -t "$root/var/cache/apt/archives" {} + \
        2>/dev/null ||
        find "$archives" -maxdepth 1 -name '*.deb' -exec cp -n -t "$root/var/cache/apt/archives" {} +
}

# debian_root_save_debs ROOT: the root's .deb files into the cache, after
# apt dropped those the archive no longer has; cached files that no root
# used for 30 days are deleted.
debian_root_save_debs() {
    local root="$1" archives="$DEBIAN_ROOT_CACHE/archives" deb
    chroot "$root" apt-get autoclean -q >/dev/null 2>&1 || true
    mkdir -p "$archives"
    (
        flock 9
        for deb in "$root"/var/cache/apt/archives/*.deb; do
            [[ -e "$deb" ]] || continue
            if [[ -e "$archives/${deb##*/}" ]]; then
                touch "$archives/${deb##*/}"
            else
                cp "$deb" "$archives/${deb##*/}.part" && mv "$archives/${deb##*/}.part" "$archives/${deb##*/}"
            fi
        done
        find "$archives" -maxdepth 1 -name '*.deb' -mtime +30 -delete
    ) 9>"$DEBIAN_ROOT_CACHE/archives.lock"
}

# debian_root_cleanup ROOT: ends the processes still running inside the
# root, unmounts everything under it, and only then deletes it (never
# through a mount still there).
debian_root_cleanup() {
    local root="$1" pid mounts
    [[ -d "$root" ]] || return 0
    root="$(realpath "$root")"
    for pid in /proc/[0-9]*; do
        if [[ "$(readlink "$pid/root" 2>/dev/null)" == "$root" ]]; then
            kill -9 "${pid#/proc/}" 2>/dev/null || true
        fi
    done
    # Deepest first: /dev/pts before /dev.
    mounts="$(awk -v root="$root" '$2 == root || index($2, root "/") == 1 { print $2 }' \
        /proc/self/mounts | sort -r)"
    while read -r mount_point; do
        [[ -n "$mount_point" ]] || continue
        umount "$mount_point" 2>/dev/null || umount -l "$mount_point" ||
            debian_root_log "cannot unmount $mount_point"
    done <<<"$mounts"
    if awk -v root="$root" 'index($2, root "/") == 1 { found = 1 } END { exit !found }' \
        /proc/self/mounts; then
        debian_root_log "mounts left under $root: not deleting it"
        return 1
    fi
    rm -rf --one-file-system "$root"
}
