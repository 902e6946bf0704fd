#!/usr/bin/env python3
"""Anchor for bench_remote: CPython pushing a cache dir to PyTorch's Redis
remote cache and pulling it back, with the standard library only (no redis
module: a minimal RESP client over a socket, pipelined as cachelens's is:
up to 512 commands or 8 MiB per batch, then every reply read).

- push: what `cachelens remote push DIR URL` does. Walk and read the cache dir
  as `cachelens export` does (anchor_bundle.collect: every file read, each
  content-addressed name checked with hashlib); for each FX graph and AOT
  entry, the value PyTorch's FxGraphCache / AOTAutogradCache put:
  json.dumps({"data": base64(pickle), "time_taken_ms": N}), N read from the
  pickle with a stub-class unpickler (FX _time_taken_ns // 1e6, AOT forward +
  backward); then one pipelined GET of every key (what is there already) and
  a pipelined SET NX of those not there.
- pull: what `cachelens remote pull URL --into DIR` does: SCAN MATCH pt2:*
  to the end, one pipelined GET of every key, json.loads, base64 (validated),
  the local path PyTorch writes on a remote hit (fxgraph/<key[1:3]>/<key>/
  <sha256_hash>, aotautograd/<key>/<sha256_hash>) and write_atomic with an
  fsync of the file and of its directory (anchor_bundle.write_atomic,
  durable), into a fresh directory each run, made and removed untimed. No
  safety checks: PyTorch makes none (it unpickles what it gets).

Usage:
  anchor_remote.py bench HOST:PORT SCRATCH_DIR CACHE_DIR...   prints JSON
  anchor_remote.py verify HOST:PORT CACHE_DIR
      checks that the server holds exactly the keys and values (byte for
      byte) this anchor would push for CACHE_DIR: run it after `cachelens
      remote push CACHE_DIR` on an empty db, to show both push the same.
"""
import base64
import io
import json
import os
import shutil
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from anchor_bundle import MIN_REPS, MIN_SECONDS, collect, sha256_hash, write_atomic  # noqa: E402
from anchor_unpickle import StubUnpickler  # noqa: E402

PIPELINE_COMMANDS = 512
PIPELINE_BYTES = 8 << 20
CACHE_IDS = {"inductor": "fx-graph-v1", "aot_autograd": "autograd-experimental"}


class RespError(Exception):
    pass


class Redis:
    """One connection; commands are lists of bytes."""

    def __init__(self, address: str):
        host, port = address.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = self.sock.makefile("rb", buffering=1 << 20)

    @staticmethod
    def encode(args) -> bytes:
        out = [b"*%d\r\n" % len(args)]
        for arg in args:
            out.append(b"$%d\r\n" % len(arg))
            out.append(arg)
            out.append(b"\r\n")
        return b"".join(out)

    def reply(self):
        line = self.reader.readline()
        if not line.endswith(b"\r\n"):
            raise RespError("the connection closed")
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest
        if kind == b"-":
            raise RespError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            size = int(rest)
            if size < 0:
                return None
            data = self.reader.read(size + 2)
            return data[:-2]
        if kind == b"*":
            count = int(rest)
            return None if count < 0 else [self.reply() for _ in range(count)]
        raise RespError(f"unexpected reply {line!r}")

    def pipeline(self, commands):
        """Sends the commands in batches and returns every reply, in order."""
        replies = []
        at = 0
        while at < len(commands):
            batch, size = [], 0
            while at < len(commands) and len(batch) < PIPELINE_COMMANDS and (
                    not batch or size < PIPELINE_BYTES):
                encoded = self.encode(commands[at])
                batch.append(encoded)
                size += len(encoded)
                at += 1
            self.sock.sendall(b"".join(batch))
            replies += [self.reply() for _ in batch]
        return replies

    def command(self, *args):
        return self.pipeline([list(args)])[0]

    def scan_all(self, match: bytes):
        keys, cursor = set(), b"0"
        while True:
            cursor, page = self.command(b"SCAN", cursor, b"MATCH", match, b"COUNT", b"1000")
            keys.update(page)
            if cursor == b"0":
                return sorted(keys)


def time_taken_ms(kind: str, content: bytes) -> int:
    """PyTorch's time_taken_ms, read from the pickle with stub classes."""
    state = StubUnpickler(io.BytesIO(content)).load().state
    if kind == "inductor":
        return int((state.get("_time_taken_ns") or 0) // 1e6)
    return int(((state.get("forward_time_taken_ns") or 0) +
                (state.get("backward_time_taken_ns") or 0)) // 1e6)


def values_to_push(cache_dir: str):
    """[(redis key, value, pickle bytes)] for the dir's FX and AOT entries."""
    out = []
    for kind, artifacts in collect(cache_dir):
        if kind not in CACHE_IDS:
            continue  # best_configs and dynamo profiles: not measured here
        for key, content in artifacts:
            value = json.dumps({"data": base64.b64encode(content).decode("ascii"),
                                "time_taken_ms": time_taken_ms(kind, content)})
            out.append((f"pt2:{CACHE_IDS[kind]}::{key}:c1".encode(), value.encode(), len(content)))
    return out


def push(redis: Redis, cache_dir: str):
    """Returns (entries set, pickle bytes)."""
    items = values_to_push(cache_dir)
    there = redis.pipeline([[b"GET", key] for key, _, _ in items])
    absent = [(key, value) for (key, value, _), old in zip(items, there) if old is None]
    written = redis.pipeline([[b"SET", key, value, b"NX"] for key, value in absent])
    return sum(1 for r in written if r == b"OK"), sum(size for _, _, size in items)


def local_path(cache_dir: str, redis_key: bytes, content: bytes) -> str:
    cache_id, key = redis_key.decode()[len("pt2:"):-len(":c1")].split("::", 1)
    if cache_id == "fx-graph-v1":
        return os.path.join(cache_dir, "fxgraph", key[1:3], key, sha256_hash(content))
    if cache_id == "autograd-experimental":
        return os.path.join(cache_dir, "aotautograd", key, sha256_hash(content))
    raise ValueError(f"{redis_key!r}: not measured here")


def pull(redis: Redis, cache_dir: str):
    """Returns (entries written, pickle bytes)."""
    keys = redis.scan_all(b"pt2:*")
    values = redis.pipeline([[b"GET", key] for key in keys])
    written, size = 0, 0
    for key, value in zip(keys, values):
        content = base64.b64decode(json.loads(value)["data"], validate=True)
        write_atomic(local_path(cache_dir, key, content), content, durable=True)
        written += 1
        size += len(content)
    return written, size


def measure(run, setup):
    """anchor_bundle.measure without the warm-up (each run starts afresh),
    with the process's CPU time as well: (runs, wall seconds, CPU seconds)."""
    reps, elapsed, cpu = 0, 0.0, 0.0
    while elapsed < MIN_SECONDS or reps < MIN_REPS:
        setup()
        start, start_cpu = time.perf_counter(), time.process_time()
        run()
        elapsed += time.perf_counter() - start
        cpu += time.process_time() - start_cpu
        reps += 1
    return reps, elapsed, cpu


def figure(op: str, path: str, entries: int, size: int, reps: int, seconds: float, cpu: float):
    return {
        "op": op,
        "input": os.path.basename(os.path.normpath(path)),
        "entries": entries,
        "bytes": size,
        "reps": reps,
        "ms": seconds / reps * 1e3,
        "cpu_ms": cpu / reps * 1e3,
        "mb_per_s": size * reps / seconds / 1e6,
    }


def bench(address: str, scratch: str, cache_dirs):
    redis = Redis(address)
    os.makedirs(scratch, exist_ok=True)
    results = []
    for cache_dir in cache_dirs:
        items = values_to_push(cache_dir)
        entries, size = len(items), sum(s for _, _, s in items)

        def pushed():
            if push(redis, cache_dir) != (entries, size):
                raise SystemExit(f"{cache_dir}: not every entry was set")

        # Every run starts from an empty db, emptied untimed.
        reps, seconds, cpu = measure(pushed, lambda: redis.command(b"FLUSHDB"))
        results.append(figure("push", cache_dir, entries, size, reps, seconds, cpu))

        redis.command(b"FLUSHDB")
        push(redis, cache_dir)
        target = os.path.join(scratch, "anchor-pull")

        def fresh():
            shutil.rmtree(target, ignore_errors=True)

        def pulled():
            if pull(redis, target) != (entries, size):
                raise SystemExit(f"{cache_dir}: not every entry was pulled")

        reps, seconds, cpu = measure(pulled, fresh)
        results.append(figure("pull", cache_dir, entries, size, reps, seconds, cpu))
        fresh()
        redis.command(b"FLUSHDB")
    print(json.dumps({"python": sys.version.split()[0], "results": results}))


def verify(address: str, cache_dir: str):
    redis = Redis(address)
    ours = {key: value for key, value, _ in values_to_push(cache_dir)}
    keys = redis.scan_all(b"*")
    if sorted(ours) != keys:
        sys.exit(f"anchor_remote: {cache_dir}: the server holds {len(keys)} keys, "
                 f"the anchor would push {len(ours)} others")
    for key, value in zip(keys, redis.pipeline([[b"GET", key] for key in keys])):
        if value != ours[key]:
            sys.exit(f"anchor_remote: {key.decode()}: cachelens pushed another value")
    print(f"anchor_remote: {cache_dir}: the {len(keys)} values cachelens pushed are "
          f"byte for byte the anchor's", file=sys.stderr)


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "bench":
        bench(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif len(sys.argv) == 4 and sys.argv[1] == "verify":
        verify(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
