#!/usr/bin/env python3
"""Writes the mega-cache bundle's first form (PyTorch main, late 2024;
formats.md section 6): pickle.dumps() of the OrderedSet of CacheArtifact
that CacheArtifactManager collected, each a frozen dataclass
(type: CacheArtifactType, key: str, content: bytes).

Without torch, stub classes stand in for PyTorch's, registered as modules
torch.compiler._cache and torch.utils._ordered_set so that pickle writes the
same globals PyTorch's own pickle holds. They pickle as PyTorch's do: the
OrderedSet by its __reduce__ (OrderedSet, ([items],)), each artifact by
NEWOBJ + BUILD of its field dict, the enum as CacheArtifactType(value).

    pickle_form.bin          3 artifacts (inductor, autotune, pgo), protocol 4
    pickle_form_p2.bin       the same at protocol 2 (bytes are then
                             _codecs.encode(text, "latin1") calls)
    pickle_not_artifacts.bin an OrderedSet of plain tuples: a pickle, not a bundle

    python3 tests/data/bundle/make_pickle_form.py      (stdlib only)
"""

import dataclasses
import enum
import json
import pathlib
import pickle
import sys
import types

HERE = pathlib.Path(__file__).resolve().parent


def stub_module(name):
    module = types.ModuleType(name)
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)
    return module


for name in ("torch", "torch.compiler", "torch.compiler._cache", "torch.utils",
             "torch.utils._ordered_set"):
    stub_module(name)
cache_module = sys.modules["torch.compiler._cache"]
ordered_set_module = sys.modules["torch.utils._ordered_set"]


class CacheArtifactType(enum.Enum):
    INDUCTOR = 0
    AUTOTUNE = 1
    AOT_AUTOGRAD = 2
    PGO = 3


@dataclasses.dataclass(frozen=True)
class CacheArtifact:
    type: CacheArtifactType
    key: str
    content: bytes = dataclasses.field(repr=False)


class OrderedSet:
    def __init__(self, items=()):
        self._dict = dict.fromkeys(items)

    def __iter__(self):
        return iter(self._dict)

    def __reduce__(self):
        return (OrderedSet, (list(self),))


for cls, module in ((CacheArtifactType, cache_module), (CacheArtifact, cache_module),
                    (OrderedSet, ordered_set_module)):
    cls.__module__ = module.__name__
    setattr(module, cls.__qualname__, cls)

BEST_CONFIG = {
    "XBLOCK": 128,
    "num_warps": 4,
    "num_stages": 1,
    "configs_hash": "7c5b3a1e4f2d9c8b6a5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a",
    "found_by_coordesc": False,
    "time_taken_ms": 41,
    "triton_cache_hash": "QWERTYUIOPASDFGHJKLZXCVBNM234567QWERTYUIOPASDFGHJKLZ",
}

ARTIFACTS = [
    CacheArtifact(CacheArtifactType.INDUCTOR, "fabcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrs",
                  b"\x80\x04\x95 a made-up FX graph entry \x00\xff\xfe"),
    CacheArtifact(CacheArtifactType.AUTOTUNE,
                  "ab/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.best_config",
                  json.dumps(BEST_CONFIG).encode()),
    CacheArtifact(CacheArtifactType.PGO, "model.py:12:forward:0",
                  b"\x80\x04\x95 a made-up dynamo profile \xc3\xa9"),
]


def main():
    bundle = OrderedSet(ARTIFACTS)
    (HERE / "pickle_form.bin").write_bytes(pickle.dumps(bundle, protocol=4))
    (HERE / "pickle_form_p2.bin").write_bytes(pickle.dumps(bundle, protocol=2))
    not_artifacts = OrderedSet([(0, "k", b"c")])
    (HERE / "pickle_not_artifacts.bin").write_bytes(pickle.dumps(not_artifacts, protocol=4))
    # The round trip through real pickle gives back what was written.
    again = pickle.loads((HERE / "pickle_form_p2.bin").read_bytes())
    assert list(again) == ARTIFACTS
    for artifact in ARTIFACTS:
        print(artifact.type.name, artifact.key, len(artifact.content))


if __name__ == "__main__":
    main()
