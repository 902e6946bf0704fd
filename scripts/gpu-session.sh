#!/usr/bin/env bash
# gpu-session.sh: every GPU check (issues #15, #20) in one call on the GPU machine
# (device time is scarce: one start, one command). Needs the self-contained CLI
# in gpu-bin/ (`scripts/gpu-check.sh build` here) and the devset fixtures in
# $CACHELENS_SHARED_DIR (default: shared/ in the checkout, else ../shared).
#
#   scripts/gpu-session.sh [STEP...]     # default: every step, in this order
#
# Steps: facts, check, graph, all-configs, failures, compile (= accept and
# bundles side by side), accept, bundles, trace, env (#20: `cachelens env`
# against the real PyTorch), fixtures (#38: real caches of PyTorch's newer
# formats with golden data, scripts/real_fixtures.py, packed into
# $OUT/fixtures.tar.gz, in 15 MB pieces when larger), round2 (#38's one call:
# fixtures and bundles side by side), issue33 (#33's fixtures: a GPT-2
# training step at three shapes, Grid2DWithYZOverflow kernels, each planned
# and timed by cachelens and by Python), tune (#35: cachelens tune against
# Inductor's own coordinate descent on five devset kernels).
# Each step's stdout and stderr go to $OUT/results/<step>.{out,err} (OUT
# defaults to a temporary dir); the summary goes to stdout and the results
# are packed into $OUT/results.tar.gz (the device tool brings back few files).
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
if [[ -z "${CACHELENS_SHARED_DIR:-}" ]]; then
    CACHELENS_SHARED_DIR="$root/../shared"
    [[ -d "$root/shared/fixtures" ]] && CACHELENS_SHARED_DIR="$root/shared"
fi
export CACHELENS_SHARED_DIR
fixtures="$CACHELENS_SHARED_DIR/fixtures/torch-2.11-cu130-h100/devset"
cli="$root/gpu-bin/cachelens"
out="${OUT:-$(mktemp -d)}"
results="$out/results"
work="$(mktemp -d)"
mkdir -p "$results"
export PYTHONUNBUFFERED=1

elapsed_ms() { echo $((($(date +%s%N) - $1) / 1000000)); }

# step NAME LIMIT_S COMMAND...: runs COMMAND with a time limit, keeps its
# output, prints its exit code and wall time.
step() {
    local name="$1" limit="$2"
    shift 2
    local started rc
    started=$(date +%s%N)
    # bash -c: timeout runs programs, and the steps are this script's functions.
    timeout "$limit" bash -c "$*" >"$results/$name.out" 2>"$results/$name.err"
    rc=$?
    echo "== $name: exit $rc, $(elapsed_ms "$started") ms"
    # Packed after every step: a call cut short still brings back what ran.
    tar -C "$out" -czf "$out/results.tar.gz" results
    tail -n 4 "$results/$name.err" | sed 's/^/   err: /'
}

facts() {
    nvidia-smi --query-gpu=name,compute_cap,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total,power.limit,temperature.gpu --format=csv
    nvidia-smi -q -d CLOCK,PERFORMANCE | sed -n '1,60p'
    python3 -c 'import torch, triton; p = torch.cuda.get_device_properties(0); print("torch", torch.__version__, "triton", triton.__version__, "cuda", torch.version.cuda, p.name, "L2", p.L2_cache_size, "SMs", p.multi_processor_count)'
}

check() {
    "$root/scripts/gpu-check.sh" run
    cp "$root/gpu-bin/last-results.jsonl" "$results/check.jsonl"
    # golden.json's rebench protocol on this GPU, in this run.
    cp -r "$fixtures/cache" "$work/call"
    python3 "$root/scripts/all_configs_check.py" "$work/call" --call >"$results/check-python-call.jsonl"
    tail -n 1 "$results/check-python-call.jsonl"
}

graph() {
    cp -r "$fixtures/cache" "$work/graph"
    "$cli" bench "$work/graph" --cuda-graph --json-lines --catalog "$work/graph.sqlite"
}

# The same candidates timed three ways: cachelens, Python's
# benchmark_all_configs, cachelens again (the run-to-run spread).
all_configs() {
    cp -r "$fixtures/cache" "$work/cl"
    cp -r "$fixtures/cache" "$work/py"
    find "$work/py" -name '*.best_config' -delete
    local started
    started=$(date +%s%N)
    "$cli" bench "$work/cl" --all-configs --json-lines --catalog "$work/cl.sqlite" >"$results/all-cachelens-1.jsonl"
    echo "wall ms: cachelens-1 $(elapsed_ms "$started")"
    started=$(date +%s%N)
    python3 "$root/scripts/all_configs_check.py" "$work/py" >"$results/all-python.jsonl"
    echo "wall ms: python $(elapsed_ms "$started")"
    started=$(date +%s%N)
    "$cli" bench "$work/cl" --all-configs --json-lines --catalog "$work/cl.sqlite" >"$results/all-cachelens-2.jsonl"
    echo "wall ms: cachelens-2 $(elapsed_ms "$started")"
    # The devset reduction's other cached config, accepted only if it wins side by side.
    "$cli" bench accept triton_red_fused_mul_sqrt_sum_0 e6ad55 --dir "$work/cl" \
        --catalog "$work/cl.sqlite" --json >"$results/all-accept.json" 2>&1
    echo "devset accept: exit $?"
    cat "$results/all-accept.json"
}

# Launches that must fail, stored as results: too much shared memory and too
# many threads per block, written into a copy's Triton metadata, and an
# illegal address (a reduction given a row stride far past its input), after
# which the device is reset and the kernels after it run.
failures() {
    cp -r "$fixtures/cache" "$work/bad"
    local json
    for json in "$work"/bad/triton/0/*/triton_red_fused_mul_sqrt_sum_0.json; do
        python3 -c 'import json, sys; p = sys.argv[1]; m = json.load(open(p)); m["shared"] = 240000; json.dump(m, open(p, "w"))' "$json"
    done
    for json in "$work"/bad/triton/0/*/triton_tem_fused_add_mm_relu_0.json; do
        python3 -c 'import json, sys; p = sys.argv[1]; m = json.load(open(p)); m["num_warps"] = 64; json.dump(m, open(p, "w"))' "$json"
    done
    # ks0, the row stride of the dynamic-shape reduction's input (i64): 2^36
    # elements puts row 1 256 GiB past its 2 KiB buffer.
    sed -i 's/^    arg_3 = 64$/    arg_3 = 68719476736/' "$work"/bad/aa/caasrj3q*.py
    "$cli" bench "$work/bad" triton_red_fused_mul_sqrt_sum_0 triton_tem_fused_add_mm_relu_0 \
        triton_red_fused_add_mean_relu_sum_1 triton_per_fused_sum_6 triton_red_fused_mean_0 \
        --json-lines --catalog "$work/bad.sqlite"
    echo "exit $?"
    "$cli" bench history triton_red_fused_mul_sqrt_sum_0 --catalog "$work/bad.sqlite"
    "$cli" bench history triton_red_fused_add_mean_relu_sum_1 --catalog "$work/bad.sqlite"
    "$cli" bench history triton_red_fused_mean_0 --catalog "$work/bad.sqlite"
}

# Does PyTorch launch what `bench accept` wrote? For coordinate descent on
# and off: compile, re-benchmark, accept the slowest other candidate, compile
# again in a fresh process and print what the autotuner launched.
accept_one() {
    local label="$1" prefix="$2"
    shift 2
    local dir="$work/accept-$label"
    python3 "$root/scripts/accept_check.py" "$dir" "$@" >"$results/accept-$label-1.json"
    "$cli" bench "$dir" --all-configs --json-lines --catalog "$work/accept-$label.sqlite" >"$results/accept-$label-bench.jsonl"
    local pick
    pick=$(python3 - "$results/accept-$label-bench.jsonl" "$prefix" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in rows if r.get("event") == "result" and r["kernel"].startswith(sys.argv[2])]
best = [r for r in rows if r["was_best"]]
others = [r for r in rows if not r["was_best"] and r["status"] == "ok"]
if best and others:
    other = max(others, key=lambda r: r["median_ms"])
    print(other["kernel"], other["triton_hash"])
PY
)
    echo "$label: accepting $pick"
    [[ -n "$pick" ]] || return 1
    # The slowest candidate: the paired confirmation must refuse it (exit 2)...
    # shellcheck disable=SC2086
    "$cli" bench accept $pick --dir "$dir" --catalog "$work/accept-$label.sqlite" >"$results/accept-$label-refused.txt" 2>&1
    echo "exit $?" >>"$results/accept-$label-refused.txt"
    # ...and --force writes it all the same.
    # shellcheck disable=SC2086
    "$cli" bench accept $pick --dir "$dir" --catalog "$work/accept-$label.sqlite" --force --json >"$results/accept-$label-accept.json"
    # The same file with found_by_coordesc flipped, to learn which PyTorch honours.
    cp -r "$dir" "$dir-flipped"
    python3 - "$dir" "$results/accept-$label-accept.json" <<'PY'
import json, os, sys
written = json.load(open(sys.argv[2]))["best_config"]
path = os.path.join(sys.argv[1] + "-flipped", os.path.relpath(written, sys.argv[1]))
config = json.load(open(path))
config["found_by_coordesc"] = not config.get("found_by_coordesc", False)
json.dump(config, open(path, "w"))
print("flipped", path, file=sys.stderr)
PY
    # And the accepted file read with compilation in this process rather
    # than Inductor's worker processes.
    cp -r "$dir" "$dir-threads1"
    python3 "$root/scripts/accept_check.py" "$dir" "$@" >"$results/accept-$label-2.json" &
    python3 "$root/scripts/accept_check.py" "$dir-flipped" "$@" >"$results/accept-$label-flipped.json" &
    python3 "$root/scripts/accept_check.py" "$dir-threads1" "$@" --threads1 >"$results/accept-$label-threads1.json" &
    wait
    python3 "$root/scripts/accept_check.py" "$dir" "$@" >"$results/accept-$label-3.json"
}

# Why a cached coordinate-descent winner is not launched as written: the
# autotune cache's answer and each coordinate descent's start, traced in
# process, for PyTorch's own .best_config files.
trace_tuning() {
    python3 "$root/scripts/accept_check.py" "$work/trace" --threads1 --trace >"$results/trace-1.json"
    python3 "$root/scripts/accept_check.py" "$work/trace" --threads1 --trace >"$results/trace-2.json"
}

accept() {
    accept_one coordesc triton_red &
    # Without coordinate descent the pointwise kernel keeps two cached configs.
    accept_one plain triton_poi --no-coordesc
    wait
}

bundles() {
    "$root/scripts/gpu-bundle-check.sh"
}

# #38: real caches of the formats PyTorch added (AOTInductor packages,
# precompiled functions, the DynamoCache, the seed's OnDiskCache) and of two
# more models, each with what PyTorch read back. The fixtures are made side by
# side (16 cores), each under its own limit; what finished is packed even when
# one did not.
real_fixtures() {
    local rc=0
    python3 "$root/scripts/real_fixtures.py" "$work/real" --timeout 200 --jobs 7 || rc=$?
    du -sh "$work"/real/* | sed 's/^/size: /'
    tar -C "$work" -czf "$out/fixtures.tar.gz" real
    if [[ $(stat -c %s "$out/fixtures.tar.gz") -gt 15000000 ]]; then
        split -b 15000000 -d "$out/fixtures.tar.gz" "$out/fixtures.tar.gz.part-"
        rm "$out/fixtures.tar.gz"
    fi
    ls -l "$out"
    return $rc
}

# Compiling is CPU work: #38's fixtures and the bundle checks side by side.
round2() {
    bundles >"$results/round2-bundles.log" 2>&1 &
    real_fixtures
    wait
    cat "$results/round2-bundles.log"
}

# #33: real caches for `why`'s families (a GPT-2 training step at three
# shapes, and PyTorch's own fill of a dir from its bundle) and for the
# Grid2DWithYZOverflow launch (transposes with a symbolic y extent), then
# cachelens planning and timing those kernels beside Python's
# benchmark_all_configs. Packed into $OUT/fixtures33.tar.gz.
issue33() {
    local real="$work/real33" rc=0 name
    python3 "$root/scripts/real_fixtures.py" "$real" gpt2_shapes yz_overflow --timeout 260 --jobs 2 || rc=$?
    for name in gpt2_shapes yz_overflow; do
        echo "-- $name.log"
        tail -n 3 "$real/$name.log"
        [[ -d "$real/$name/cache" ]] || continue
        "$cli" bench "$real/$name/cache" --plan --json-lines >"$results/$name-plan.jsonl" 2>"$results/$name-plan.err"
        echo "$name plan: exit $?"
        grep -c '"event":"unplannable"' "$results/$name-plan.jsonl"
        cp -r "$real/$name/cache" "$work/$name-py"
        find "$work/$name-py" -name "*.best_config" -delete
        "$cli" bench "$real/$name/cache" --all-configs --json-lines --catalog "$work/$name.sqlite" \
            >"$results/$name-bench.jsonl" 2>"$results/$name-bench.err"
        echo "$name bench: exit $?"
        python3 "$root/scripts/all_configs_check.py" "$work/$name-py" >"$results/$name-python.jsonl" 2>&1
        echo "$name python benchmark_all_configs: exit $?"
    done
    du -sh "$real"/* | sed 's/^/size: /'
    tar -C "$real" -czf "$out/fixtures33.tar.gz" .
    if [[ $(stat -c %s "$out/fixtures33.tar.gz") -gt 15000000 ]]; then
        split -b 15000000 -d "$out/fixtures33.tar.gz" "$out/fixtures33.tar.gz.part-"
        rm "$out/fixtures33.tar.gz"
    fi
    ls -l "$out"
    return $rc
}

# Compiling is CPU work: the accept and bundle checks run side by side.
compile_checks() {
    accept >"$results/accept.log" 2>&1 &
    bundles
    wait
    cat "$results/accept.log"
}

# #20: this machine's fingerprint asked of the real PyTorch, then a cache
# compiled here checked against it: every entry must be can_hit (the torch
# build's hash, the GPU, CUDA and Triton as PyTorch put them in the keys).
env_check() {
    "$cli" env --python python3 --output "$results/env.json" || return 1
    TORCHINDUCTOR_CACHE_DIR="$work/env-cache" python3 -c '
import torch
f = torch.compile(lambda x: (x.sin() + 1).sum())
f(torch.randn(4096, device="cuda"))'
    "$cli" preflight "$work/env-cache" --target "$results/env.json"
    echo "preflight of the fresh cache: exit $?"
    # What preflight promised, checked against PyTorch: the same graph in a
    # fresh process must hit the FX graph cache.
    TORCHINDUCTOR_CACHE_DIR="$work/env-cache" python3 -c '
import torch
from torch._dynamo.utils import counters
f = torch.compile(lambda x: (x.sin() + 1).sum())
f(torch.randn(4096, device="cuda"))
print("second compile: fxgraph_cache_hit", counters["inductor"]["fxgraph_cache_hit"], "miss", counters["inductor"]["fxgraph_cache_miss"])'
    "$cli" env --from "$work/env-cache"
    # The devset was compiled on an H100: on another GPU preflight must say
    # which entries miss and why (the device name in the keys).
    "$cli" preflight "$fixtures/cache" --target "$results/env.json"
    echo "preflight of the devset: exit $?"
}

# #35: `cachelens tune` against Inductor's own coordinate descent on five
# devset kernels (two pointwise, two reductions, one template), each side's
# final config, its time and the wall time (scripts/tune_check.py).
tune_vs_inductor() {
    python3 "$root/scripts/tune_check.py" "$cli" "$fixtures/cache" \
        triton_poi_fused_mm_t_2 triton_poi_fused__log_softmax_backward_data_mm_1 \
        triton_red_fused_mul_sqrt_sum_0 triton_per_fused_sum_6 cp7e6q6ez6je2kgowcrkhmrkjmgmrj4xvf22iwb3zd7fmola7nch
}

export root cli fixtures results work out
export -f elapsed_ms facts check graph all_configs failures accept_one accept bundles compile_checks trace_tuning env_check \
    real_fixtures round2 issue33 tune_vs_inductor

steps=("$@")
[[ ${#steps[@]} -gt 0 ]] || steps=(facts check graph all-configs failures compile)
for name in "${steps[@]}"; do
    case "$name" in
    facts) step facts 60 facts ;;
    check) step check 150 check ;;
    graph) step graph 90 graph ;;
    all-configs) step all-configs 180 all_configs ;;
    failures) step failures 60 failures ;;
    accept) step accept 300 accept ;;
    bundles) step bundles 300 bundles ;;
    compile) step compile 240 compile_checks ;;
    trace) step trace 150 trace_tuning ;;
    env) step env 180 env_check ;;
    fixtures) step fixtures 300 real_fixtures ;;
    round2) step round2 320 round2 ;;
    issue33) step issue33 330 issue33 ;;
    tune) step tune 420 tune_vs_inductor ;;
    *) echo "gpu-session: no step $name" >&2 ;;
    esac
done
for name in "${steps[@]}"; do
    [[ -s "$results/$name.out" ]] && { echo "---- $name"; head -c 2500 "$results/$name.out"; echo; }
done
rm -rf "$results"
rm -rf "$work"
