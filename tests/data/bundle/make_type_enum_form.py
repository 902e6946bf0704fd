#!/usr/bin/env python3
"""Writes the mega-cache bundle's per-artifact type-enum form (PyTorch main,
early 2025; formats.md section 6) from the artifacts of the devset bundle:

    [u32 crc32 of the rest]            (type_enum_form.bin only)
    u64 version (1)
    repeat until the end:
        u64   type enum (0 inductor, 1 autotune, 2 aot_autograd, 3 pgo)
        str   key       (u64 length + text)
        bytes content   (u64 length + raw bytes)

all big-endian. Only the 4 autotune artifacts and the AOT one are kept (the two
inductor entries are 1.7 MB), in the devset bundle's order. The text of a str
is base64 in type_enum_form.bin and plain UTF-8 in type_enum_nocrc.bin: which
one PyTorch's BytesWriter.write_str wrote at the time is not certain, so
cachelens reads both and each file tests one.

    python3 tests/data/bundle/make_type_enum_form.py [DEVSET_BUNDLE]

The bundle defaults to $CACHELENS_SHARED_DIR (or ../shared beside the checkout)
/fixtures/torch-2.11-cu130-h100/devset/mega_mlp_train.bin. stdlib only.
"""

import base64
import os
import pathlib
import struct
import sys
import zlib

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[2]
ENUM = {"inductor": 0, "autotune": 1, "aot_autograd": 2, "pgo": 3}
KEEP = ("autotune", "aot_autograd")


def devset_bundle():
    shared = pathlib.Path(os.environ.get("CACHELENS_SHARED_DIR", REPO.parent / "shared"))
    return shared / "fixtures/torch-2.11-cu130-h100/devset/mega_mlp_train.bin"


def read_current_form(data):
    """(type, key, content) of each artifact of a crc32-prefixed bundle."""
    (crc,) = struct.unpack_from(">I", data, 0)
    if crc != zlib.crc32(data[4:]):
        raise SystemExit("crc32 mismatch: not the devset bundle?")
    at = 4

    def u64():
        nonlocal at
        (value,) = struct.unpack_from(">Q", data, at)
        at += 8
        return value

    def sized():
        nonlocal at
        size = u64()
        chunk = data[at : at + size]
        at += size
        return chunk

    if u64() != 1:
        raise SystemExit("not version 1")
    artifacts = []
    while at < len(data):
        kind = base64.b64decode(sized(), validate=True).decode()
        for _ in range(u64()):
            key = base64.b64decode(sized(), validate=True).decode()
            artifacts.append((kind, key, sized()))
    return artifacts


def type_enum_stream(artifacts, encode_text):
    out = struct.pack(">Q", 1)
    for kind, key, content in artifacts:
        text = encode_text(key)
        out += struct.pack(">Q", ENUM[kind])
        out += struct.pack(">Q", len(text)) + text
        out += struct.pack(">Q", len(content)) + content
    return out


def main():
    source = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else devset_bundle()
    artifacts = [a for a in read_current_form(source.read_bytes()) if a[0] in KEEP]
    with_crc = type_enum_stream(artifacts, lambda key: base64.b64encode(key.encode()))
    (HERE / "type_enum_form.bin").write_bytes(struct.pack(">I", zlib.crc32(with_crc)) + with_crc)
    (HERE / "type_enum_nocrc.bin").write_bytes(type_enum_stream(artifacts, lambda key: key.encode()))
    for kind, key, content in artifacts:
        print(kind, key, len(content))


if __name__ == "__main__":
    main()
