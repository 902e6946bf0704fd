#!/usr/bin/env python3
"""Anchor for bench_bundle: what CPython 3 does with a PyTorch mega-cache
bundle, with PyTorch's own format logic and the standard library only.

- decode: torch/utils/_appending_byte_serializer.py's BytesReader and
  torch/compiler/_cache.py's _deserialize_single_cache: zlib.crc32 of
  everything after the stored crc, big-endian u64 lengths (struct), base64
  type names and keys, contents sliced out as bytes.
- import: decode, then what CacheArtifact.populate_cache does for each
  artifact: the destination PyTorch computes (inductor
  fxgraph/<key[1:3]>/<key>/<sha256_hash>, aot_autograd
  aotautograd/<key>/<sha256_hash>, autotune <key>, pgo
  dynamo/code_state_<key>.pkl) written as torch._inductor.codecache.
  write_atomic does (parent dirs made, a temp file beside it, renamed into
  place) - plus an fsync of the file before the rename and of its directory
  after it, which PyTorch does not do and cachelens does: the same work on
  both sides. Each run writes into a fresh directory, removed untimed.
  "import_nofsync" is the same without the fsyncs: write_atomic as PyTorch
  has it, what load_cache_artifacts costs a user today.
- export: walk a cache dir as `cachelens export DIR` does (FX entries, AOT
  entries, best_configs, dynamo profiles, sorted), read each file, check a
  content-addressed file's name is sha256_hash of its bytes (cachelens does
  too), and encode the sections with the crc as BytesWriter does.

Usage: anchor_bundle.py SCRATCH_DIR INPUT... (bundle files are decoded and
imported, directories exported). Prints JSON.
"""
import base64
import hashlib
import json
import os
import shutil
import struct
import sys
import time
import zlib

MIN_SECONDS = 1.0
MIN_REPS = 3

_U32 = struct.Struct(">I")
_U64 = struct.Struct(">Q")


def sha256_hash(data) -> str:
    """PyTorch's codecache.sha256_hash: lowercase base32 of sha256, 51 chars."""
    return base64.b32encode(hashlib.sha256(data).digest())[:51].decode().lower()


def decode(data: bytes):
    """[(type, [(key, content), ...]), ...] of the current (crc32) form."""
    if len(data) < 12:
        raise ValueError("shorter than a bundle header")
    (stored,) = _U32.unpack_from(data, 0)
    if zlib.crc32(memoryview(data)[4:]) != stored:
        raise ValueError("crc32 mismatch")
    end = len(data)
    at = 12  # the crc and the u64 version

    def sized():
        nonlocal at
        (size,) = _U64.unpack_from(data, at)
        at += 8
        if size > end - at:
            raise ValueError(f"offset {at - 8}: a length of {size} past the end")
        chunk = data[at:at + size]
        at += size
        return chunk

    sections = []
    while at < end:
        kind = base64.b64decode(sized()).decode()
        (count,) = _U64.unpack_from(data, at)
        at += 8
        artifacts = []
        for _ in range(count):
            key = base64.b64decode(sized()).decode()
            artifacts.append((key, sized()))
        sections.append((kind, artifacts))
    return sections


def encode(sections) -> bytearray:
    """BytesWriter: 4 bytes reserved for the crc, the version, the sections."""
    out = bytearray(4)
    out += _U64.pack(1)
    for kind, artifacts in sections:
        name = base64.b64encode(kind.encode())
        out += _U64.pack(len(name))
        out += name
        out += _U64.pack(len(artifacts))
        for key, content in artifacts:
            encoded = base64.b64encode(key.encode())
            out += _U64.pack(len(encoded))
            out += encoded
            out += _U64.pack(len(content))
            out += content
    out[0:4] = _U32.pack(zlib.crc32(memoryview(out)[4:]))
    return out


def code_state_name(key: str) -> str:
    """torch._dynamo.pgo.code_state_path's file name."""
    name = f"code_state_{key}.pkl"
    return "".join("_" if c in '<>:"/\\|?*' else c for c in name)


def destination(cache_dir: str, kind: str, key: str, content: bytes) -> str:
    if kind == "inductor":
        return os.path.join(cache_dir, "fxgraph", key[1:3], key, sha256_hash(content))
    if kind == "aot_autograd":
        return os.path.join(cache_dir, "aotautograd", key, sha256_hash(content))
    if kind == "autotune":
        return os.path.join(cache_dir, key)
    if kind == "pgo":
        return os.path.join(cache_dir, "dynamo", code_state_name(key))
    raise ValueError(f"no destination for '{kind}' artifacts")


def write_atomic(path: str, content: bytes, durable: bool) -> None:
    """codecache.write_atomic(path, content, make_dirs=True); `durable` adds
    the fsyncs cachelens makes."""
    parent = os.path.dirname(path)
    os.makedirs(parent, exist_ok=True)
    tmp = os.path.join(parent, f".{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(content)
        if durable:
            f.flush()
            os.fsync(f.fileno())
    os.replace(tmp, path)
    if not durable:
        return
    fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def import_bundle(data: bytes, cache_dir: str, durable: bool = True) -> int:
    written = 0
    for kind, artifacts in decode(data):
        for key, content in artifacts:
            write_atomic(destination(cache_dir, kind, key, content), content, durable)
            written += 1
    return written


def _regular_files(directory: str):
    """Sorted names of the plain files in `directory`, as cachelens lists them."""
    try:
        names = sorted(os.listdir(directory))
    except FileNotFoundError:
        return []
    return [n for n in names
            if not (n.startswith(".") or n.endswith(".lock") or n.endswith(".tmp"))
            and os.path.isfile(os.path.join(directory, n))
            and not os.path.islink(os.path.join(directory, n))]


def _subdirs(directory: str):
    try:
        names = sorted(os.listdir(directory))
    except FileNotFoundError:
        return []
    return [n for n in names if os.path.isdir(os.path.join(directory, n))
            and not os.path.islink(os.path.join(directory, n))]


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _read_addressed(path: str) -> bytes:
    content = _read(path)
    if sha256_hash(content) != os.path.basename(path):
        raise ValueError(f"{path}: its name is not the hash of its bytes")
    return content


def collect(cache_dir: str):
    """The sections `cachelens export DIR` makes of a whole cache dir."""
    inductor, autotune, aot, pgo = [], [], [], []
    fxgraph = os.path.join(cache_dir, "fxgraph")
    for shard in _subdirs(fxgraph):
        for key in _subdirs(os.path.join(fxgraph, shard)):
            key_dir = os.path.join(fxgraph, shard, key)
            inductor += [(key, _read_addressed(os.path.join(key_dir, n)))
                         for n in _regular_files(key_dir)]
    aotautograd = os.path.join(cache_dir, "aotautograd")
    for key in _subdirs(aotautograd):
        key_dir = os.path.join(aotautograd, key)
        aot += [(key, _read_addressed(os.path.join(key_dir, n))) for n in _regular_files(key_dir)]
    for shard in _subdirs(cache_dir):
        if len(shard) == 2:
            autotune += [(f"{shard}/{n}", _read(os.path.join(cache_dir, shard, n)))
                         for n in _regular_files(os.path.join(cache_dir, shard))
                         if n.endswith(".best_config")]
    dynamo = os.path.join(cache_dir, "dynamo")
    pgo += [(n[len("code_state_"):-len(".pkl")], _read(os.path.join(dynamo, n)))
            for n in _regular_files(dynamo) if n.startswith("code_state_") and n.endswith(".pkl")]
    return [(kind, artifacts) for kind, artifacts in
            (("inductor", inductor), ("autotune", autotune), ("aot_autograd", aot), ("pgo", pgo))
            if artifacts]


def export_dir(cache_dir: str) -> bytearray:
    return encode(collect(cache_dir))


def measure(run, setup=None, teardown=None, warm_up=True):
    """Runs `run` until MIN_SECONDS of it and at least MIN_REPS runs, after
    one untimed warm-up; returns (timed runs, seconds of them all)."""
    if warm_up:
        run()
    reps, elapsed = 0, 0.0
    while elapsed < MIN_SECONDS or reps < MIN_REPS:
        if setup:
            setup()
        start = time.perf_counter()
        run()
        elapsed += time.perf_counter() - start
        reps += 1
        if teardown:
            teardown()
    return reps, elapsed


def figure(op: str, path: str, size: int, artifacts: int, reps: int, seconds: float):
    return {
        "op": op,
        "input": os.path.basename(os.path.normpath(path)),
        "bytes": size,
        "artifacts": artifacts,
        "reps": reps,
        "ms": seconds / reps * 1e3,
        "mb_per_s": size * reps / seconds / 1e6,
    }


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: anchor_bundle.py SCRATCH_DIR BUNDLE_OR_CACHE_DIR...")
    scratch = os.path.abspath(sys.argv[1])
    os.makedirs(scratch, exist_ok=True)
    results = []
    for path in sys.argv[2:]:
        if os.path.isdir(path):
            size = len(export_dir(path))
            artifacts = sum(len(a) for _, a in collect(path))
            reps, seconds = measure(lambda: export_dir(path))
            results.append(figure("export", path, size, artifacts, reps, seconds))
            continue
        data = _read(path)
        artifacts = sum(len(a) for _, a in decode(data))
        reps, seconds = measure(lambda: decode(data))
        results.append(figure("decode", path, len(data), artifacts, reps, seconds))

        target = os.path.join(scratch, "anchor-import")

        def fresh():
            shutil.rmtree(target, ignore_errors=True)
            os.makedirs(target)

        for op, durable in (("import", True), ("import_nofsync", False)):
            def imported(durable=durable):
                if import_bundle(data, target, durable) != artifacts:
                    raise SystemExit(f"{path}: not every artifact was written")

            # No warm-up: every run writes into a new directory, none is warmer.
            reps, seconds = measure(imported, fresh, lambda: shutil.rmtree(target),
                                    warm_up=False)
            results.append(figure(op, path, len(data), artifacts, reps, seconds))
    print(json.dumps({
        "python": sys.version.split()[0],
        "zlib": zlib.ZLIB_RUNTIME_VERSION,
        "results": results,
    }))


if __name__ == "__main__":
    main()
