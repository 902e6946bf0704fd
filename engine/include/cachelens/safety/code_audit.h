#pragma once

// The code audit: the Python and C++ that PyTorch would import, exec or
// compile when it loads a cache artifact, checked against the vocabulary
// Inductor itself generates. Never run, never regex'd: Python is read with
// python_tokens.h (tokenize's rules), C++ with a lexer that knows comments,
// literals, raw strings, line splices and preprocessor lines, so a comment or
// a string that merely mentions `os.system` is not a finding.
//
// What PyTorch runs (torch/_inductor/output_code.py, codecache.py,
// torch/fx/graph_module.py):
// - an FX entry's `source_code`, the wrapper module: written to the code cache
//   and imported (CompiledFxGraph.after_deserialization -> PyCodeCache);
// - every `async_compile.triton('name', '''source''', ...)` in it: a Triton
//   kernel module, imported and compiled; `async_compile.cpp(...)` /
//   `cpp_pybinding(...)` / `cuda` / `rocm` / `mps`: C++ (CUDA, Metal) source,
//   compiled and loaded; `cpp_wrapper_src` and CppWrapperCodeCache's
//   `main_code`/`kernel_code` in cpp_wrapper mode: C++;
// - a GraphModule in an AOTAutograd entry: `reduce_graph_module(body,
//   import_block)` execs `import_block + body["_code"]`;
// - a cache dir's `<xx>/c<hash>.py` (wrapper or kernel modules) and `.cpp`.
//
// The vocabulary (code_audit.cpp's tables), and where each item comes from
// in PyTorch 2.5-2.11 (torch/_inductor/ unless said otherwise):
// - codegen/wrapper.py PythonWrapperCodegen.write_header: `import torch,
//   math, random, os, tempfile`; `from ctypes import c_void_p, c_long, c_int`;
//   `from math import inf, nan`; `from cmath import nanj`; `from torch import
//   device, empty, empty_strided`; `from torch._inductor.hooks import
//   run_intermediate_hooks`; `from torch._inductor.utils import
//   maybe_profile`; `from torch._inductor.codegen.memory_planning import
//   _align`; `from torch._inductor.async_compile import AsyncCompile`
//   (`codecache` before 2.5); `from torch._inductor.select_algorithm import
//   extern_kernels`; `from torch._inductor.codegen.multi_kernel import
//   MultiKernelCall` (multi-kernel graphs).
// - wrapper.py write_triton_header_once / write_get_raw_stream_header:
//   `import triton`, `import triton.language as tl`, `from
//   torch._inductor.runtime.triton_heuristics import grid, start_graph,
//   end_graph, ...`, `from torch._C import _cuda_getCurrentRawStream as
//   get_raw_stream` (and the XPU/MTIA getters).
// - codegen/triton.py gen_common_triton_imports, gen_attr_descriptor_import,
//   GluonTemplateKernel: `from torch._inductor.runtime import triton_helpers,
//   triton_heuristics`; `...runtime.triton_helpers import libdevice, math as
//   tl_math`; `...runtime.hints import ...`; `from triton.compiler.compiler
//   import AttrsDescriptor`; the older `torch._inductor.triton_helpers` and
//   `torch._inductor.ir` forms; `triton.experimental.gluon`.
// - the benchmark harness (triton.py imports_for_benchmark_kernel; wrapper.py
//   benchmark_compiled_module, add_benchmark_harness): `from
//   torch._dynamo.testing import rand_strided`, `from
//   torch._inductor.runtime.benchmarking import benchmarker`, `from
//   torch._inductor.utils import print_performance`, `from
//   torch._inductor.wrapper_benchmark import compiled_module_main`,
//   `if __name__ == "__main__":`; the kernel decorator's `filename=__file__`.
// - wrapper.py write_prefix: `async_compile.wait(globals())`, the one use of
//   globals().
// - codegen/mps.py MetalScheduling: `from torch._inductor.runtime.runtime_utils
//   import compile_mps_shader`, whose calls compile Metal (audited as C++).
// - codegen/cpp_wrapper_cpu.py: `from torch._inductor.codecache import
//   CppWrapperCodeCache` and `cpp_wrapper_src` (cpp_wrapper mode).
// - torch/fx/graph.py _custom_builtins, torch/fx/graph_module.py
//   _format_import_block (GraphModule code): `NoneType = type(None)`, `from
//   math import inf, nan`, `from torch import device`, `import torch`,
//   `import torch.fx._pytree as fx_pytree`, `import torch.utils._pytree as
//   pytree`, `import operator`.
// - C++ #include (codegen/cpp.py; torch/csrc/inductor/cpp_prefix.h;
//   codecache.py CppPythonBindingsCodeCache; codegen/cuda): cpp_prefix.h,
//   ATen/, c10/, torch/, the C++ standard library headers, omp.h,
//   immintrin.h, Python.h (the pybinding glue), cutlass/, cute/.
//
// Rules (each finding's `rule`):
// - foreign-import: an import of a module, or of a name from a module, outside
//   the table above (a module runs its own code when imported). An import
//   alone of os/tempfile/random is Inductor's header and not a finding.
// - call-outside-vocabulary: any use of os, tempfile, random, sys, subprocess,
//   socket, shutil, ctypes (beyond c_void_p/c_long/c_int), importlib, pickle,
//   builtins, ... (bound by an import, or reached as an attribute such as
//   `torch.os`); open/input/breakpoint/setattr/delattr; the PyTorch entry
//   points that load or compile code (torch.load, torch.hub, torch.jit.load,
//   torch.utils.cpp_extension, torch.ops.load_library, torch._inductor.codecache,
//   torch.fx.graph_module, torch.serialization, torch.package, ...), also by
//   their attribute names wherever reached (`.hub`, `.load` but Triton's
//   `tl.load`, `._jit_*`, ...); frame and code attributes (`gi_frame`,
//   `f_globals`, ...); an assignment into an imported module
//   (`torch._inductor.config.cpp.cxx = ...`).
// - dynamic-code: eval, exec, compile, __import__, globals, locals, vars.
// - computed-getattr: getattr whose name is not one plain string literal.
// - dunder-attribute: a dunder name or attribute (`__class__`, `__subclasses__`,
//   `__globals__`, `__builtins__`, `__dict__`, `__code__`, ...) other than
//   `__name__`/`__file__` and a method definition such as `def __init__`.
// - non-ascii-name: a non-ASCII identifier (Python folds them by NFKC, so
//   `ｅｖａｌ` is eval); Inductor emits ASCII only.
// - computed-kernel-source / unaudited-kernel: a kernel whose source is not a
//   string literal, or in a language this audit does not read (the Python DSLs
//   of async_compile.halide / cutedsl / pallas / nv_universal_gemm).
//   A kernel method reached any other way than `async_compile.<method>(...)`
//   (an alias is followed) is unaudited-kernel.
// - unreadable-source: an embedded kernel source that does not tokenize.
// - source-encoding: a PEP 263 coding declaration other than UTF-8.
// - cpp-call: system, popen, dlopen, fork, exec*, syscall, posix_spawn, ...,
//   and the alias/weakref/ifunc/symver attributes.
// - inline-asm: asm / __asm__ / __asm in C++ (Inductor's C++ has none: its
//   inline assembly lives in the ATen headers it includes).
// - cpp-include: an #include outside the table above.
// - cpp-obfuscation: `##` token pasting or a backslash outside a literal (a
//   universal character name in an identifier), which could spell a name.
//
// A rule is reported once per line; a source lists at most 1000 findings,
// then one `too-many-findings`; a finding's text is cut at 400 bytes.
//
// What an audit cannot promise: `torch` has thousands of attributes and
// Inductor calls many of them (torch.ops.*, torch._C._dynamo.guards.*, ...);
// the audit refuses the entry points known to load or compile code, not every
// path through PyTorch's own API; a kernel can still compute wrong numbers or
// read out of bounds on the GPU. Only a signature from a trusted key says who
// made an artifact.

#include <cachelens/core/error.h>
#include <cachelens/safety/finding.h>

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace cachelens::safety {

enum class PythonCode : std::uint8_t {
    InductorWrapper, // an FX entry's source_code; a cache dir's wrapper module
    TritonKernel,    // a kernel source string; a cache dir's kernel module
    GraphModule,     // a GraphModule's import block followed by its code
};

// Findings in Python source PyTorch would import or exec, in source order.
// `file` names the artifact in the findings ("source_code", "graph module
// forward", a cache dir path). Embedded kernel sources are audited by their
// kind; their findings name `file` and the line within it. Fails only when
// `source` itself does not tokenize (the error names the line).
Result<std::vector<Finding>> audit_python(std::string_view source, std::string_view file,
                                          PythonCode kind);

// Findings in C++ (or CUDA/Metal C++) source PyTorch would compile and load.
std::vector<Finding> audit_cpp(std::string_view source, std::string_view file);

// A cache dir file by its name: `.py` (a wrapper module when it defines
// `async_compile = AsyncCompile()`, a kernel module otherwise) or
// `.cpp`/`.h`/`.cu`; any other file holds no source and has no findings.
// The names a code object of a precompiled function can reach (its co_names
// and its nested code objects'): PyTorch makes a function of the bytecode
// and runs it, and CPython does not verify bytecode, so what cachelens can
// check without running it is what it names. Names that reach the system,
// other code or the interpreter's internals are findings ("bytecode-name").
std::vector<Finding> audit_code_names(std::span<const std::string_view> names,
                                      std::string_view file);

// A module a precompiled function makes PyTorch import on load (its
// import_sources, a user Triton kernel's module): PyTorch's own (torch,
// triton) and the function's own module pass; any other is a finding
// ("foreign-import").
std::vector<Finding> audit_import(std::string_view module, std::string_view own_module,
                                  std::string_view file);

// A shape guard expression PyTorch compiles into the guard on load: sizes,
// strides, comparisons and arithmetic only ("shape-guard-code").
std::vector<Finding> audit_shape_guard(std::string_view expression, std::string_view file);

Result<std::vector<Finding>> audit_cache_file(std::string_view text,
                                              std::string_view relative_path);

} // namespace cachelens::safety
