#!/usr/bin/env python3
"""A writer beside cachelens in the soak test: writes into a cache dir exactly as
its producer does, for SECONDS, logging each completed file.

  soak_writer.py MODE SOURCE_CACHE TARGET LOG SECONDS [SEED]

MODE is how the files are written (each read from its producer's source):
  inductor  torch._inductor.codecache.write_atomic: ".<pid>.<tid>.tmp" beside the
            target, then rename; a module (<xx>/c<key>.py) before the FX entry using
            it (fxgraph/<xx>/<key>/<name>), now and then a new entry in an existing
            key dir; each under a FileLock (locks/<key>.lock, flock held while writing,
            the file left behind as filelock leaves it).
  triton    triton.runtime.cache.FileCacheManager.put: each file written into
            "tmp.pid_<pid>_<rnd>/" inside the kernel's hash dir, then os.replace'd
            into place; the group file (__grp__<name>.json) put last.
  ondisk    torch/_inductor/cache.py OnDiskCache.insert: open(path, "xb") under a
            flock on locks/<key[:4]>.lock, the version prefix and the pickle written
            in place (no temp file: a reader may see it half written).
  vllm      vLLM's compilation index (vllm_compile_cache.py) rewritten in place,
            open(path, "w") then write, as vllm/compilation/compiler_interface.py
            saves it, in a rank dir of TARGET (a torch_compile_cache tree).
  holder    a process using the cache: opens old files (an FX entry, a module) and
            keeps them open for a while, as a run loading its kernels does. Logs
            "<ns>\\topen\\t<path>" when it opens one and "<ns>\\tclose\\t<path>" after.

The log: "<ns>\\t<relative path>\\t<size>\\t<sha1>" after each completed write (the
rename, the close), ns from time.time_ns().
"""

import fcntl
import hashlib
import os
import pickle
import random
import sys
import threading
import time

ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"


def fresh_key(prefix, rng):
    return prefix + "".join(rng.choice(ALPHABET) for _ in range(51))


def files_under(root, predicate):
    out = []
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = os.path.join(dirpath, name)
            if predicate(os.path.relpath(path, root)):
                out.append(path)
    return sorted(out)


class Log:
    def __init__(self, path):
        self.file = open(path, "a", buffering=1)

    def wrote(self, target_root, path):
        data = open(path, "rb").read()
        rel = os.path.relpath(path, target_root)
        self.file.write(f"{time.time_ns()}\t{rel}\t{len(data)}\t{hashlib.sha1(data).hexdigest()}\n")

    def line(self, *fields):
        self.file.write("\t".join([str(time.time_ns())] + [str(f) for f in fields]) + "\n")


def write_atomic(path, data):
    """torch._inductor.codecache.write_atomic."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = os.path.join(os.path.dirname(path), f".{os.getpid()}.{threading.get_ident()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


class FileLock:
    """filelock.UnixFileLock as PyTorch uses it: the lock file stays."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __exit__(self, *args):
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def inductor(source, target, log, rng, until):
    modules = files_under(source, lambda rel: rel.count("/") == 1 and rel.endswith(".py"))
    entries = files_under(source, lambda rel: rel.startswith("fxgraph/"))
    keys = []
    while time.time() < until:
        key = fresh_key("f", rng)
        with FileLock(os.path.join(target, "locks", key + ".lock")):
            module_key = fresh_key("c", rng)
            module = os.path.join(target, module_key[1:3], module_key + ".py")
            write_atomic(module, open(rng.choice(modules), "rb").read())
            log.wrote(target, module)
            time.sleep(rng.uniform(0.005, 0.03))  # the graph is written after its kernels
            if keys and rng.random() < 0.2:
                key = rng.choice(keys)  # another entry under an existing key
            entry = os.path.join(target, "fxgraph", key[1:3], key,
                                 fresh_key("", rng)[:51])
            write_atomic(entry, open(rng.choice(entries), "rb").read())
            log.wrote(target, entry)
        keys.append(key)
        time.sleep(rng.uniform(0.01, 0.05))


def triton(source, target, log, rng, until):
    kernel_dirs = sorted({os.path.dirname(p) for p in files_under(
        os.path.join(source, "triton"), lambda rel: True)})
    while time.time() < until:
        kernel = rng.choice(kernel_dirs)
        hash_dir = os.path.join(target, "triton", "0",
                                "".join(rng.choice(ALPHABET.upper()) for _ in range(52)))
        os.makedirs(hash_dir, exist_ok=True)
        names = sorted(os.listdir(kernel), key=lambda n: n.startswith("__grp__"))
        for name in names:  # the group file last
            tmp_dir = os.path.join(hash_dir, f"tmp.pid_{os.getpid()}_{rng.getrandbits(32):08x}")
            os.makedirs(tmp_dir, exist_ok=True)
            tmp = os.path.join(tmp_dir, name)
            with open(tmp, "wb") as f:
                f.write(open(os.path.join(kernel, name), "rb").read())
            os.replace(tmp, os.path.join(hash_dir, name))
            os.rmdir(tmp_dir)
            log.wrote(target, os.path.join(hash_dir, name))
            time.sleep(rng.uniform(0.0, 0.01))
        time.sleep(rng.uniform(0.02, 0.08))


def ondisk(source, target, log, rng, until):
    namespace = os.path.join(target, "cache", "inductor_on_disk_cache")
    while time.time() < until:
        key = "%032x" % rng.getrandbits(128)
        path = os.path.join(namespace, key)
        os.makedirs(namespace, exist_ok=True)
        try:
            with FileLock(os.path.join(namespace, "locks", key[:4] + ".lock")), open(path, "xb") as f:
                f.write(b"\x00\x01")  # the version prefix
                value = {"config": {"XBLOCK": rng.choice([64, 128, 256])},
                         "timings": [rng.random() for _ in range(rng.randint(1, 4000))]}
                data = pickle.dumps(value)
                half = len(data) // 2
                f.write(data[:half])
                f.flush()
                time.sleep(rng.uniform(0.0, 0.02))  # a reader may see it half written
                f.write(data[half:])
        except FileExistsError:
            continue
        log.wrote(target, path)
        time.sleep(rng.uniform(0.01, 0.05))


def vllm(source, target, log, rng, until):
    ranks = files_under(target, lambda rel: rel.endswith("vllm_compile_cache.py"))
    if not ranks:
        sys.exit(f"soak_writer: no vllm_compile_cache.py under {target}")
    while time.time() < until:
        index = rng.choice(ranks)
        body = open(index).read().strip()[1:-1].rstrip(",\n ")  # the dict's items
        graph = body.count("'inductor')")
        item = (f"(None, {graph}, 'inductor'): ({fresh_key('f', rng)!r}, "
                f"'/home/vllm/.cache/vllm/torch_compile_cache/x/rank_0_0/inductor_cache/aa/caa.py')")
        text = "{" + body + ",\n " + item + "}"
        with open(index, "w") as f:  # in place, as vLLM saves it
            half = len(text) // 2
            f.write(text[:half])
            f.flush()
            time.sleep(rng.uniform(0.0, 0.02))
            f.write(text[half:])
        log.wrote(target, index)
        time.sleep(rng.uniform(0.05, 0.2))


def mtime_or_now(path):
    try:
        return os.path.getmtime(path)
    except FileNotFoundError:  # pruned meanwhile
        return time.time()


def holder(source, target, log, rng, until):
    while time.time() < until:
        old = files_under(target, lambda rel: (rel.startswith("fxgraph/") or rel.endswith(".py"))
                          and "/." not in rel and not os.path.basename(rel).startswith("."))
        old = [p for p in old if mtime_or_now(p) < time.time() - 86400]
        if not old:
            time.sleep(0.1)
            continue
        path = rng.choice(old)
        try:
            f = open(path, "rb")
        except FileNotFoundError:
            continue  # pruned meanwhile
        log.line("open", os.path.relpath(path, target))
        f.read(64)
        time.sleep(rng.uniform(0.5, 2.0))
        log.line("close", os.path.relpath(path, target))
        f.close()


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    mode, source, target, log_path, seconds = sys.argv[1:6]
    seed = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    writers = {"inductor": inductor, "triton": triton, "ondisk": ondisk, "vllm": vllm,
               "holder": holder}
    rng = random.Random(seed)
    writers[mode](source, target, Log(log_path), rng, time.time() + float(seconds))


if __name__ == "__main__":
    main()
