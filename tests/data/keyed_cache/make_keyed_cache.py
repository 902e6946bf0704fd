#!/usr/bin/env python3
"""Makes the test data of torch/_inductor/cache.py's caches (tst_keyed_cache),
by the rules of PyTorch 2.11's cache.py (checked against what 2.11 wrote on
an H200: tests/data/real-fixtures, on_disk_cache) and of the caching module
(torch/_inductor/runtime/caching). Nothing here imports PyTorch: a stub module
stands in for the caching module's CacheEntry. Run from this directory:

    python3 make_keyed_cache.py

Writes:
  root/cache/inductor_on_disk_cache/  values as InductorOnDiskCache writes them,
      and each way one can go wrong (stale, unversioned, no known prefix, not a
      pickle, a pickle that calls os.system, a name that is no hash), with
      locks/<name[:4]>.lock for some and one lock without a value
  root/cache/should_pad/  a value of the caching module (a CacheEntry)
  in_memory/*.pkl  files as InMemoryCache.from_file_path reads them
  env/*.txt  values of a variable as InMemoryCache.from_env_var reads them
"""

import dataclasses
import hashlib
import os
import pickle
import shutil
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
MARKER = "/tmp/cachelens-keyed-cache-marker"


def prefix(version):
    return hashlib.sha256(str(version).encode()).digest()[:4]


def name_of(key):
    # Python's default protocol, as OnDiskCache._fpath_from_key uses it (4 up to 3.13).
    return hashlib.sha256(pickle.dumps(key, protocol=4)).hexdigest()[:32]


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data)


class System:
    """Pickles as os.system(<touch MARKER>): what a hostile value does."""

    def __reduce__(self):
        return (os.system, ("touch " + MARKER,))


def cache_entry_class():
    module = types.ModuleType("torch._inductor.runtime.caching.interfaces")
    for name in ("torch", "torch._inductor", "torch._inductor.runtime",
                 "torch._inductor.runtime.caching"):
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.modules[module.__name__] = module

    @dataclasses.dataclass
    class CacheEntry:
        encoded_params: object
        encoded_result: object

    CacheEntry.__module__ = module.__name__
    CacheEntry.__qualname__ = "CacheEntry"
    module.CacheEntry = CacheEntry
    return CacheEntry


def main():
    root = os.path.join(HERE, "root")
    shutil.rmtree(root, ignore_errors=True)
    values = os.path.join(root, "cache", "inductor_on_disk_cache")

    def value(key, body, version=0, with_lock=True, raw=None):
        name = name_of(key)
        data = raw if raw is not None else prefix(version) + pickle.dumps(body, protocol=4)
        write(os.path.join(values, name), data)
        if with_lock:
            write(os.path.join(values, "locks", name[:4] + ".lock"), b"")
        return name

    current = value("a string key", {"XBLOCK": 128, "num_warps": 4})
    stale = value(("stale", 1), [1, 2, 3], version=1)
    bare = value("bare", "written before versions", raw=pickle.dumps("written before versions"))
    unknown = value("unknown", None, raw=b"\x00\x01\x02\x03\x04 not a pickle", with_lock=False)
    corrupt = value("corrupt", None, raw=prefix(0) + b"this is not a pickle")
    hostile = value("hostile", None, raw=prefix(0) + pickle.dumps(System(), protocol=4))
    write(os.path.join(values, "not-a-hash"), prefix(0) + pickle.dumps(1, protocol=4))
    write(os.path.join(values, "locks", "ffff.lock"), b"")  # no value starts with ffff

    CacheEntry = cache_entry_class()
    params = {"mat1": {"shape": (64, 32), "stride": (32, 1), "dtype": "torch.float32"},
              "mat2": {"shape": (32, 64), "stride": (64, 1), "dtype": "torch.float32"},
              "op": "mm", "input": None, "mat1_exclude_padding_time": False,
              "mat2_exclude_padding_time": False, "tf32": True}
    memo = hashlib.sha256(pickle.dumps(((), params), protocol=4)).hexdigest()[:32]
    write(os.path.join(root, "cache", "should_pad", memo),
          prefix(0) + pickle.dumps(CacheEntry(params, False), protocol=4))
    write(os.path.join(root, "cache", "should_pad", "dir.lock"), b"")

    in_memory = os.path.join(HERE, "in_memory")
    shutil.rmtree(in_memory, ignore_errors=True)
    write(os.path.join(in_memory, "dict.pkl"),
          pickle.dumps({"k1": 1, ("k", 2): [3, 4], 7: b"bytes"}, protocol=4))
    write(os.path.join(in_memory, "list.pkl"), pickle.dumps([1, 2], protocol=4))
    write(os.path.join(in_memory, "hostile.pkl"), pickle.dumps({"k": System()}, protocol=4))

    def pair(key, body):
        return f"{pickle.dumps(key, protocol=4)!r},{pickle.dumps(body, protocol=4)!r}"

    env = os.path.join(HERE, "env")
    shutil.rmtree(env, ignore_errors=True)
    os.makedirs(env)
    good = ";".join([pair("k1", 1), " " + pair(("k", 2), [3, 4]) + " ", "", pair("k1", 1)])
    cases = {
        "good.txt": good + ";",
        "missing_comma.txt": pair("k1", 1) + ";" + repr(pickle.dumps("k2", protocol=4)),
        "invalid_literal.txt": "b'unterminated,b'x'",
        "str_literal.txt": "'not bytes'," + repr(pickle.dumps(1, protocol=4)),
        "not_a_pickle.txt": "b'garbage'," + repr(pickle.dumps(1, protocol=4)),
        "two_values.txt": pair("k1", 1) + ";" + pair("k1", 2),
        "hostile.txt": pair("k", System()),
    }
    for file, text in cases.items():
        with open(os.path.join(env, file), "w") as handle:
            handle.write(text)
    print("values:", {"current": current, "stale": stale, "bare": bare, "unknown": unknown,
                      "corrupt": corrupt, "hostile": hostile, "memo": memo})


if __name__ == "__main__":
    main()
