#!/usr/bin/env bash
# Renders every view of cachelens-gui from the sample cache, for the user
# guide (docs/USER_GUIDE.md): each screenshot is `cachelens-gui ... --screenshot`
# under Xvfb. The sample cache is copied and its files dated 40 days back, so
# ages read like a real cache's and the prune preview has something to prune.
#
# Usage: docs/make-screenshots.sh [BUILD_DIR]   (default build/default)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/default}"
gui="$build/app/gui/cachelens-gui"
out="$root/docs/images"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cp -r "$root/resources/sample-cache" "$work/sample-cache"
find "$work/sample-cache" -type f -exec touch -d '40 days ago' {} +
mkdir -p "$out"

forward=flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e
backward=fiwfskr6jnfhbcay4vb2hbw3ngt6vnf7ucr3drdcawgx5smoly2r
guarded=f44wpapccbqjred6qtwm7d3hxi4aoplfv6guceuj2jajh3wsdgko
aot=$(ls "$work/sample-cache/aotautograd" | head -1)
triton=$(ls "$work/sample-cache/triton/0" | head -1)
best=$(cd "$work/sample-cache" && ls */*.best_config | head -1)

shot() {
    local name="$1"
    shift
    echo "docs/images/$name.png"
    xvfb-run -a -s "-screen 0 1600x1000x24" \
        env XDG_CONFIG_HOME="$work/config" TORCHINDUCTOR_CACHE_DIR= \
        "$gui" --catalog "$work/catalog.sqlite" --open "$work/sample-cache" \
        --size 1400x860 --screenshot "$out/$name.png" "$@"
}

shot browse --select "$forward" --tab overview
shot overview --select "$aot" --tab overview
shot debug-lines --select "$forward" --tab debug
shot guards --select "$guarded" --tab guards
shot source --select "$forward" --tab source
shot kernels --select "$triton" --tab kernels
shot autotune --select "$forward" --tab autotune
shot best-config --select "$best" --tab autotune
shot search --search triton_poi --select triton_poi_fused_mm_t_2 --tab kernels
shot compare --select "$forward" --compare "$backward"
shot why --select "$forward" --view why
shot stats --view stats
shot prune --view prune --max-size 2M
shot benchmarks --view bench
