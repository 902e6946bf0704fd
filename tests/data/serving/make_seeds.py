#!/usr/bin/env python3
"""Writes the seeds of fuzz_serving into this dir, in the formats vLLM's and
PyTorch's source writes them (README.md)."""
import base64
import json
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def u64(n):
    return struct.pack(">Q", n)


def field(data):  # BytesWriter.write_bytes
    return u64(len(data)) + data


def text(value):  # BytesWriter.write_str: base64 of the UTF-8
    return field(base64.b64encode(value.encode()))


def with_crc(body):  # BytesWriter.to_bytes
    return struct.pack(">I", zlib.crc32(body)) + body


def write(name, data, mode="w"):
    with open(os.path.join(HERE, name), mode) as out:
        out.write(data)


best = json.dumps({"XBLOCK": 128, "num_warps": 4, "num_stages": 1, "configs_hash": "0" * 64,
                   "found_by_coordesc": False, "time_taken_ms": 3,
                   "triton_cache_hash": "A" * 52}).encode()
# A mega-cache bundle (the current form) with one autotune artifact.
bundle = with_crc(u64(1) + text("autotune") + u64(1) + text("ab/" + "0" * 64 + ".best_config")
                  + field(best))
write("artifact_compile_range_1_8192_subgraph_0",
      with_crc(field(b"CacheCompiledArtifact") + field(bytes(range(32)))
               + text("a7yjz2q5ysc3gnubmrxbzymjswgr7rzvekhtmk5utjcqvb2gugvl") + field(bundle)),
      "wb")
write("artifact_shape_None_subgraph_0",
      with_crc(field(b"AOTCompiledArtifact") + field(bytes(32)) + field(b"\x80\x04N.")), "wb")

write("vllm_compile_cache_0_8.py", """{   (None, 0, 'inductor'): (   'feorwmj2xdtwpofkcuc6fdnluv2auo3zbui7xy2qcncgy2qnvds6',
                               '/home/vllm/.cache/vllm/torch_compile_cache/d4ec7c2a7d/rank_0_0/inductor_cache/sy/csydsib3zoojnddissy5psapld25ic346gbdsibkekh6pid6bevv.py'),
    (None, 1, 'inductor'): (   'fihfzkdily6bpw73zhhfvyx7i7syj2bh2z73lj5bgrbq3ty5mkpv',
                               '/home/vllm/.cache/vllm/torch_compile_cache/d4ec7c2a7d/rank_0_0/inductor_cache/df/cdfqwrxmstxseesfef72s74nawkkh3iyiu6k7rg5kdhvmg7736qb.py')}""")
write("vllm_compile_cache_ranges.py", """{   ((1, 8192), 0, 'inductor_standalone'): (   'artifact_compile_range_1_8192_subgraph_0',
                                               '/root/.cache/vllm/torch_compile_cache/3fbdd5227b/rank_0_0/backbone/artifact_compile_range_1_8192_subgraph_0'),
    ((16, 16), 0, 'inductor_standalone'): (   'artifact_compile_range_16_16_subgraph_0',
                                              '/root/.cache/vllm/torch_compile_cache/3fbdd5227b/rank_0_0/backbone/artifact_compile_range_16_16_subgraph_0'),
    (None, 1, 'eager'): None}""")
write("vllm_compile_cache_shapes.py", """{   (8, 0, 'inductor_standalone'): (   'artifact_shape_8_subgraph_0',
                                       '/root/.cache/vllm/torch_compile_cache/64625fd5e0/rank_0_0/backbone/artifact_shape_8_subgraph_0'),
    (None, 0, 'inductor_standalone'): (   'artifact_shape_None_subgraph_0',
                                          '/root/.cache/vllm/torch_compile_cache/64625fd5e0/rank_0_0/backbone/artifact_shape_None_subgraph_0')}""")
env = {"VLLM_ATTENTION_BACKEND": "FLASH_ATTN", "VLLM_FUSED_MOE_CHUNK_SIZE": 32768,
       "VLLM_USE_STANDALONE_COMPILE": True, "VLLM_DP_SIZE": 1, "VLLM_PP_LAYER_PARTITION": None,
       "X_FLOAT": 1e-05, "X_LIST": [1, "a"]}
write("cache_key_factors.json", json.dumps({"env": env, "config_hash": "84b7dc96bd",
                                            "code_hash": "c" * 64,
                                            "compiler_hash": "a92dbc9a80"},
                                           indent=2, sort_keys=True))
write("cachelens-pack.json", json.dumps({
    "format": "cachelens-serving-pack", "version": 1, "stack": "vllm", "hash_dir": "3fbdd5227b",
    "created": "2026-11-27T00:00:00Z", "summary": "x",
    "files": [{"path": "3fbdd5227b/rank_0_0/backbone/vllm_compile_cache.py", "size": 10,
               "sha256": "0" * 64}]}, indent=1))
