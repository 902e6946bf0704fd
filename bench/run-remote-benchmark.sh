#!/usr/bin/env bash
# Redis remote cache (part of `make bench`, or on its own): push and pull
# throughput of `cachelens remote` next to CPython doing the same GETs and SETs
# of the same values (bench/anchor_remote.py, stdlib only), against one
# redis-server started here on a free loopback port (no persistence), with
# redis-benchmark's SET/GET of a value of the same mean size as a ceiling.
# The clients are pinned to core 0 and the server to core 1 (when there is
# one). Before timing, `cachelens remote push` and the anchor must agree byte
# for byte on every value. Rounds alternate cachelens and the anchor
# (REMOTE_BENCH_ROUNDS, 3 by default); the table gives the median of the
# rounds. Prints Markdown table rows.
#
# Usage: run-remote-benchmark.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/default}"
shared="${CACHELENS_SHARED_DIR:-$root/../shared}"
rounds="${REMOTE_BENCH_ROUNDS:-3}"

devset="$shared/fixtures/torch-2.11-cu130-h100/devset/cache"
if [[ ! -d "$devset" ]]; then
    echo "bench: no $devset; skipping the remote cache benchmark" >&2
    exit 0
fi
if ! command -v redis-server >/dev/null; then
    echo "bench: no redis-server (apt install redis-server); skipping the remote cache benchmark" >&2
    exit 0
fi
cli="$build/app/cli/cachelens"
for program in "$cli" "$build/bench/bench_remote"; do
    if [[ ! -x "$program" ]]; then
        echo "bench: no $program; build it first" >&2
        exit 1
    fi
done

client_pin=()
server_pin=()
if command -v taskset >/dev/null; then
    client_pin=(taskset -c 0)
    if [[ "$(nproc)" -ge 2 ]]; then
        server_pin=(taskset -c 1)
    fi
fi

out="$build/bench"
scratch="$out/remote-scratch"
mkdir -p "$out" "$scratch"

# The server: a free loopback port, a temporary dir, nothing saved to disk.
server_dir="$(mktemp -d)"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"${server_pin[@]}" redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
    --dir "$server_dir" --logfile "$server_dir/redis.log" --daemonize no &
server_pid=$!
synthetic_cache="$out/remote-synthetic-cache"
cleanup() {
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    rm -rf "$server_dir" "$scratch" "$synthetic_cache"
}
trap cleanup EXIT
address="127.0.0.1:$port"
url="redis://$address"
redis() { python3 - "$port" "$@" <<'PY'
import socket, sys
port, args = int(sys.argv[1]), [a.encode() for a in sys.argv[2:]]
request = b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)
with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
    s.sendall(request)
    print(s.recv(4096).decode().strip())
PY
}
for _ in $(seq 100); do
    if [[ "$(redis PING 2>/dev/null)" == "+PONG" ]]; then
        break
    fi
    sleep 0.1
done
if [[ "$(redis PING 2>/dev/null)" != "+PONG" ]]; then
    echo "bench: redis-server did not start:" >&2
    cat "$server_dir/redis.log" >&2
    exit 1
fi

# The larger input: the devset cache's artifacts ten times under fresh keys
# (the bundle benchmark's synthetic bundle), imported into a cache dir.
python3 "$root/bench/make-synthetic-bundle.py" "$devset" "$out/remote-synthetic.bin" --copies 10 \
    > /dev/null
rm -rf "$synthetic_cache"
"$cli" import "$out/remote-synthetic.bin" --into "$synthetic_cache" --json > /dev/null
rm -f "$out/remote-synthetic.bin"
inputs=("$devset" "$synthetic_cache")

# The same values on both sides: cachelens pushes, the anchor compares.
for dir in "${inputs[@]}"; do
    redis FLUSHALL > /dev/null
    "$cli" remote push "$dir" "$url" --json > "$out/remote-push-check.json"
    python3 "$root/bench/anchor_remote.py" verify "$address" "$dir"
done
redis FLUSHALL > /dev/null

echo "bench: load average before the remote cache benchmark: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
results=()
for round in $(seq 1 "$rounds"); do
    "${client_pin[@]}" "$build/bench/bench_remote" --benchmark_format=json \
        --benchmark_out="$out/remote-$round.json" --benchmark_out_format=json \
        -- "$url" "$scratch" "${inputs[@]}" >/dev/null
    "${client_pin[@]}" python3 "$root/bench/anchor_remote.py" bench "$address" "$scratch" \
        "${inputs[@]}" > "$out/remote-anchor-$round.json"
    results+=("$out/remote-$round.json" "$out/remote-anchor-$round.json")
done

# The ceiling: redis-benchmark SET and GET of one value of the devset's mean
# value size, 16 commands per pipeline, one connection as cachelens uses.
value_size="$(python3 -c 'import json, sys
for run in json.load(open(sys.argv[1]))["benchmarks"]:
    if run["run_type"] == "iteration" and run["run_name"].split("/")[:2] == ["push", "cache"]:
        print(round(run["value_bytes"] / run["entries"]))
        break' "$out/remote-1.json")"
ceiling="$out/remote-ceiling.csv"
: > "$ceiling"
if command -v redis-benchmark >/dev/null; then
    for _ in $(seq 1 "$rounds"); do
        "${client_pin[@]}" redis-benchmark -h 127.0.0.1 -p "$port" -t set,get -d "$value_size" \
            -P 16 -c 1 -n 1000 --csv >> "$ceiling"
    done
else
    echo "bench: no redis-benchmark; the ceiling row is left out" >&2
fi
echo "bench: load average after the remote cache benchmark: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

python3 - "$root/bench" "$ceiling" "$value_size" "${results[@]}" <<'PY'
import csv, statistics, sys

sys.path.insert(0, sys.argv[1])
from rounds import load_rounds  # noqa: E402

ceiling_path, value_size = sys.argv[2], int(sys.argv[3])
ours, theirs, python = load_rounds(sys.argv[4:])  # (op, input) -> [figures of each round]

inputs = {
    "cache": "devset cache dir",
    "remote-synthetic-cache": "synthetic cache dir (the devset's entries x10, fresh keys)",
}
what = {
    "push": ("push of the whole dir to an empty server",
             "read + name check, stub unpickle for time_taken_ms, base64, json.dumps, "
             "pipelined GET + SET NX"),
    "pull": ("pull of everything into an empty dir, durable (one flush per batch)",
             "SCAN, pipelined GET, json.loads, b64decode, write_atomic + fsync per file and dir"),
}
for op in ("push", "pull"):
    for (kind, name), runs in ours.items():
        if kind != op:
            continue
        other = theirs[(op, name)]
        if runs[0]["entries"] != other[0]["entries"] or runs[0]["bytes"] != other[0]["bytes"]:
            sys.exit(f"bench: {op} {name}: cachelens and the anchor did not move the same entries")
        our_mbs = statistics.median(r["bytes_per_second"] for r in runs) / 1e6
        our_ms = statistics.median(r["real_time"] for r in runs)  # ms: the benchmarks' unit
        our_cpu = statistics.median(r["cpu_ms"] for r in runs)
        their_mbs = statistics.median(r["mb_per_s"] for r in other)
        their_ms = statistics.median(r["ms"] for r in other)
        their_cpu = statistics.median(r["cpu_ms"] for r in other)
        ours_text, theirs_text = what[op]
        values = f", {runs[0]['value_bytes'] / 1e6:.1f} MB of values" if op == "push" else ""
        print(f"| Remote {ours_text}: {inputs.get(name, name)} "
              f"({int(runs[0]['entries'])} FX and AOT entries, {runs[0]['bytes'] / 1e6:.1f} MB "
              f"of pickles{values}), client on one core "
              f"| {our_mbs:.0f} MB/s ({our_ms:.0f} ms; CPU {our_cpu:.0f} ms) "
              f"| Python {python} stdlib RESP client, {theirs_text}: "
              f"{their_mbs:.0f} MB/s ({their_ms:.0f} ms; CPU {their_cpu:.0f} ms) "
              f"| {our_mbs / their_mbs:.2f}x |")

rates = {}
with open(ceiling_path) as f:
    for row in csv.reader(f):
        if row and row[0] in ("SET", "GET"):
            rates.setdefault(row[0], []).append(float(row[1]))
if rates:
    mbs = {op: statistics.median(r) * value_size / 1e6 for op, r in rates.items()}
    print(f"| Ceiling: `redis-benchmark -t set,get -d {value_size} -P 16 -c 1` (one value of the "
          f"devset's mean value size, one connection) "
          f"| SET {mbs['SET']:.0f} MB/s, GET {mbs['GET']:.0f} MB/s of values "
          f"| (no anchor: the server's own limit) | - |")
print(f"bench: remote figures are medians of {len(sys.argv[4:]) // 2} rounds (cachelens: of their "
      f"3 repetitions each)", file=sys.stderr)
PY
