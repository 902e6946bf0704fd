#!/usr/bin/env bash
# check-fresh.sh [--configure-only] [--all-tests]: the README's set-up on a
# Debian 12 machine where nothing is installed, as a stranger would do it.
#
# In a clean bookworm root (scripts/lib/debian-root.sh: debootstrap
# --variant=minbase from the Debian archive), a user `dev` with sudo gets a
# clean checkout of HEAD (git archive; uncommitted changes are not part of
# it) with ../shared beside it, then:
#   1. make install-deps        scripts/debian-packages.txt, nothing else
#   2. cmake --preset P         for every configure preset (default, asan,
#                               fuzz, static-cli): the list is complete
#   3. make run                 builds the two programs (default preset)
#                               and runs the app (no display there: it
#                               prints the scan)
#   4. ctest -L engine          the rest of the build, then the engine and
#                               CLI suites (--all-tests: make test, every
#                               suite)
# --configure-only stops after 2 (what .ci/run does: `make check-deps`).
#
# Needs root and the Debian archive (nothing else is reached); fails, never
# skips, without them. The log goes to stdout and to $CHECK_FRESH_LOG
# (build/check-fresh.log). Caches (safe to delete): /var/cache/cachelens-check-fresh.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/lib/debian-root.sh
source "$repo/scripts/lib/debian-root.sh"

configure_only=false
all_tests=false
for arg in "$@"; do
    case "$arg" in
    --configure-only) configure_only=true ;;
    --all-tests) all_tests=true ;;
    *)
        echo "usage: check-fresh.sh [--configure-only] [--all-tests]" >&2
        exit 2
        ;;
    esac
done
presets=(default asan fuzz static-cli)

log="${CHECK_FRESH_LOG:-$repo/build/check-fresh.log}"
mkdir -p "$(dirname "$log")"
exec > >(tee "$log") 2>&1

debian_root_require
work="$(mktemp -d "${TMPDIR:-/var/tmp}/cachelens-check-fresh.XXXXXX")"
root="$work/root"
on_exit() {
    local status=$?
    if [[ -d "$root/var/cache/apt" ]]; then
        debian_root_save_debs "$root" || true
    fi
    debian_root_cleanup "$root" && rm -rf "$work"
    if [[ $status -ne 0 ]]; then
        echo "check-fresh: FAILED (exit $status) at: $current_step; the log: $log"
    fi
}
trap on_exit EXIT
trap 'exit 130' INT TERM

started=$SECONDS
step_started=$SECONDS
current_step="start"
summary=()
step() {
    current_step="$*"
    echo
    echo "==> [$(date +%T), $(((SECONDS - started) / 60))m$(((SECONDS - started) % 60))s] $*"
    step_started=$SECONDS
}
done_step() {
    summary+=("$(printf '%6ss  %s' $((SECONDS - step_started)) "$1")")
}
# apt's and dpkg's line per package, left out of the log (failures still show).
without_package_lines() {
    grep -v -E '^(Get:|Selecting|Preparing|Unpacking|Setting up|Processing|Created symlink|update-alternatives|\(Reading database)' ||
        true
}
# Ninja's progress, one line in 200 (and the last); every other line.
build_progress() {
    awk '!/^\[[0-9]+\/[0-9]+\] / { print; next }
         { split(substr($1, 2), n, "/"); if (n[1] % 200 == 0 || n[1] == n[2] + 0) print }'
}
# in_root CMD: CMD as the user `dev` in its checkout, with a login's clean
# environment (nothing from this host's), no display.
in_root() {
    chroot "$root" /usr/bin/env -i HOME=/home/dev USER=dev LOGNAME=dev LANG=C.UTF-8 \
        PATH=/usr/local/bin:/usr/bin:/bin TERM=dumb \
        /usr/sbin/runuser -u dev -- bash -euo pipefail -c "cd ~/cachelens && $1"
}

head="$(git -C "$repo" rev-parse HEAD)"
step "check-fresh: cachelens $(git -C "$repo" describe --always --dirty) ($head)," \
    "$(if $configure_only; then echo "dependencies and configure"; else echo "set-up, build and tests"; fi)"
if [[ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]]; then
    echo "check-fresh: note: uncommitted changes are not checked (HEAD is)"
fi

step "a clean Debian 12 root in $root"
debian_root_create "$root"
debian_root_mount "$root"
debian_root_restore_debs "$root"
done_step "clean root (debootstrap or this week's cached one)"

step "the machine: a user dev with sudo, make (the README's prerequisites)"
chroot "$root" bash -euo pipefail -c '
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends sudo make
    useradd --create-home --shell /bin/bash dev
    echo "dev ALL=(ALL) NOPASSWD: ALL" >/etc/sudoers.d/dev
' | without_package_lines
git -C "$repo" archive --format=tar --prefix=cachelens/ HEAD | tar -x -C "$root/home/dev"
if ! $configure_only; then
    shared="$(realpath "$repo/../shared" 2>/dev/null || true)"
    [[ -d "$shared" ]] || debian_root_die "no ../shared beside $repo: the tests read it"
    cp -r "$shared" "$root/home/dev/shared"
fi
chroot "$root" chown -R dev:dev /home/dev
done_step "user, make, checkout"

step "make install-deps (as dev, through sudo)"
installed_before="$(chroot "$root" dpkg-query -W -f='.\n' | wc -l)"
in_root 'make install-deps' | without_package_lines
done_step "make install-deps ($(($(chroot "$root" dpkg-query -W -f='.\n' | wc -l) - installed_before)) packages added)"

for preset in "${presets[@]}"; do
    step "cmake --preset $preset"
    if ! in_root "cmake --preset $preset >/tmp/configure-$preset.log 2>&1"; then
        cat "$root/tmp/configure-$preset.log"
        debian_root_die "cmake --preset $preset failed on a fresh Debian 12 after make install-deps:" \
            "a package is missing from scripts/debian-packages.txt"
    fi
    grep -E '^-- (The CXX compiler|No CUDA|The CUDA)' \
        "$root/tmp/configure-$preset.log" || true
    done_step "cmake --preset $preset"
done

if $configure_only; then
    step "every preset configures on a fresh Debian 12 with only scripts/debian-packages.txt"
else
    step "make run (builds the default preset; no display: prints the scan)"
    in_root 'nice make run 2>&1' | build_progress
    done_step "make run (first build, $(nproc) cores)"

    if $all_tests; then
        step "make test"
        in_root 'make test'
        done_step "make test"
    else
        # make run built the two programs only: the suites are the rest.
        step "the rest of the default build (test suites, benchmarks)"
        in_root 'nice cmake --build --preset default 2>&1' | build_progress
        done_step "the rest of the build"
        step "ctest -L engine (the engine and CLI suites)"
        in_root 'ctest --preset default -L engine -j 2'
        done_step "ctest -L engine"
    fi
fi

echo
echo "check-fresh: passed in $(((SECONDS - started) / 60))m$(((SECONDS - started) % 60))s:"
printf '%s\n' "${summary[@]}"
