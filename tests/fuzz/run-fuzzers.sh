#!/usr/bin/env bash
# Builds the libFuzzer targets (CMake preset `fuzz`), gathers a seed corpus for each
# from the PyTorch fixtures and tests/data, and runs each one for FUZZ_SECONDS.
# Exits non-zero if any fuzzer finds a crash, a sanitizer report, a leak, a slow
# input or an out-of-memory input; the input that did it is left in
# build/fuzz/artifacts/<target>/ (replay it: build/fuzz/tests/fuzz/<target> FILE).
#
#   tests/fuzz/run-fuzzers.sh                          # every target, 60 s each
#   FUZZ_SECONDS=600 tests/fuzz/run-fuzzers.sh fuzz_unpickler
#   FUZZ_JOBS=2 tests/fuzz/run-fuzzers.sh              # libFuzzer -fork=2 per target
#   FUZZ_CPU_SECONDS=1800 FUZZ_KEEP=1 tests/fuzz/run-fuzzers.sh fuzz_serving
#                                      # until it has had 30 CPU-minutes, then keep its corpus
#   FUZZ_BUILD=0 tests/fuzz/run-fuzzers.sh fuzz_pt2   # run the binaries as built: edits made
#                                      # while a long campaign runs do not reach it
#
# Corpora grow across runs in build/fuzz/corpus/<target>/ (seeds are re-added each run).
# tests/fuzz/corpus/<target>/ holds each target's kept corpus (committed, minimized with
# libFuzzer's -merge=1): every run starts from it; FUZZ_KEEP=1 replaces it by the merged
# corpus of the run. Each run appends a line to build/fuzz/ledger.tsv (date, target, wall
# and CPU seconds, executions, edges, features, corpus, result); FUZZ_KEEP=1 appends it to
# tests/fuzz/ledger.tsv as well, whose sums are the table in docs/SECURITY.md
# (tests/fuzz/fuzz-table.py).
# The fixtures are read from $CACHELENS_SHARED_DIR or ../shared beside the checkout.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
shared=${CACHELENS_SHARED_DIR:-$repo/../shared}
fixtures=$shared/fixtures/torch-2.11-cu130-h100
seconds=${FUZZ_SECONDS:-60}
cpu_seconds=${FUZZ_CPU_SECONDS:-0}
keep=${FUZZ_KEEP:-0}
jobs=${FUZZ_JOBS:-1}
build=$repo/build/fuzz
# Every release form's files (tests/data/releases), written once as seeds.
releases=$build/releases

# target -> longest input libFuzzer makes. The unpickler's fits a whole AOT entry and
# the opening of an FX entry (its seeds past that are cut, and still decode to errors).
declare -A max_len=(
    [fuzz_unpickler]=131072
    [fuzz_python_literal]=65536
    [fuzz_python_tokens]=65536
    [fuzz_kernel_module]=65536
    [fuzz_best_config]=16384
    [fuzz_example_inputs]=16384
    [fuzz_causes]=65536
    [fuzz_triton_kernel]=65536
    [fuzz_trace]=262144
    [fuzz_guards]=2048
    [fuzz_mega_cache]=262144
    [fuzz_remote]=65536
    [fuzz_signed_bundle]=262144
    [fuzz_keyed_cache]=16384
    [fuzz_pt2]=65536
    [fuzz_precompile]=32768
    [fuzz_bench_protocol]=65536
    [fuzz_compile_server]=16384
    [fuzz_serving]=65536
    [fuzz_resp_reply]=65536
)
all_targets=(fuzz_unpickler fuzz_python_literal fuzz_python_tokens fuzz_kernel_module fuzz_best_config fuzz_example_inputs fuzz_causes fuzz_fingerprint fuzz_triton_kernel fuzz_trace fuzz_guards fuzz_mega_cache fuzz_signed_bundle fuzz_remote fuzz_keyed_cache fuzz_pt2 fuzz_precompile fuzz_bench_protocol fuzz_compile_server fuzz_serving fuzz_resp_reply)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=("${all_targets[@]}")
fi

# The preset builds with Debian's clang-19: clang 14 cannot compile C++23
# <expected> from libstdc++ 12 (scripts/install-deps.sh installs clang-19).
cd "$repo"
if [ "${FUZZ_BUILD:-1}" != 0 ]; then
    cmake --preset fuzz >/dev/null
    cmake --build --preset fuzz --target "${targets[@]}"
fi
mkdir -p "$build"
python3 "$repo"/tests/data/releases/make_release_caches.py "$releases" >/dev/null

# Copies seed files into a corpus dir, named by their sha1 as libFuzzer names its own
# inputs, so a seed already there is not added twice.
add_seeds() {
    local corpus=$1
    shift
    local file
    for file in "$@"; do
        [ -f "$file" ] || continue
        cp -f "$file" "$corpus/$(sha1sum "$file" | cut -c1-40)"
    done
}

seed_corpus() {
    local target=$1 corpus=$2
    shopt -s nullglob
    case $target in
    fuzz_unpickler)
        # Real PyTorch entries, CPython's pickles of every opcode and
        # protocol, and the pickle policy's cases (hostile uses of PyTorch's globals).
        add_seeds "$corpus" "$fixtures"/*/cache*/fxgraph/*/*/* "$fixtures"/*/cache*/aotautograd/*/* \
            "$releases"/*/cache/*/fxgraph/*/*/* "$releases"/*/cache/*/aotautograd/*/* \
            "$repo"/tests/data/pickles/*.pkl \
            "$repo"/tests/data/pickles/policy/*.pkl
        ;;
    fuzz_python_literal | fuzz_kernel_module)
        # Kernel modules (their decorators hold the literals) and autotune results,
        # and the modules of every release form (tests/data/releases).
        add_seeds "$corpus" "$fixtures"/*/cache*/*/*.py "$fixtures"/*/cache*/*/*.best_config \
            "$releases"/*/cache/*/*/*.py "$releases"/*/cache/*/*.py
        ;;
    fuzz_python_tokens)
        # Generated modules (wrappers with their kernel and C++ strings, kernel modules),
        # the CPU entries' C++, and tests/data/code_audit's tokenizer cases.
        add_seeds "$corpus" "$fixtures"/*/cache*/*/*.py "$fixtures"/*/cache*/*/*.cpp \
            "$repo"/tests/data/code_audit/*.py
        ;;
    fuzz_keyed_cache)
        # OnDiskCache values (reader 0), env-var forms (1), pickled dicts (2):
        # the first byte picks the reader.
        local file
        for file in "$repo"/tests/data/keyed_cache/root/cache/*/* "$repo"/tests/data/keyed_cache/env/*.txt \
            "$repo"/tests/data/keyed_cache/in_memory/*.pkl; do
            [[ -f "$file" ]] || continue
            local pick=0
            [[ "$file" == *.txt ]] && pick=1
            [[ "$file" == *.pkl ]] && pick=2
            { printf "\\x0$pick"; cat "$file"; } >"$corpus/seed-$(basename "$file")-$pick"
        done
        ;;
    fuzz_bench_protocol)
        # What the CLI printed: plans (no GPU), a run without a driver, a refused
        # accept, a tune's plan and a tune run on the stand-in driver
        # (tests/data/bench_protocol).
        add_seeds "$corpus" "$repo"/tests/data/bench_protocol/*
        ;;
    fuzz_compile_server)
        # A compile server's session: ready, compiled, failed, fatal (tests/data/compile_server).
        add_seeds "$corpus" "$repo"/tests/data/compile_server/*
        ;;
    fuzz_serving)
        # tests/data/serving: indexes of each vLLM era (reader 0), factors (1),
        # CompiledArtifact files (2), a pack manifest (3); the first byte picks the reader.
        local file pick
        for file in "$repo"/tests/data/serving/*; do
            case $(basename "$file") in
            vllm_compile_cache*) pick=0 ;;
            cache_key_factors.json) pick=1 ;;
            artifact_*) pick=2 ;;
            cachelens-pack.json) pick=3 ;;
            *) continue ;;
            esac
            { printf "\\x0$pick"; cat "$file"; } >"$corpus/seed-$(basename "$file")"
        done
        ;;
    fuzz_resp_reply)
        # What a Redis server answers to the commands cachelens sends: statuses, errors,
        # integers, nils, strings (one a real best_config), arrays (SCAN's), pipelines.
        python3 - "$corpus" "$fixtures"/devset/cache/*/*.best_config <<'PY'
import hashlib, pathlib, sys
corpus = pathlib.Path(sys.argv[1])
def bulk(data):
    return b"$%d\r\n%s\r\n" % (len(data), data)
config = pathlib.Path(sys.argv[2]).read_bytes() if len(sys.argv) > 2 else b"{}"
seeds = [b"+PONG\r\n", b"+OK\r\n", b"-NOAUTH Authentication required.\r\n",
         b"-ERR wrong number of arguments\r\n", b":0\r\n:-2\r\n:1234\r\n", b"$-1\r\n",
         bulk(config) + b"$-1\r\n" + bulk(b"\x00\x01binary\r\n"),
         b"*2\r\n" + bulk(b"0") + b"*2\r\n" + bulk(b"pt2:fx-graph-v1::fabc:c1") + bulk(b"k"),
         b"*-1\r\n", b"*1\r\n*1\r\n*1\r\n:1\r\n", b"+OK\r\n$-1\r\n:5\r\n:-1\r\n" * 4]
for blob in seeds:
    (corpus / hashlib.sha1(blob).hexdigest()).write_bytes(blob)
PY
        ;;
    fuzz_pt2)
        # tests/data/pt2's archives: every layout and every hostile case.
        add_seeds "$corpus" "$repo"/tests/data/pt2/*.pt2
        ;;
    fuzz_precompile)
        # tests/data/precompile's files: every layout, the PT2AOT header, the hostile
        # and broken ones, each whole (a length prefix of ffff: no backends), and the
        # 2.9 split entry as its dynamo file (its length first) followed by its backends.
        local file dir size
        for file in "$repo"/tests/data/precompile/*.bin "$repo"/tests/data/precompile/*/dynamo/*/entry \
            "$repo"/tests/data/precompile/legacy_2_9/dynamo/*/dynamo; do
            { printf '\xff\xff'; cat "$file"; } >"$corpus/seed-$(sha1sum "$file" | cut -c1-40)"
        done
        for dir in "$repo"/tests/data/precompile/legacy_2_9/dynamo/*; do
            size=$(stat -c %s "$dir/dynamo")
            { printf "\\x$(printf %02x $((size & 255)))\\x$(printf %02x $((size >> 8)))"
                cat "$dir/dynamo" "$dir/backends"; } >"$corpus/seed-split-$(basename "$dir")"
        done
        # Guards whose local_scope holds a list that holds itself, and lists 8 wide and 12
        # deep each sharing one list through the memo (a stack overflow and a hang once).
        python3 - "$corpus" <<'PY'
import hashlib, pathlib, pickle, sys, types

corpus = pathlib.Path(sys.argv[1])
for name in ("torch", "torch._dynamo", "torch._dynamo.guards"):
    sys.modules[name] = types.ModuleType(name)
sys.modules["torch"]._dynamo = sys.modules["torch._dynamo"]
guards = sys.modules["torch._dynamo"].guards = sys.modules["torch._dynamo.guards"]
for name in ("GuardsState", "OutputGraphGuardsState"):
    setattr(guards, name, type(name, (), {"__module__": "torch._dynamo.guards"}))
cyclic = []
cyclic.append(cyclic)
shared = []
for _ in range(12):
    shared = [shared] * 8
for value in (cyclic, shared):
    graph = guards.OutputGraphGuardsState()
    graph.local_scope = {"x": value}
    state = guards.GuardsState()
    state.output_graph = graph
    blob = b"\xff\xff" + pickle.dumps({"signature": None, "runtime_env": None,
                                       "guards_state": pickle.dumps(state, protocol=4)}, protocol=4)
    (corpus / hashlib.sha1(blob).hexdigest()).write_bytes(blob)
PY
        ;;
    fuzz_best_config)
        add_seeds "$corpus" "$fixtures"/*/cache*/*/*.best_config "$fixtures"/*/cache*/*/*.kernel_perf \
            "$fixtures"/*/cache*/cache/*
        ;;
    fuzz_example_inputs)
        # Pairs of real graphs' example inputs (golden.json's debug lines), one
        # value a line, the two graphs separated by "---".
        python3 - "$corpus" "$fixtures" <<'PY'
import hashlib, itertools, json, pathlib, re, sys

corpus, fixtures = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
graphs = []
for golden in sorted(fixtures.glob("*/golden.json")):
    text = golden.read_text()
    for lines in re.findall(r"(?:\[[a-z0-9]+\] example_inputs\[\d+\]: [^\n\"]*(?:\\n|\"))+", text):
        values = re.findall(r"example_inputs\[\d+\]: ([^\n\"]*)", lines)
        if values and values not in graphs:
            graphs.append(values)
for left, right in itertools.islice(itertools.product(graphs, repeat=2), 64):
    data = "\n".join(left + ["---"] + right).encode()
    (corpus / hashlib.sha1(data).hexdigest()).write_bytes(data)
PY
        ;;
    fuzz_causes)
        # Pairs of real keys' debug lines (golden.json's; the config lines cut
        # to a few so a pair fits max_len), "---" between them, and after "==="
        # sizes for the second key's first symbols.
        python3 - "$corpus" "$fixtures" <<'PY'
import hashlib, itertools, json, pathlib, re, sys

corpus, fixtures = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
keys = []
for golden in sorted(fixtures.glob("*/golden.json")):
    for item in json.loads(golden.read_text()).get("fxgraph", []):
        lines = item.get("debug_lines")
        if isinstance(lines, str):
            lines = lines.split("\n")
        if not lines:
            continue
        config = [l for l in lines if "] inductor_config[" in l][:24]
        rest = [l[:4000] for l in lines if "] inductor_config[" not in l]
        keys.append(rest + config)
for left, right in itertools.islice(itertools.product(keys, repeat=2), 48):
    symbols = re.findall(r"example_inputs\[\d+\]: \('(s\d+)',\)", "\n".join(right))
    sizes = ",".join(f"{s}={64 * (i + 1)}" for i, s in enumerate(symbols))
    data = "\n".join(left + ["---"] + right + ["===", sizes]).encode()
    (corpus / hashlib.sha1(data).hexdigest()).write_bytes(data)
PY
        ;;
    fuzz_fingerprint)
        # The fingerprints `cachelens env --from` writes of each fixture dir.
        local dir
        for dir in "$fixtures"/*/cache; do
            "$repo"/build/default/app/cli/cachelens env --from "$dir" --json \
                >"$corpus/env-$(basename "$(dirname "$dir")").json" 2>/dev/null || true
        done
        printf '%s' '{"cachelens_fingerprint": 1, "environment": {"cuda": "13.0"}, "device_types":
            ["cuda"], "inductor_config": {"debug": [{"hash": "x", "value": "False", "graphs": 1}]}}' \
            >"$corpus/hand-made.json"
        ;;
    fuzz_triton_kernel)
        # One kernel's metadata and PTX from each Triton dir; every Triton release's
        # metadata and Inductor's benchmark caches (tests/data/releases).
        add_seeds "$corpus" "$fixtures"/devset/cache/triton/0/*/triton_*.json "$fixtures"/devset/cache/triton/0/*/*.ptx \
            "$releases"/*/cache/*/triton/0/*/*.json "$releases"/*/cache/*/cache/*
        ;;
    fuzz_trace)
        # The real TORCH_TRACE logs (their first 256 KiB hold a whole cache event), the
        # hand-made ones (hits, guard misses, bypasses, damage) and every release's
        # cache artifacts (tests/data/releases: 2.4's and 2.5's _hash, 2.6's names).
        add_seeds "$corpus" "$fixtures"/*/trace/*.log "$repo"/tests/data/trace/*.log \
            "$releases"/traces/cache/*.log "$releases"/traces/cache/*/*.log
        ;;
    fuzz_mega_cache)
        # PyTorch's bundle of the devset MLP (its first 256 KiB: the crc fails, the
        # form without one still reads), and the older forms of tests/data/bundle
        # (type enum with and without crc, pickles of CacheArtifacts and not).
        add_seeds "$corpus" "$fixtures"/*/mega_*.bin "$repo"/tests/data/bundle/*.bin
        # Whole bundles (crc form) of one real entry each, under max_len, for the import
        # checks behind a decoded bundle: a GPU FX entry (wrapper and Triton kernels), a
        # CPU one (C++), an AOT entry with its GraphModule, and the GPU one with a
        # wrapper line turned into os.system (same length: a finding, not a parse error).
        python3 - "$corpus" "$fixtures" <<'PY'
import base64, hashlib, pathlib, struct, sys, zlib

def u64(value):
    return struct.pack(">Q", value)

def encode(kind, key, content):  # one section of one artifact
    name, encoded = base64.b64encode(kind.encode()), base64.b64encode(key.encode())
    stream = (u64(1) + u64(len(name)) + name + u64(1) + u64(len(encoded)) + encoded +
              u64(len(content)) + content)
    return struct.pack(">I", zlib.crc32(stream)) + stream

corpus, fixtures = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
def entry(relative):
    directory = fixtures / relative
    return directory.name, next(directory.iterdir()).read_bytes()

gpu = entry("devset/cache/fxgraph/3g/f3gunfwvnc2bijojank6na6pplhx6nopcc7cx3stulctblbl4cln")
cpu = entry("cpu_dev/cache/fxgraph/bs/fbsetkgshductsqall6jpf2scss325b5a4tknlely2yjllovzj4r")
aot = entry("devset/cache/aotautograd/azz63xekxqvt27cuad3a7l55oldjldqgsdqa4ixhkzcsp3mnrv7i")
key, content = gpu
at = content.index(b"# kernel path: ", content.index(b"# AOT ID:"))
begin, end = content.rindex(b"\n", 0, at) + 1, content.index(b"\n", at)
hostile = b"os.system('touch /tmp/ran')"
hostile = content[:begin] + hostile + b" " * (end - begin - len(hostile)) + content[end:]
for blob in (encode("inductor", *gpu), encode("inductor", *cpu), encode("aot_autograd", *aot),
             encode("inductor", key, hostile)):
    (corpus / hashlib.sha1(blob).hexdigest()).write_bytes(blob)
PY
        ;;
    fuzz_signed_bundle)
        # The devset bundle signed with a throwaway key (cut at max_len: the manifest, the
        # signature and the first artifact), and two small bundles of its artifacts signed
        # whole. Made here with Python and the openssl CLI, apart from the code under test.
        python3 - "$corpus" "$fixtures"/devset/mega_*.bin <<'PY'
import base64, hashlib, json, pathlib, struct, subprocess, sys, tempfile, zlib

def u64(value):
    return struct.pack(">Q", value)

def sections_of(data):  # the crc form: crc, version, then (type, count, (key, content)*)*
    at, sections = 12, []
    def sized():
        nonlocal at
        (size,) = struct.unpack_from(">Q", data, at)
        at += 8 + size
        return data[at - size:at]
    while at < len(data):
        kind = base64.b64decode(sized()).decode()
        (count,) = struct.unpack_from(">Q", data, at)
        at += 8
        sections.append((kind, [(base64.b64decode(sized()).decode(), sized()) for _ in range(count)]))
    return sections

def encode(sections):
    stream = u64(1)
    for kind, artifacts in sections:
        name = base64.b64encode(kind.encode())
        stream += u64(len(name)) + name + u64(len(artifacts))
        for key, content in artifacts:
            encoded = base64.b64encode(key.encode())
            stream += u64(len(encoded)) + encoded + u64(len(content)) + content
    return struct.pack(">I", zlib.crc32(stream)) + stream

corpus = pathlib.Path(sys.argv[1])
with tempfile.TemporaryDirectory() as tmp:
    key = pathlib.Path(tmp, "seed.key")
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(key)], check=True)
    der = subprocess.run(["openssl", "pkey", "-in", str(key), "-pubout", "-outform", "DER"],
                         check=True, capture_output=True).stdout
    fingerprint = hashlib.sha256(der[-32:]).hexdigest()
    for path in sys.argv[2:]:
        sections = sections_of(pathlib.Path(path).read_bytes())
        small = [s for s in sections if s[0] == "autotune"]
        payloads = [encode(sections), encode(small),
                    encode(small + [s for s in sections if s[0] == "aot_autograd"])]
        for payload in payloads:
            manifest = json.dumps({
                "format": "cachelens-signed-bundle", "version": 1,
                "created": "2026-01-01T00:00:00Z", "signer": {"fingerprint": fingerprint},
                "payload": {"size": len(payload), "sha256": hashlib.sha256(payload).hexdigest()},
                "source": {"gpu": "NVIDIA H100 80GB HBM3", "torch_version": "2.11.0+cu130",
                           "triton_version": "3.6.0", "cuda_version": None},
                "artifacts": [{"type": kind, "key": k, "size": len(c),
                               "sha256": hashlib.sha256(c).hexdigest()}
                              for kind, artifacts in sections_of(payload) for k, c in artifacts],
            }, indent=2).encode()
            manifest_file = pathlib.Path(tmp, "manifest.json")
            manifest_file.write_bytes(manifest)
            signature = subprocess.run(["openssl", "pkeyutl", "-sign", "-rawin", "-inkey", str(key),
                                        "-in", str(manifest_file)],
                                       check=True, capture_output=True).stdout
            blob = (b"CACHELENS-SIGNED-BUNDLE\n" + u64(len(manifest)) + manifest +
                    u64(len(signature)) + signature + payload)
            (corpus / hashlib.sha1(blob).hexdigest()).write_bytes(blob)
PY
        ;;
    fuzz_remote)
        # URLs, PyTorch's Redis keys of each cache, and values as PyTorch stores them: an
        # FX value around a real best_config's bytes, a bundled autotune dict, bad JSON.
        python3 - "$corpus" "$fixtures"/devset/cache/*/*.best_config <<'PY'
import base64, hashlib, json, pathlib, sys
corpus = pathlib.Path(sys.argv[1])
seeds = [b"redis://user:p%40ss@cache.example:6380/2", b"rediss://[::1]:6379", b"localhost:6379",
         b"pt2:fx-graph-v1::fabc:c1", b"pt2:bundled-autotune-v1::" + b"a" * 64 + b":c1",
         b"{\"data\": 5}", b"[1, 2"]
for path in sys.argv[2:4]:
    config = pathlib.Path(path).read_bytes()
    seeds.append(json.dumps({"data": base64.b64encode(config).decode(), "time_taken_ms": 12}).encode())
    seeds.append(json.dumps({pathlib.Path(path).name: json.loads(config)}).encode())
for blob in seeds:
    (corpus / hashlib.sha1(blob).hexdigest()).write_bytes(blob)
PY
        ;;
    fuzz_guards)
        # Every guard PyTorch wrote in the fixtures' golden files and every expression of
        # tests/data/guards/cases.json, one seed file each.
        python3 - "$corpus" "$fixtures"/*/golden*.json "$repo"/tests/data/guards/cases.json <<'PY'
import hashlib, json, pathlib, sys
corpus, expressions = pathlib.Path(sys.argv[1]), set()
for path in sys.argv[2:]:
    data = json.loads(pathlib.Path(path).read_text())
    expressions.update(guard["expr"] for guard in data.get("guards", []))
    for key in data.get("keys", []):
        expressions.update(entry["guards_expr"] or "" for entry in key["entries"])
    expressions.update(case["expr"] for case in data.get("cases", []))
for expression in expressions:
    blob = expression.encode()
    (corpus / hashlib.sha1(blob).hexdigest()).write_bytes(blob)
PY
        ;;
    esac
    shopt -u nullglob
}

# CPU seconds (user + system) the process `pid` has used so far.
cpu_of() {
    local fields
    read -r -a fields <"/proc/$1/stat" 2>/dev/null || { echo 0; return; }
    # utime and stime are fields 14 and 15; the command name (2) has no spaces here.
    echo $(((fields[13] + fields[14]) / $(getconf CLK_TCK)))
}

ledger=$build/ledger.tsv
failed=()
for target in "${targets[@]}"; do
    binary=$build/tests/fuzz/$target
    if [ ! -x "$binary" ]; then
        echo "run-fuzzers: $target was not built" >&2
        failed+=("$target")
        continue
    fi
    corpus=$build/corpus/$target
    kept=$repo/tests/fuzz/corpus/$target
    artifacts=$build/artifacts/$target
    mkdir -p "$corpus" "$artifacts"
    seed_corpus "$target" "$corpus"
    if [ -d "$kept" ]; then
        cp -f "$kept"/* "$corpus"/ 2>/dev/null || true
    fi
    limit=$seconds
    if [ "$cpu_seconds" -gt 0 ]; then
        limit=$((cpu_seconds * 4)) # wall time is a backstop; the CPU watch below ends it
        echo "run-fuzzers: $target for ${cpu_seconds} CPU seconds ($(find "$corpus" -type f | wc -l) inputs in the corpus)"
    else
        echo "run-fuzzers: $target for ${seconds}s ($(find "$corpus" -type f | wc -l) inputs in the corpus)"
    fi
    parallel=()
    if [ "$jobs" -gt 1 ]; then
        parallel=(-fork="$jobs")
    fi
    # UBSan reports abort (the preset does not build with -fno-sanitize-recover).
    status=0
    started=$EPOCHSECONDS
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        "$binary" "$corpus" "${parallel[@]}" \
        -max_len="${max_len[$target]:-65536}" \
        -max_total_time="$limit" \
        -timeout=10 \
        -rss_limit_mb=2048 \
        -artifact_prefix="$artifacts/" \
        -print_final_stats=1 \
        >"$build/$target.log" 2>&1 &
    pid=$!
    cpu=0
    while kill -0 "$pid" 2>/dev/null; do
        cpu=$(cpu_of "$pid")
        if [ "$cpu_seconds" -gt 0 ] && [ "$cpu" -ge "$cpu_seconds" ]; then
            kill -INT "$pid" # libFuzzer prints its final stats and exits 72
        fi
        sleep 2
    done
    wait "$pid" || status=$?
    [ "$status" -eq 72 ] && status=0
    wall=$((EPOCHSECONDS - started))
    # What it did: the in-process summary, or fork mode's last status line.
    grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::number_of_executed_units|^==[0-9]+==|^SUMMARY|Test unit written' \
        "$build/$target.log" || true
    grep -E '^#[0-9]+: cov:' "$build/$target.log" | tail -n 1 || true
    execs=$(grep -oE '^stat::number_of_executed_units: [0-9]+' "$build/$target.log" | grep -oE '[0-9]+$' || echo 0)
    last=$(grep -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|DONE|INITED)' "$build/$target.log" | tail -n 1)
    edges=$(grep -oE 'cov: [0-9]+' <<<"$last" | grep -oE '[0-9]+' || echo 0)
    features=$(grep -oE 'ft: [0-9]+' <<<"$last" | grep -oE '[0-9]+' || echo 0)
    result=ok
    if [ "$status" -ne 0 ] || [ -n "$(find "$artifacts" -type f)" ]; then
        echo "run-fuzzers: $target FAILED (exit $status): see $build/$target.log and $artifacts/" >&2
        failed+=("$target")
        result=failed
    fi
    inputs=$(find "$corpus" -type f | wc -l)
    if [ "$keep" = 1 ] && [ "$result" = ok ]; then
        # The kept corpus: the smallest set of inputs with every feature the run reached.
        merged=$build/merged/$target
        rm -rf "$merged" && mkdir -p "$merged"
        "$binary" -merge=1 -max_len="${max_len[$target]:-65536}" -timeout=10 -rss_limit_mb=2048 \
            "$merged" "$corpus" >"$build/$target.merge.log" 2>&1
        rm -rf "$kept" && mkdir -p "$(dirname "$kept")" && mv "$merged" "$kept"
        inputs=$(find "$kept" -type f | wc -l)
        echo "run-fuzzers: kept $inputs inputs ($(du -sh "$kept" | cut -f1)) in tests/fuzz/corpus/$target"
    fi
    line=$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s' "$(date -u +%Y-%m-%dT%H:%MZ)" "$target" \
        "$wall" "$cpu" "$execs" "$edges" "$features" "$inputs" "$result")
    echo "$line" >>"$ledger"
    if [ "$keep" = 1 ]; then
        echo "$line" >>"$repo/tests/fuzz/ledger.tsv"
    fi
done

if [ ${#failed[@]} -ne 0 ]; then
    echo "run-fuzzers: failures in ${failed[*]}" >&2
    exit 1
fi
echo "run-fuzzers: no crash in ${targets[*]}"
