#!/usr/bin/env python3
"""Writes the hand-made TORCH_TRACE logs tst_trace reads.

Events are formatted as torch/_logging/_internal.py's TorchLogsFormatter
writes them for the trace handler: a glog prefix, the metadata as json.dumps,
then each payload line after "\\n\\t", with has_payload = md5(payload). The
payloads are the cache_info dicts codecache.py / autograd_cache.py log (keys
and debug lines shortened). Run from anywhere: python3 make_trace_logs.py
"""

import hashlib
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
TORCH = "/opt/torch/.venv/lib/python3.12/site-packages/torch"

FX_KEY_HIT = "fhitaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
AOT_KEY_HIT = "ahitaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
FX_KEY_GUARDED = "fguardedaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
FX_KEY_RESTART = "frestartaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
FX_KEY_GOOD = "fgoodaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

COMPONENTS = [
    "[f22mg5amq2wc2iucl4ux5jv6p6t4qg7bbf6bs4pp75dptmc5lpj] gm: GraphModule()\n\n\n\n"
    "def forward(self, arg0_1):\n    mul = torch.ops.aten.mul.Tensor(arg0_1, 2);  arg0_1 = None\n"
    "    return (mul,)\n    ",
    "[fptyezwiemh623kepba4uk4wqpwh6kaohn3tbw2vzaaaosseyjn] example_inputs[0]: "
    "TensorMetadata(dtype=torch.float32, shape=torch.Size([8]), stride=(1,), "
    "device=device(type='cuda', index=0))",
    "[v3hzzlv4tjgvp3pyhmzagjd25orl6n7nynoa7svlhhwk73b7u3c] cache_key_tag: ",
]


class Log:
    def __init__(self):
        self.lines = []
        self.second = 0

    def event(self, metadata, payload=None, source="torch/_inductor/compile_fx.py:1120"):
        """One event; `payload` is a str (written as is) or None. A has_payload
        already in `metadata` is kept (a payload edited after writing)."""
        if payload is not None and "has_payload" not in metadata:
            metadata = dict(metadata)
            metadata["has_payload"] = hashlib.md5(payload.encode("utf-8")).hexdigest()
        self.second += 1
        prefix = f"V1122 10:47:{self.second % 60:02d}.{self.second * 1000:06d} 444 {source}]"
        text = f"{prefix} {json.dumps(metadata)}"
        if payload is not None:
            text += "".join(f"\n\t{line}" for line in payload.split("\n"))
        self.lines.append(text)

    def raw(self, line):
        self.lines.append(line)

    def text(self):
        return "\n".join(self.lines) + "\n"


def context(frame_id, frame_compile_id, attempt=0, **extra):
    return {"frame_id": frame_id, "frame_compile_id": frame_compile_id, "attempt": attempt, **extra}


def interned(log, path, index):
    log.event({"str": [path, index]}, source="torch/_logging/structured.py:28")


def dynamo_start(log, frames, ctx):
    stack = [{"line": line, "name": name, "filename": filename} for name, filename, line in frames]
    log.event({"dynamo_start": {"stack": stack}, **ctx}, source="torch/_dynamo/convert_frame.py:276")


def artifact(log, name, cache_info, ctx, dumps=json.dumps):
    log.event({"artifact": {"name": name, "encoding": "json"}, **ctx}, dumps(cache_info))


def chromium_instant(log, name, cache_info, ctx):
    """The chromium event PyTorch logs beside every cache artifact."""
    event = {"name": name, "ts": 1795344467388939.2, "args": cache_info, "ph": "i", "cat": "dynamo_timed",
             "tid": 0, "pid": 0, "s": "p"}
    log.event({"chromium_event": {}, **ctx}, json.dumps(event, indent=0), source="torch/_dynamo/utils.py:2165")


def metrics(log, name, fields):
    log.event({name: fields}, source="torch/_dynamo/utils.py:1796")


def hit_log():
    log = Log()
    interned(log, f"{TORCH}/_dynamo/convert_frame.py", 0)
    interned(log, "/home/user/train.py", 1)
    ctx = context(0, 0)
    dynamo_start(log, [("<module>", 1, 30), ("step", 1, 12)], ctx)
    aot_info = {"cache_status_detailed": "hit", "key": AOT_KEY_HIT, "cache_state": "hit",
                "components": COMPONENTS[:2], "forward_time_saved_ms": 1200.0,
                "backward_time_saved_ms": 800.0, "time_saved_ms": 2000.0, "compile_id": "0/0"}
    chromium_instant(log, "autograd_cache_hit", aot_info, ctx)
    artifact(log, "aotautograd_cache_hit", aot_info, ctx)
    fx_info = {"cache_status_detailed": "hit", "key": FX_KEY_HIT, "components": COMPONENTS,
               "cache_event_time": 1795344469670879515, "cache_state": "hit", "time_saved_ns": 1852406816,
               "compile_id": "0/0"}
    chromium_instant(log, "fx_graph_cache_hit", fx_info, ctx)
    artifact(log, "fx_graph_cache_hit", fx_info, ctx)
    metrics(log, "compilation_metrics",
            {"compile_id": "0/0", "co_name": "step", "co_filename": "/home/user/train.py", "co_firstlineno": 12,
             "cache_size": 0, "fail_type": None, "fail_reason": None,
             "inductor_fx_local_cache_hit_count": 1, "inductor_fx_local_cache_miss_count": 0,
             "aotautograd_local_cache_hit_count": 1, "aotautograd_local_cache_miss_count": 0})
    return log.text()


def guard_miss_log():
    log = Log()
    interned(log, "/home/user/model.py", 1)
    # Frame 0, compile 0: a hit on an entry whose guards held.
    dynamo_start(log, [("<module>", 1, 40), ("f", 1, 7)], context(0, 0))
    artifact(log, "fx_graph_cache_hit",
             {"cache_status_detailed": "hit", "cache_status_guard_expr": "L['s0'] <= 16", "key": FX_KEY_GUARDED,
              "components": COMPONENTS, "cache_state": "hit", "time_saved_ns": 5000, "compile_id": "0/0"},
             context(0, 0))
    # Frame 0, compile 1 (a recompile for a bigger shape): the key dir has an
    # entry, but its guards fail. Logged with indent=0, as PyTorch writes dict
    # payloads: one JSON token a line.
    dynamo_start(log, [("<module>", 1, 41), ("f", 1, 7)], context(0, 1))
    artifact(log, "fx_graph_cache_miss",
             {"cache_status_detailed": "guard_miss", "cache_status_guard_expr": "L['s0'] <= 16",
              "key": FX_KEY_GUARDED, "components": COMPONENTS, "cache_state": "miss", "time_taken_ns": 987654321,
              "compile_id": "0/1"},
             context(0, 1), dumps=lambda info: json.dumps(info, indent=0))
    # Frame 1: its first attempt restarts (a graph break), the second misses.
    # Its file is interned after the stack that names it.
    dynamo_start(log, [("<module>", 1, 42), ("g", 2, 3)], context(1, 0))
    interned(log, "/home/user/layers.py", 2)
    artifact(log, "fx_graph_cache_miss",
             {"cache_status_detailed": "full_miss", "key": FX_KEY_RESTART, "components": COMPONENTS[1:],
              "cache_state": "miss", "time_taken_ns": 42, "compile_id": "1/0"},
             context(1, 0, attempt=1))
    return log.text()


def bypass_log():
    log = Log()
    interned(log, "/home/user/train.py", 1)
    dynamo_start(log, [("<module>", 1, 50), ("loss_fn", 1, 20)], context(0, 0))
    artifact(log, "fx_graph_cache_bypass",
             {"cache_state": "bypass", "cache_bypass_reason": "Unsupported: higher order operator: flex_attention",
              "cache_event_time": 1795344469670879515},
             context(0, 0))
    # Compiled autograd's graph of frame 2: the AOT cache refuses it.
    traceback = ["Traceback (most recent call last):", "  File \"autograd_cache.py\", line 1, in load",
                 "BypassAOTAutogradCache: Cannot cache a graph with compiled autograd enabled", ""]
    artifact(log, "aotautograd_cache_bypass",
             {"cache_bypass_reason": "Cannot cache a graph with compiled autograd enabled",
              "cache_bypass_exception_type": "BypassAOTAutogradCache", "cache_bypass_traceback": traceback,
              "cache_bypass_hard_exception": False, "key": None, "cache_state": "bypass", "components": []},
             context(2, 0, compiled_autograd_id=0))
    # A compile that failed: no cache event, only its metrics.
    dynamo_start(log, [("<module>", 1, 51), ("broken", 1, 30)], context(1, 0))
    metrics(log, "compilation_metrics",
            {"compile_id": "1/0", "co_name": "broken", "co_filename": "/home/user/train.py", "co_firstlineno": 30,
             "fail_type": "BackendCompilerFailed", "fail_reason": "backend='inductor' raised: LoweringException"})
    # An event logged without a compile context (a stack instead of ids): the
    # payload's compile id is all there is.
    log.event({"artifact": {"name": "autograd_cache_bypass", "encoding": "json"},
               "stack": [{"line": 1, "name": "<module>", "filename": 1}]},
              json.dumps({"cache_bypass_reason": "Unsupported input", "key": None, "cache_state": "bypass",
                          "compile_id": "3/0"}))
    return log.text()


def good_fx_miss(log, key, ctx):
    artifact(log, "fx_graph_cache_miss",
             {"cache_status_detailed": "full_miss", "key": key, "components": COMPONENTS, "cache_state": "miss",
              "time_taken_ns": 7, "compile_id": "0/0"}, ctx)


def truncated_log():
    log = Log()
    dynamo_start(log, [("train", 1, 5)], context(0, 0))
    good_fx_miss(log, FX_KEY_GOOD, context(0, 0))
    artifact(log, "aotautograd_cache_miss",
             {"cache_status_detailed": "full_miss", "key": AOT_KEY_HIT, "components": COMPONENTS,
              "cache_state": "miss", "compile_id": "0/0"}, context(0, 0))
    text = log.text()
    return text[: len(text) - 200]  # the process died mid-write: no final newline


def garbage_log():
    log = Log()
    log.raw("\tpayload line with nothing before it")
    log.raw("\tand another")
    log.raw("garbage \x01\x02 that is no log at all")
    log.raw("V1122 10:47:51.509000 444 torch/_dynamo/eval_frame.py:12] [0/0] a TORCH_LOGS line, not an event")
    log.raw("V1122 10:47:51.509000 444 torch/_inductor/compile_fx.py:1120] {")
    log.raw('V1122 10:47:51.509000 444 torch/_inductor/compile_fx.py:1120] {"artifact": {"name": "fx_graph_cache_')
    log.raw("\tits payload is passed over with it")
    log.event({"str": "not a pair"}, source="torch/_logging/structured.py:28")
    log.event({"some_future_event": {"x": 1}, **context(0, 0)}, "payload\nof two lines")
    dynamo_start(log, [("train", 1, 5)], context(0, 0))
    good_fx_miss(log, FX_KEY_GOOD, context(0, 0))
    artifact(log, "fx_graph_cache_miss", [1, 2], context(0, 0))  # not an object
    # Edited after PyTorch wrote it: valid JSON, wrong checksum.
    log.event({"artifact": {"name": "aotautograd_cache_miss", "encoding": "json"}, **context(0, 0),
               "has_payload": "0" * 32},
              json.dumps({"cache_status_detailed": "full_miss", "key": AOT_KEY_HIT, "components": []}))
    # A component holding a lone surrogate (a path decoded with surrogateescape).
    artifact(log, "aotautograd_cache_hit",
             {"cache_status_detailed": "hit", "key": AOT_KEY_HIT, "components": ["[x] path: /tmp/\udcff.py"]},
             context(0, 0))
    # Bytes that are not UTF-8 inside a JSON string (written as the byte 0xff).
    log.raw('V1122 10:47:51.509000 444 torch/_inductor/compile_fx.py:1120] '
            '{"artifact": {"name": "fx_graph_cache_hit", "encoding": "json"}, "frame_id": 0, '
            '"frame_compile_id": 0, "attempt": 0}')
    log.raw('\t{"key": "f\udcff", "components": []}')
    log.raw("x" * 10000)
    return log.text()


def missing_payload_log():
    log = Log()
    dynamo_start(log, [("train", 1, 5)], context(0, 0))
    # has_payload promised, but the next line is already another event.
    log.event({"artifact": {"name": "fx_graph_cache_miss", "encoding": "json"}, **context(0, 0),
               "has_payload": "d41d8cd98f00b204e9800998ecf8427e"})
    log.event({"artifact": {"name": "aotautograd_cache_miss", "encoding": "json"}, **context(0, 0)})
    return log.text()


T0_US = 1795344465000000.0  # chromium ts: microseconds since the epoch


def phase(log, name, begin_ms, end_ms, ctx, **args):
    """A dynamo_timed phase: the chromium "B" and "E" events utils.py logs
    (json.dumps(event, indent=0)); `ctx` None for one logged outside a compile
    (autotune benchmarks), which names its compile in args only."""
    for ph, ms in (("B", begin_ms), ("E", end_ms)):
        event = {"name": name, "ts": T0_US + ms * 1000.0, "args": dict(args), "ph": ph,
                 "cat": "dynamo_timed", "tid": 0, "pid": 0}
        log.event({"chromium_event": {}, **(ctx or {})}, json.dumps(event, indent=0),
                  source="torch/_dynamo/utils.py:2126")


def warm_start_log():
    """A second run: compile 0/0 hits every cache (PGO profile, AOTAutograd, FX
    with its bundled kernels); 1/0 misses and compiles, autotunes; 2/0 logs no
    cache event. Phase times in whole milliseconds, for the expected layer
    times tst_warm_start checks."""
    log = Log()
    interned(log, "/home/user/train.py", 1)
    ctx0 = context(0, 0)
    phase(log, "dynamo", 0, 1000, ctx0, compile_id="0/0")
    phase(log, "entire_frame_compile", 1, 991, ctx0, compile_id="0/0")
    dynamo_start(log, [("<module>", 1, 30), ("step", 1, 12)], ctx0)
    phase(log, "pgo.get_local_code_state", 20, 30, ctx0, compile_id="0/0")
    log.event({"artifact": {"name": "get_local_code_state", "encoding": "string"}, **ctx0},
              "Code state for step:12\n  L['x']: size=[s0, 8]", source="torch/_dynamo/pgo.py:560")
    phase(log, "bytecode_tracing", 10, 210, ctx0, compile_id="0/0")
    phase(log, "inductor_compile", 350, 450, ctx0, compile_id="0/0", fn_name="compile_fx_inner")
    phase(log, "backend_compile", 300, 500, ctx0, compile_id="0/0")
    aot_hit = {"cache_status_detailed": "hit", "key": AOT_KEY_HIT, "cache_state": "hit",
               "components": COMPONENTS[:2], "compile_id": "0/0"}
    artifact(log, "aotautograd_cache_hit", aot_hit, ctx0)
    meta = ("TritonBundlerMetadata(cached_kernel_names=['triton_poi_fused_mul_0', "
            "'triton_poi_fused_mul_0', 'triton_red_fused_sum_1'], "
            "statically_launched_kernel_names=['triton_poi_fused_mul_0'])")
    fx_hit = {"cache_status_detailed": "hit", "key": FX_KEY_HIT, "components": COMPONENTS,
              "cache_state": "hit", "triton_bundler_meta": meta, "time_saved_ns": 1852406816,
              "compile_id": "0/0"}
    artifact(log, "fx_graph_cache_hit", fx_hit, ctx0)
    phase(log, "build_guards", 600, 650, ctx0, compile_id="0/0")

    ctx1 = context(1, 0)
    dynamo_start(log, [("<module>", 1, 30), ("step", 1, 12)], ctx1)
    phase(log, "dynamo", 2000, 4000, ctx1, compile_id="1/0")
    phase(log, "backend_compile", 2100, 3900, ctx1, compile_id="1/0")
    aot_miss = {"cache_status_detailed": "full_miss", "key": "amissaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                "cache_state": "miss", "components": COMPONENTS[:2], "compile_id": "1/0"}
    artifact(log, "aotautograd_cache_miss", aot_miss, ctx1)
    phase(log, "inductor_compile", 2200, 3700, ctx1, compile_id="1/0")
    phase(log, "async_compile.precompile", 2300, 2600, ctx1, compile_id="1/0")
    phase(log, "async_compile.wait", 2600, 2700, ctx1, compile_id="1/0")
    kernels = {
        "triton_per_fused_sum_2": {"best_config": [["XBLOCK", 8]], "autotune_cache_state": "hit",
                                   "compile_time_us": 1500},
        "triton_poi_fused_add_1": {"autotune_cache_state": "only 1 config",
                                   "only_config": [["XBLOCK", 1024]], "compile_time_us": 100000},
        "triton_red_fused_mul_0": {"autotune_cache_state": "miss", "num_configs": 4,
                                   "compile_time_us": 200000},
    }
    log.event({"artifact": {"name": "triton_kernel_info", "encoding": "json"}, **ctx1},
              json.dumps(kernels), source="torch/_inductor/async_compile.py:122")
    fx_miss = {"cache_status_detailed": "full_miss", "key": FX_KEY_GOOD,
               "components": [c.replace("torch.Size([8])", "torch.Size([16])") for c in COMPONENTS],
               "cache_state": "miss", "time_taken_ns": 1500000000, "compile_id": "1/0"}
    artifact(log, "fx_graph_cache_miss", fx_miss, ctx1)
    log.event({"artifact": {"name": "put_local_code_state", "encoding": "string"}, **ctx1},
              "Code state for step:12", source="torch/_dynamo/pgo.py:660")
    # Benchmarked at the first call, after the compile: no compile context.
    phase(log, "CachingAutotuner.benchmark_all_configs", 4100, 4150, None,
          kernel_name="triton_red_fused_mul_0", is_backward=False, compile_id="1/0")

    ctx2 = context(2, 0)
    dynamo_start(log, [("<module>", 1, 40), ("eval_step", 1, 20)], ctx2)
    phase(log, "dynamo", 5000, 5100, ctx2, compile_id="2/0")
    return log.text()


def main():
    logs = {
        "warm_start.log": warm_start_log(),
        "hit.log": hit_log(),
        "guard_miss.log": guard_miss_log(),
        "bypass.log": bypass_log(),
        "truncated.log": truncated_log(),
        "garbage.log": garbage_log(),
        "crlf.log": hit_log().replace("\n", "\r\n"),
        "missing_payload.log": missing_payload_log(),
        "not_a_trace.log": "this is a build log\nnothing here looks like a trace event\n",
    }
    for name, text in logs.items():
        # surrogateescape: a "\udcXX" the text holds itself is the raw byte XX.
        (HERE / name).write_bytes(text.encode("utf-8", "surrogateescape"))


if __name__ == "__main__":
    main()
