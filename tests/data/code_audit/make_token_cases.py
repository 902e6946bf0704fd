#!/usr/bin/env python3
"""Writes tokenize_cases.json: what CPython 3.11's own `tokenize` makes of tricky
inputs, for tst_code_audit to hold the engine's Python tokenizer to.

Run from anywhere with Python 3.11 (3.12 splits f-strings into FSTRING_*
tokens; this file keeps 3.11's one STRING token per f-string):

    python3.11 tests/data/code_audit/make_token_cases.py

Each case: its source; either "tokens" (type, string, start, end; the
ENCODING token left out) or "error": true when tokenize raised or made an
ERRORTOKEN. A non-f STRING token also carries its value (ast.literal_eval),
as "value" (str) or "bytes_hex" (bytes).
"""
import ast
import io
import json
import pathlib
import sys
import tokenize

assert sys.version_info[:2] == (3, 11), "run with Python 3.11 (one STRING token per f-string)"

CASES = {
    "string prefixes": "x = rb'\\x00' + Rb\"a\" + bR'''b''' + u'c' + F\"{a}\" + fR'{b}\\n' + rF\"\"\"{c!r:>{w}}\"\"\"\n",
    "triple-quoted with escapes": "s = '''a\\\\\nb\\n'c' \"d\" \\\n e'''\nt = \"\"\"x\\\"\"\"\" \"y\"\n",
    "escapes decoded": "a = 'tab\\tnl\\nq\\'bs\\\\oct\\101hex\\x41u\\u00e9U\\U0001F600unknown\\d'\nb = b'\\xff\\x00\\101\\z'\nc = r'\\n\\'' \nd = '\\\n'\n",
    "implicit joining": "foo(a,  # a comment\n\n    b,\n        [1,\n 2],\n)\nx = {\n  'k': (1,\n        2)}\n",
    "explicit joining": "x = 1 + \\\n    2\nif a and \\\n   b:\n    pass\n",
    "indentation": "def f(x):\n    if x:\n        return 1\n  # odd comment\n\n    return 2\n\nclass C:\n\tdef g(self):\n\t\tpass\n",
    "dedent at eof": "if x:\n    if y:\n        z\n",
    "no trailing newline": "x = 1",
    "comment at eof": "x = 1\n# done",
    "numbers": "n = [0x_1F, 0o17, 0b1_0, 1_000.5e-3j, .5, 5., 1e10, 3j, 0, 1E+5, 0XAB]\n",
    "operators": "a **= b; c //= d; e >>= f; g <<= h; i @= j\nk = l -> m\n(n := o) != p ... q ** r // s == t <= u >= v\n~w | x & y ^ z % 2\n",
    "f-string fields": "s = f\"{x!r} {y:{w}.{p}} {f'{z}'} {{lit}} {a['k']} {b = }\"\n",
    "f-string hiding a call": "k = f\"{__import__('os').system('id')}\"\n",
    "nested f-strings": "s = f'''{f\"{f'{x}'}\"}'''\n",
    "multi-line f-string": "s = f'''\n{x +\n y}\n'''\n",
    "unicode": "naïve = \"ünï\"  # çé\ny = naïve + 'ß'\n",
    "crlf": "x = 1\r\nif x:\r\n    y = '''a\r\nb'''\r\n",
    "blank lines and formfeed": "\n   \n\x0c\nx = 1\n    \n\n",
    "inductor kernel": (
        "@triton_heuristics.pointwise(\n"
        "    size_hints={'x': 4096}, \n"
        "    filename=__file__,\n"
        "    triton_meta={'signature': {'in_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}},\n"
        ")\n"
        "@triton.jit\n"
        "def triton_poi_fused_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n"
        "    xoffset = tl.program_id(0) * XBLOCK\n"
        "    xindex = xoffset + tl.arange(0, XBLOCK)[:]\n"
        "    tmp0 = tl.load(in_ptr0 + (xindex), xmask)\n"
        "    tl.store(out_ptr0 + (xindex), tmp0, xmask)\n"
    ),
    "wrapper tail": (
        "async_compile.wait(globals())\n"
        "del async_compile\n"
        "\n"
        "def call(args):\n"
        "    arg0_1, = args\n"
        "    args.clear()\n"
        "    return (buf0, )\n"
        "\n"
        "if __name__ == \"__main__\":\n"
        "    from torch._inductor.wrapper_benchmark import compiled_module_main\n"
        "    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))\n"
    ),
    "error unterminated string": "x = 'abc\ny = 1\n",
    "error unterminated triple": "x = '''abc\ny = 1\n",
    "error bad dedent": "if x:\n    a\n  b\n",
    "error stray character": "x = 1 $ 2\n",
    "error eof in brackets": "foo(1,\n",
}


def tokens_of(source):
    out = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.ERRORTOKEN:
            raise tokenize.TokenError("ERRORTOKEN", token.start)
        entry = {"type": tokenize.tok_name[token.type], "string": token.string,
                 "start": list(token.start), "end": list(token.end)}
        if token.type == tokenize.STRING and "f" not in token.string.split(token.string[-1])[0].lower():
            value = ast.literal_eval(token.string)
            if isinstance(value, bytes):
                entry["bytes_hex"] = value.hex()
            else:
                entry["value"] = value
        out.append(entry)
    return out


cases = []
for name, source in CASES.items():
    case = {"name": name, "source": source}
    try:
        case["tokens"] = tokens_of(source)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        case["error"] = True
    cases.append(case)

target = pathlib.Path(__file__).with_name("tokenize_cases.json")
target.write_text(json.dumps(cases, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
print(f"{target}: {len(cases)} cases")
