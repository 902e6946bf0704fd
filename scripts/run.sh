#!/usr/bin/env bash
# `make run`: opens the GUI on the user's Inductor cache, or the sample cache
# when there is none. With no display it prints the CLI's scan of that cache.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build/default}"
# cachelens-gui looks for /tmp/torchinductor_$USER; USER is unset in some shells.
export USER="${USER:-$(id -un)}"

if [[ -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ]]; then
    # The GUI picks $TORCHINDUCTOR_CACHE_DIR, /tmp/torchinductor_$USER or the sample cache.
    exec "$build/app/gui/cachelens-gui" "$@"
fi

echo "run: no display (\$DISPLAY and \$WAYLAND_DISPLAY are unset), so no window;" \
    "printing \`cachelens scan\` of the cache instead" >&2
cache="${TORCHINDUCTOR_CACHE_DIR:-/tmp/torchinductor_$USER}"
if [[ ! -d "$cache" ]]; then
    echo "run: no cache at $cache; opening the sample cache instead" >&2
    cache="$root/resources/sample-cache"
fi
exec "$build/app/cli/cachelens" scan "$cache"
