#include <cachelens/cachedir/python_literal.h>
#include <cachelens/safety/code_audit.h>
#include <cachelens/safety/python_tokens.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

// The vocabulary tables below are documented, with where each entry comes
// from in PyTorch, in code_audit.h and docs/SECURITY.md ("Code audit").

namespace cachelens::safety {

namespace {

// The kinds a vocabulary entry applies to.
enum KindBits : std::uint8_t {
    WrapperBit = 1,
    KernelBit = 2,
    GraphBit = 4,
};
constexpr std::uint8_t ModuleBits = WrapperBit | KernelBit; // Inductor's generated modules

std::uint8_t bit_of(PythonCode kind) {
    switch (kind) {
    case PythonCode::InductorWrapper:
        return WrapperBit;
    case PythonCode::TritonKernel:
        return KernelBit;
    case PythonCode::GraphModule:
        return GraphBit;
    }
    return 0;
}

// `import <module>` as Inductor writes it.
struct ModuleImport {
    std::string_view module;
    std::uint8_t kinds;
};
constexpr std::array module_imports{
    // codegen/wrapper.py write_header
    ModuleImport{"torch", ModuleBits | GraphBit},
    ModuleImport{"math", ModuleBits},
    ModuleImport{"random", ModuleBits},
    ModuleImport{"os", ModuleBits},
    ModuleImport{"tempfile", ModuleBits},
    // wrapper.py write_triton_header_once, triton.py gen_common_triton_imports
    ModuleImport{"triton", ModuleBits},
    ModuleImport{"triton.language", ModuleBits},
    // torch/fx/graph.py _custom_builtins (a GraphModule's import block)
    ModuleImport{"torch.fx._pytree", GraphBit},
    ModuleImport{"torch.utils._pytree", GraphBit},
    ModuleImport{"operator", GraphBit},
    // a template kernel's grid function, called in the launch (2.3 to 2.6):
    // `grid=torch._inductor.kernel.bmm.bmm_grid(...)`
    ModuleImport{"torch._inductor.kernel.bmm", WrapperBit},
    ModuleImport{"torch._inductor.kernel.mm", WrapperBit},
    ModuleImport{"torch._inductor.kernel.mm_common", WrapperBit},
    ModuleImport{"torch._inductor.kernel.conv", WrapperBit},
    ModuleImport{"torch._inductor.kernel.flex_attention", WrapperBit},
    ModuleImport{"torch._inductor.kernel.flex_decoding", WrapperBit},
};

// `from <module> import <names>` as Inductor writes it; "*" stands for the
// names a runtime module exports (they change between releases).
struct NameImport {
    std::string_view module;
    std::string_view names; // space-separated
    std::uint8_t kinds;
    bool submodules = false; // the module's submodules too
};
constexpr std::array name_imports{
    // wrapper.py write_header
    NameImport{"ctypes", "c_void_p c_long c_int", ModuleBits},
    NameImport{"math", "inf nan", ModuleBits | GraphBit},
    NameImport{"cmath", "nanj", ModuleBits},
    NameImport{"torch", "device empty empty_strided", ModuleBits | GraphBit},
    // PyTorch 2.0's wrapper header
    NameImport{"torch", "as_strided", ModuleBits},
    NameImport{"torch._inductor.hooks", "run_intermediate_hooks", ModuleBits},
    NameImport{"torch._inductor.utils", "maybe_profile print_performance instance_descriptor",
               ModuleBits},
    NameImport{"torch._inductor.codegen.memory_planning", "_align", ModuleBits},
    NameImport{"torch._inductor.async_compile", "AsyncCompile", ModuleBits},
    // codecache held AsyncCompile before 2.4; cpp_wrapper_cpu.py's glue loads CppWrapperCodeCache
    NameImport{"torch._inductor.codecache", "AsyncCompile CppWrapperCodeCache", ModuleBits},
    NameImport{"torch._inductor.select_algorithm", "extern_kernels", ModuleBits},
    NameImport{"torch._inductor.codegen.multi_kernel", "MultiKernelCall", ModuleBits},
    // wrapper.py write_triton_header_once; triton.py gen_common_triton_imports
    NameImport{"torch._inductor.runtime.triton_heuristics", "*", ModuleBits},
    NameImport{"torch._inductor.triton_heuristics", "*", ModuleBits},
    // PyTorch 2.0 (triton_ops/autotune.py: grid and the heuristics, imported by name)
    NameImport{"torch._inductor.triton_ops.autotune", "*", ModuleBits},
    NameImport{"torch._inductor.runtime", "triton_helpers triton_heuristics", ModuleBits},
    NameImport{"torch._inductor", "triton_helpers triton_heuristics", ModuleBits},
    NameImport{"torch._inductor.runtime.triton_helpers", "*", ModuleBits},
    NameImport{"torch._inductor.triton_helpers", "*", ModuleBits},
    NameImport{"torch._inductor.runtime.hints", "*", ModuleBits},
    NameImport{"torch._inductor.ir", "ReductionHint TileHint", ModuleBits},
    NameImport{"triton.compiler.compiler", "AttrsDescriptor", ModuleBits},
    NameImport{"triton.experimental", "gluon", ModuleBits},
    NameImport{"triton.experimental.gluon", "*", ModuleBits, true},
    // wrapper.py write_get_raw_stream_header (device interfaces' raw stream getters)
    NameImport{"torch._C",
               "_cuda_getCurrentRawStream _xpu_getCurrentRawStream _mtia_getCurrentRawStream",
               ModuleBits},
    // the benchmark harness: triton.py imports_for_benchmark_kernel, wrapper.py
    // benchmark_compiled_module / add_benchmark_harness
    NameImport{"torch._dynamo.testing", "rand_strided", ModuleBits},
    NameImport{"torch._inductor.runtime.benchmarking", "benchmarker", ModuleBits},
    NameImport{"torch._inductor.wrapper_benchmark", "compiled_module_main", ModuleBits},
    // codegen/mps.py MetalScheduling (MPS wrappers, 2.6+)
    NameImport{"torch._inductor.runtime.runtime_utils", "compile_mps_shader", ModuleBits},
};

// Modules whose every use is outside the vocabulary: Inductor imports os,
// tempfile and random and never uses them; the others it never imports.
constexpr std::string_view dangerous_modules[] = {
    "os",
    "tempfile",
    "random",
    "sys",
    "subprocess",
    "socket",
    "shutil",
    "ctypes",
    "importlib",
    "pickle",
    "builtins",
    "marshal",
    "runpy",
    "code",
    "codeop",
    "pty",
    "posix",
    "nt",
    "_posixsubprocess",
    "multiprocessing",
    "signal",
    "io",
    "pathlib",
    "glob",
    "urllib",
    "http",
    "webbrowser",
    "shelve",
    "dill",
    "cloudpickle",
    "zipimport",
    "pkgutil",
    "inspect",
    "gc",
    "types",
    "threading",
    "asyncio",
    "ssl",
    "select",
    "fcntl",
    "mmap",
    "resource",
    "platform",
    "sysconfig",
    "site",
    "ftplib",
    "smtplib",
    "requests",
};

// Reached as an attribute (`torch.os`, `triton.sys`): modules that give a
// process, files, the network or the interpreter.
constexpr std::string_view dangerous_attributes[] = {
    "os",
    "sys",
    "subprocess",
    "socket",
    "shutil",
    "ctypes",
    "importlib",
    "pickle",
    "builtins",
    "marshal",
    "runpy",
    "posix",
    "_posixsubprocess",
    "pty",
    "system",
    "popen",
    "spawnv",
    "execv",
    // frames and code objects: a frame's f_globals holds the module's `os`
    "gi_frame",
    "gi_code",
    "cr_frame",
    "cr_code",
    "ag_frame",
    "ag_code",
    "f_globals",
    "f_locals",
    "f_builtins",
    "f_back",
    "f_code",
    "tb_frame",
    "tb_next",
    "co_code",
    "func_globals",
};

// PyTorch's own entry points that load, compile or exec code: reachable
// from `import torch`, never in generated code.
constexpr std::string_view code_loading_prefixes[] = {
    "torch.load",
    "torch.hub",
    "torch.jit.load",
    "torch.jit.CompilationUnit",
    "torch.package",
    "torch.serialization",
    "torch.utils.cpp_extension",
    "torch.ops.load_library",
    "torch.classes.load_library",
    "torch._ops.ops.load_library",
    "torch._inductor.codecache",
    "torch._inductor.cpp_builder",
    "torch._inductor.runtime.compile_tasks",
    "torch.fx.graph_module",
    "torch.compiler.load_cache_artifacts",
    "torch.distributed.rpc",
};

// Attribute names of PyTorch's entry points that load, compile or exec code:
// refused wherever they are reached, so an alias (`[torch][0].hub`) does not
// hide them. `load` is Triton's `tl.load` in a kernel and refused elsewhere.
constexpr std::string_view code_loading_attributes[] = {
    "hub",
    "serialization",
    "cpp_extension",
    "load_inline",
    "load_library",
    "codecache",
    "PyCodeCache",
    "_exec_with_source",
    "compile_tasks",
    "cpp_builder",
    "load_cache_artifacts",
    "_reload_python_module",
    "load_by_key_path",
    "CompilationUnit",
    "_load_for_lite_interpreter",
};

// AsyncCompile's methods that compile a kernel from a source string: Inductor
// calls them only as `async_compile.<method>(...)`, which the audit follows.
constexpr std::string_view kernel_methods[] = {
    "triton", "cpp",    "cpp_pybinding", "cuda",    "rocm",
    "mps",    "halide", "pallas",        "cutedsl", "nv_universal_gemm"};

// Bare dunder names Inductor's code uses.
constexpr std::string_view allowed_dunder_names[] = {"__name__", "__file__"};

bool contains(const auto& table, std::string_view value) {
    return std::ranges::find(table, value) != std::ranges::end(table);
}

bool is_dunder(std::string_view name) {
    return name.size() > 4 && name.starts_with("__") && name.ends_with("__");
}

bool is_ascii(std::string_view text) {
    return std::ranges::all_of(text, [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

bool has_word(std::string_view words, std::string_view word) {
    while (!words.empty()) {
        const std::size_t space = words.find(' ');
        if (words.substr(0, space) == word) {
            return true;
        }
        if (space == std::string_view::npos) {
            break;
        }
        words.remove_prefix(space + 1);
    }
    return false;
}

bool module_import_allowed(std::string_view module, std::uint8_t kind) {
    return std::ranges::any_of(module_imports, [&](const ModuleImport& rule) {
        return rule.module == module && (rule.kinds & kind) != 0;
    });
}

bool name_import_allowed(std::string_view module, std::string_view name, std::uint8_t kind) {
    return std::ranges::any_of(name_imports, [&](const NameImport& rule) {
        const bool module_matches =
            rule.module == module ||
            (rule.submodules && module.starts_with(rule.module) &&
             module.size() > rule.module.size() && module[rule.module.size()] == '.');
        return module_matches && (rule.kinds & kind) != 0 &&
               (rule.names == "*" || has_word(rule.names, name));
    });
}

std::optional<std::string_view> code_loading_prefix(std::string_view chain) {
    for (const std::string_view prefix : code_loading_prefixes) {
        if (chain == prefix || (chain.starts_with(prefix) && chain[prefix.size()] == '.')) {
            return prefix;
        }
    }
    return std::nullopt;
}

// A finding before it is placed: its line within the source audited.
struct RawFinding {
    std::string rule;
    std::size_t line = 0;
    std::string why;
    std::size_t order = 0; // when it was found: the order among findings on one line
};

// Hostile code can repeat a refused name on every line, or thousands of times
// on one: a rule is reported once per line, at most this many findings per
// source, then one finding that says the list stops there.
constexpr std::size_t max_findings = 1000;
// The `text` of a finding: a line this long is cut (at a UTF-8 boundary).
constexpr std::size_t max_text_bytes = 400;

// Collects findings: one per rule and line, bounded, sorted when taken.
class FindingSink {
public:
    void add(std::string rule, std::size_t line, std::string why) {
        if (!seen_.emplace(line, rule).second) {
            return;
        }
        if (findings_.size() >= max_findings) {
            if (!overflow_line_) {
                overflow_line_ = line;
            }
            return;
        }
        findings_.push_back(RawFinding{std::move(rule), line, std::move(why), findings_.size()});
    }

    // By line; on one line, in the order found (std::stable_sort's buffer is
    // deprecated under clang with libstdc++ 12).
    std::vector<RawFinding> take() {
        if (overflow_line_) {
            findings_.push_back(RawFinding{"too-many-findings", *overflow_line_,
                                           fmt::format("More than {} findings: the rest of this "
                                                       "source is not listed.",
                                                       max_findings),
                                           findings_.size()});
        }
        std::ranges::sort(findings_, [](const RawFinding& a, const RawFinding& b) {
            return std::tie(a.line, a.order) < std::tie(b.line, b.order);
        });
        return std::move(findings_);
    }

private:
    std::vector<RawFinding> findings_;
    std::set<std::pair<std::size_t, std::string>> seen_;
    std::optional<std::size_t> overflow_line_;
};

std::string finding_text(std::string_view line) {
    if (line.size() <= max_text_bytes) {
        return std::string(line);
    }
    std::size_t cut = max_text_bytes;
    while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) {
        --cut;
    }
    return std::string(line.substr(0, cut)) + "\u2026";
}

// How deep kernel sources may nest inside one another (a wrapper's Triton
// string holding another async_compile call ...): Inductor nests none.
constexpr int max_embedding_depth = 4;

std::vector<RawFinding> audit_cpp_raw(std::string_view source);

std::vector<Finding> place(const std::vector<RawFinding>& raw, std::string_view source,
                           std::string_view file) {
    const cachedir::SourceLines lines(source);
    std::vector<Finding> findings;
    findings.reserve(raw.size());
    for (const RawFinding& r : raw) {
        const std::string text =
            r.line >= 1 && r.line <= lines.count() ? finding_text(lines.line(r.line - 1)) : "";
        findings.push_back(make_finding(r.rule, std::string(file), r.line, text, r.why));
    }
    return findings;
}

using TokenRefs = std::vector<const PyToken*>;

bool is_op(const PyToken* token, std::string_view op) {
    return token != nullptr && token->kind == PyTokenKind::Op && token->text == op;
}
bool is_name(const PyToken* token, std::string_view name) {
    return token != nullptr && token->kind == PyTokenKind::Name && token->text == name;
}

// One argument of a call: tokens [begin, end) and its keyword, if any.
struct CallArg {
    std::size_t begin = 0;
    std::size_t end = 0;
    std::string_view keyword;
};

class PythonAuditor {
public:
    PythonAuditor(const PyTokens& tokens, std::uint8_t kind, int depth)
        : tokens_(tokens)
        , kind_(kind)
        , depth_(depth) {}

    std::vector<RawFinding> run() {
        TokenRefs refs;
        refs.reserve(tokens_.tokens.size());
        for (const PyToken& token : tokens_.tokens) {
            if (token.kind != PyTokenKind::Comment && token.kind != PyTokenKind::Nl) {
                refs.push_back(&token);
            }
        }
        check_encoding();
        walk(refs, true);
        return findings_.take();
    }

private:
    void add(std::string rule, std::size_t line, std::string why) {
        findings_.add(std::move(rule), line, std::move(why));
    }

    // Python decodes a module by the coding declaration of its first two lines
    // (PEP 263): under another codec (utf-7, rot13, ...) what this audit reads
    // as a comment or a string can be code. Inductor declares none.
    void check_encoding() {
        for (const PyToken& token : tokens_.tokens) {
            if (token.line > 2) {
                break;
            }
            if (token.kind != PyTokenKind::Comment) {
                continue;
            }
            const std::string_view comment = token.text;
            for (std::size_t at = comment.find("coding"); at != std::string_view::npos;
                 at = comment.find("coding", at + 1)) {
                std::size_t k = at + 6;
                if (k >= comment.size() || (comment[k] != ':' && comment[k] != '=')) {
                    continue;
                }
                ++k;
                while (k < comment.size() && (comment[k] == ' ' || comment[k] == '\t')) {
                    ++k;
                }
                std::string codec;
                for (; k < comment.size(); ++k) {
                    const auto c = static_cast<unsigned char>(comment[k]);
                    if (std::isalnum(c) == 0 && c != '-' && c != '_' && c != '.') {
                        break;
                    }
                    codec += c == '_' ? '-' : static_cast<char>(std::tolower(c));
                }
                if (codec != "utf-8" && codec != "utf8" && !codec.starts_with("utf-8-")) {
                    add("source-encoding", token.line,
                        fmt::format("The coding declaration `{}` makes Python read this source "
                                    "differently from how it is audited.",
                                    codec));
                }
                break;
            }
        }
    }

    static const PyToken* at(const TokenRefs& refs, std::size_t i) {
        return i < refs.size() ? refs[i] : nullptr;
    }

    static bool statement_start(const TokenRefs& refs, std::size_t i) {
        if (i == 0) {
            return true;
        }
        const PyToken* prev = refs[i - 1];
        return prev->kind == PyTokenKind::Newline || prev->kind == PyTokenKind::Indent ||
               prev->kind == PyTokenKind::Dedent || is_op(prev, ";");
    }

    void walk(const TokenRefs& refs, bool module_level) {
        for (std::size_t i = 0; i < refs.size(); ++i) {
            const PyToken* token = refs[i];
            if (token->kind == PyTokenKind::String) {
                if (module_level && token->field_end > token->field_begin) {
                    walk_fields(*token);
                }
                continue;
            }
            if (token->kind != PyTokenKind::Name) {
                continue;
            }
            const bool after_dot = i > 0 && is_op(refs[i - 1], ".");
            if (after_dot) {
                check_attribute(refs, i);
                continue;
            }
            if (module_level && token->text == "import") {
                i = parse_import(refs, i);
                continue;
            }
            if (module_level && token->text == "from" && is_import_from(refs, i)) {
                i = parse_from_import(refs, i);
                continue;
            }
            if (module_level && statement_start(refs, i) && is_op(at(refs, i + 1), "=")) {
                record_assignment(refs, i);
            }
            if (module_level && statement_start(refs, i)) {
                check_module_assignment(refs, i);
            }
            check_name(refs, i);
        }
    }

    // The code of an f-string's replacement fields (nested f-strings' fields
    // are inside the same range, after their own string token).
    void walk_fields(const PyToken& string) {
        TokenRefs refs;
        for (std::uint32_t k = string.field_begin; k < string.field_end; ++k) {
            const PyToken& token = tokens_.field_tokens[k];
            if (token.kind != PyTokenKind::Comment && token.kind != PyTokenKind::Nl) {
                refs.push_back(&token);
            }
        }
        walk(refs, false);
    }

    // The dotted chain starting at a name: "torch.ops.aten.add" and the index
    // of its last name.
    static std::pair<std::string, std::size_t> chain_at(const TokenRefs& refs, std::size_t i) {
        std::string chain(refs[i]->text);
        std::size_t last = i;
        while (is_op(at(refs, last + 1), ".") && at(refs, last + 2) != nullptr &&
               refs[last + 2]->kind == PyTokenKind::Name) {
            chain += '.';
            chain += refs[last + 2]->text;
            last += 2;
        }
        return {chain, last};
    }

    // The chain with its first name replaced by what it is bound to.
    std::string resolve(const std::string& chain) const {
        const std::size_t dot = chain.find('.');
        const std::string head = chain.substr(0, dot);
        const auto bound = bindings_.find(head);
        if (bound == bindings_.end()) {
            return chain;
        }
        return dot == std::string::npos ? bound->second : bound->second + chain.substr(dot);
    }

    // `name = a.b.c`: later uses of `name` are uses of a.b.c.
    void record_assignment(const TokenRefs& refs, std::size_t i) {
        const PyToken* first = at(refs, i + 2);
        if (first == nullptr || first->kind != PyTokenKind::Name) {
            return;
        }
        const auto [chain, last] = chain_at(refs, i + 2);
        const PyToken* after = at(refs, last + 1);
        if (after == nullptr || after->kind == PyTokenKind::Newline ||
            after->kind == PyTokenKind::EndMarker || is_op(after, ";")) {
            bindings_[std::string(refs[i]->text)] = resolve(chain);
        }
    }

    // `torch._inductor.config.cpp.cxx = ...`: assigning into an imported
    // module changes what PyTorch or Triton does next (the compiler it runs,
    // its config). Inductor's code assigns only its own names and `self.x`.
    void check_module_assignment(const TokenRefs& refs, std::size_t i) {
        const auto [chain, last] = chain_at(refs, i);
        if (last == i) {
            return;
        }
        const PyToken* op = at(refs, last + 1);
        const bool assigns = op != nullptr && op->kind == PyTokenKind::Op &&
                             op->text.ends_with('=') && op->text != "==" && op->text != "!=" &&
                             op->text != "<=" && op->text != ">=";
        const std::string resolved = resolve(chain);
        if (assigns && imported_roots_.contains(resolved.substr(0, resolved.find('.')))) {
            add("call-outside-vocabulary", refs[i]->line,
                fmt::format("Assigning `{}` changes an imported module's state (its config, the "
                            "compiler it runs), which Inductor's code never does.",
                            resolved));
        }
    }

    bool is_import_from(const TokenRefs& refs, std::size_t i) const {
        std::size_t k = i + 1;
        while (is_op(at(refs, k), ".") || is_op(at(refs, k), "...")) {
            ++k;
        }
        if (at(refs, k) != nullptr && refs[k]->kind == PyTokenKind::Name &&
            refs[k]->text != "import") {
            k = chain_at(refs, k).second + 1;
        }
        return is_name(at(refs, k), "import");
    }

    static bool ends_statement(const PyToken* token) {
        return token == nullptr || token->kind == PyTokenKind::Newline ||
               token->kind == PyTokenKind::EndMarker || is_op(token, ";");
    }

    std::size_t parse_import(const TokenRefs& refs, std::size_t i) {
        const std::size_t line = refs[i]->line;
        std::size_t k = i + 1;
        while (!ends_statement(at(refs, k))) {
            if (refs[k]->kind != PyTokenKind::Name) {
                ++k;
                continue;
            }
            const auto [module, last] = chain_at(refs, k);
            k = last + 1;
            std::string bound_name = module.substr(0, module.find('.'));
            std::string bound_to = bound_name;
            if (is_name(at(refs, k), "as") && at(refs, k + 1) != nullptr) {
                bound_name = std::string(refs[k + 1]->text);
                bound_to = module;
                k += 2;
            }
            if (!module_import_allowed(module, kind_)) {
                add("foreign-import", line,
                    fmt::format("Inductor's generated code never imports `{}`, and importing a "
                                "module runs its code.",
                                module));
            }
            bindings_[bound_name] = bound_to;
            imported_roots_.insert(module.substr(0, module.find('.')));
            if (is_op(at(refs, k), ",")) {
                ++k;
            }
        }
        return k > 0 ? k - 1 : k;
    }

    std::size_t parse_from_import(const TokenRefs& refs, std::size_t i) {
        const std::size_t line = refs[i]->line;
        std::size_t k = i + 1;
        bool relative = false;
        while (is_op(at(refs, k), ".") || is_op(at(refs, k), "...")) {
            relative = true;
            ++k;
        }
        std::string module;
        if (!is_name(at(refs, k), "import")) {
            const auto [chain, last] = chain_at(refs, k);
            module = chain;
            k = last + 1;
        }
        ++k; // import
        while (!ends_statement(at(refs, k))) {
            const PyToken* token = refs[k];
            if (is_op(token, "*")) {
                add("foreign-import", line,
                    fmt::format("Inductor never writes `from {} import *`: it binds names this "
                                "audit cannot see.",
                                module));
                ++k;
                continue;
            }
            if (token->kind != PyTokenKind::Name) {
                ++k;
                continue;
            }
            const std::string name(token->text);
            std::string bound_name = name;
            k += 1;
            if (is_name(at(refs, k), "as") && at(refs, k + 1) != nullptr) {
                bound_name = std::string(refs[k + 1]->text);
                k += 2;
            }
            if (relative) {
                add("foreign-import", line,
                    "Inductor's generated code never uses a relative import, and importing a "
                    "module runs its code.");
            } else if (!name_import_allowed(module, name, kind_)) {
                add("foreign-import", line,
                    fmt::format("Inductor's generated code never imports `{}` from `{}`, and "
                                "importing runs code.",
                                name, module));
            }
            bindings_[bound_name] = module + "." + name;
            imported_roots_.insert(module.substr(0, module.find('.')));
        }
        return k > 0 ? k - 1 : k;
    }

    // The resolved dotted chain that ends just before the attribute at `i`
    // (`tl` in `tl.load`); nullopt when it starts at a call or subscript, or
    // is longer than any Inductor writes (which also keeps `a.load.load...`
    // linear).
    std::optional<std::string> chain_before(const TokenRefs& refs, std::size_t i) const {
        constexpr std::size_t max_chain_names = 16;
        if (i < 2 || refs[i - 2]->kind != PyTokenKind::Name) {
            return std::nullopt;
        }
        std::size_t k = i - 2;
        std::size_t names = 1;
        while (k >= 2 && is_op(refs[k - 1], ".") && refs[k - 2]->kind == PyTokenKind::Name) {
            if (++names > max_chain_names) {
                return std::nullopt;
            }
            k -= 2;
        }
        if (k >= 1 && is_op(refs[k - 1], ".")) {
            return std::nullopt;
        }
        std::string chain(refs[k]->text);
        for (std::size_t n = k + 2; n < i; n += 2) {
            chain += '.';
            chain += refs[n]->text;
        }
        return resolve(chain);
    }

    // `.load` and the code-loading names: refused, except Triton's `tl.load`
    // (and Gluon's) in a kernel.
    static bool loads_code(std::string_view name, const std::optional<std::string>& object) {
        if (name == "load") {
            return !(object && object->starts_with("triton."));
        }
        // TorchScript's compilers and loaders (torch._C._jit_*).
        return contains(code_loading_attributes, name) || name.starts_with("_jit_");
    }

    void check_attribute(const TokenRefs& refs, std::size_t i) {
        const PyToken& token = *refs[i];
        const std::string_view name = token.text;
        if (!is_ascii(name)) {
            add("non-ascii-name", token.line,
                "Inductor writes ASCII names only, and Python folds other names to ASCII ones "
                "(NFKC), which can hide a call.");
        } else if (is_dunder(name)) {
            add("dunder-attribute", token.line,
                fmt::format("`.{}` reaches Python's internals (classes, globals, code objects), "
                            "which Inductor's code never touches.",
                            name));
        } else if (contains(dangerous_attributes, name)) {
            add("call-outside-vocabulary", token.line,
                fmt::format("`.{}` reaches the operating system or the interpreter, which "
                            "Inductor's code never uses.",
                            name));
        } else if (contains(kernel_methods, name)) {
            // `torch.cuda.set_device(0)` and `x.cuda()` are not kernels: only a
            // `.cuda(...)` with arguments compiles one.
            const bool compiles =
                name != "cuda" || (is_op(at(refs, i + 1), "(") && !is_op(at(refs, i + 2), ")"));
            const auto object = chain_before(refs, i);
            const bool followed = object == "async_compile" && is_op(at(refs, i + 1), "(");
            if (compiles && !followed) {
                add("unaudited-kernel", token.line,
                    fmt::format("`.{}` compiles a kernel by a path the audit does not follow "
                                "(Inductor calls it only as `async_compile.{}(...)`).",
                                name, name));
            }
        } else if ((name == "load" || contains(code_loading_attributes, name) ||
                    name.starts_with("_jit_")) &&
                   loads_code(name, chain_before(refs, i))) {
            add("call-outside-vocabulary", token.line,
                fmt::format("`.{}` loads, compiles or runs code, which Inductor's code never "
                            "does.",
                            name));
        }
    }

    // Splits the arguments of the call whose '(' is at `open`; returns the
    // index of its ')' (refs.size() when unbalanced).
    static std::size_t call_args(const TokenRefs& refs, std::size_t open,
                                 std::vector<CallArg>& args) {
        int depth = 0;
        std::size_t begin = open + 1;
        for (std::size_t k = open; k < refs.size(); ++k) {
            const PyToken* token = refs[k];
            if (token->kind != PyTokenKind::Op) {
                continue;
            }
            const std::string_view op = token->text;
            if (op == "(" || op == "[" || op == "{") {
                ++depth;
            } else if (op == ")" || op == "]" || op == "}") {
                if (--depth == 0) {
                    if (k > begin) {
                        args.push_back(CallArg{begin, k, {}});
                    }
                    for (CallArg& arg : args) {
                        if (arg.end - arg.begin >= 2 &&
                            refs[arg.begin]->kind == PyTokenKind::Name &&
                            is_op(refs[arg.begin + 1], "=")) {
                            arg.keyword = refs[arg.begin]->text;
                            arg.begin += 2;
                        }
                    }
                    return k;
                }
            } else if (op == "," && depth == 1) {
                args.push_back(CallArg{begin, k, {}});
                begin = k + 1;
            }
        }
        return refs.size();
    }

    // A literal string argument's value (adjacent literals concatenated) and
    // the source line of each of its lines; nullopt when it is anything else.
    struct Literal {
        std::string value;
        std::vector<std::size_t> lines;
    };
    static std::optional<Literal> literal_of(const TokenRefs& refs, const CallArg& arg) {
        std::size_t begin = arg.begin;
        std::size_t end = arg.end;
        while (end - begin >= 2 && is_op(refs[begin], "(") && is_op(refs[end - 1], ")")) {
            ++begin;
            --end;
        }
        if (begin >= end) {
            return std::nullopt;
        }
        Literal literal;
        for (std::size_t k = begin; k < end; ++k) {
            if (refs[k]->kind != PyTokenKind::String) {
                return std::nullopt;
            }
            auto decoded = decode_string_token(refs[k]->text);
            if (!decoded) {
                return std::nullopt;
            }
            if (literal.lines.empty()) {
                literal.lines.push_back(refs[k]->line + decoded->line_offsets.front());
            }
            for (std::size_t n = 1; n < decoded->line_offsets.size(); ++n) {
                literal.lines.push_back(refs[k]->line + decoded->line_offsets[n]);
            }
            literal.value += decoded->value;
        }
        return literal;
    }

    enum class Embedded : std::uint8_t { Triton, Cpp };

    // Audits a kernel source embedded in this one; its findings are moved to
    // this source's lines.
    void audit_embedded(const Literal& literal, Embedded kind, std::size_t line) {
        std::vector<RawFinding> inner;
        if (depth_ >= max_embedding_depth) {
            add("unaudited-kernel", line,
                "Kernel sources nested this deep inside one another are not generated by "
                "Inductor and are not audited.");
            return;
        }
        if (kind == Embedded::Cpp) {
            inner = audit_cpp_raw(literal.value);
        } else {
            auto tokens = tokenize_python(literal.value);
            if (!tokens) {
                add("unreadable-source", line,
                    fmt::format("This Triton kernel source does not tokenize ({}), so it "
                                "cannot be audited.",
                                tokens.error().message));
                return;
            }
            inner = PythonAuditor(*tokens, KernelBit, depth_ + 1).run();
        }
        for (RawFinding& finding : inner) {
            const std::size_t index = finding.line == 0 ? 0 : finding.line - 1;
            add(std::move(finding.rule), index < literal.lines.size() ? literal.lines[index] : line,
                std::move(finding.why));
        }
    }

    // async_compile.<method>(...) (torch/_inductor/async_compile.py): which
    // argument is the source and its language.
    static constexpr std::size_t no_source = static_cast<std::size_t>(-1);
    static constexpr std::size_t every_argument = static_cast<std::size_t>(-2);
    struct KernelCall {
        std::string_view method;
        std::size_t source_index;         // positional index of the source
        std::optional<Embedded> language; // nullopt: a source this audit does not read
    };
    static constexpr std::array kernel_calls{
        KernelCall{"triton", 1, Embedded::Triton},
        KernelCall{"cpp", 0, Embedded::Cpp},
        KernelCall{"cpp_pybinding", 1, Embedded::Cpp},
        KernelCall{"cuda", 0, Embedded::Cpp},
        KernelCall{"rocm", 0, Embedded::Cpp},
        // Metal shaders; which argument holds the source changed between
        // releases, so every argument must be a literal.
        KernelCall{"mps", every_argument, Embedded::Cpp},
        // Python kernels in other DSLs (Halide, CuTe DSL, Pallas, cutlass_api):
        // their vocabulary is not Inductor's.
        KernelCall{"halide", 1, std::nullopt},
        KernelCall{"cutedsl", 1, std::nullopt},
        KernelCall{"pallas", 1, std::nullopt},
        KernelCall{"nv_universal_gemm", 1, std::nullopt},
        KernelCall{"multi_kernel", no_source, std::nullopt},
        KernelCall{"size_hint_multi_kernel", no_source, std::nullopt},
        KernelCall{"wait", no_source, std::nullopt},
    };

    void check_async_compile(const TokenRefs& refs, std::string_view method, std::size_t open) {
        const std::size_t line = refs[open]->line;
        const auto call = std::ranges::find(kernel_calls, method, &KernelCall::method);
        if (call == kernel_calls.end() || (!call->language && call->source_index != no_source)) {
            add("unaudited-kernel", line,
                fmt::format("`async_compile.{}` compiles a kernel this audit does not read.",
                            method));
            return;
        }
        if (call->language) {
            check_kernel_sources(refs, open, *call->language, call->source_index,
                                 fmt::format("async_compile.{}", method));
        }
    }

    // The arguments of a call that compiles a kernel: its source (at
    // `source_index`, or every argument) must be a literal; every literal is
    // audited as `language`.
    void check_kernel_sources(const TokenRefs& refs, std::size_t open, Embedded language,
                              std::size_t source_index, std::string_view callee) {
        std::vector<CallArg> args;
        call_args(refs, open, args);
        std::size_t positional = 0;
        bool source_seen = false;
        for (const CallArg& arg : args) {
            const bool is_source = arg.keyword.empty() ? (source_index == every_argument ||
                                                          positional++ == source_index)
                                                       : arg.keyword == "source_code";
            const auto literal = literal_of(refs, arg);
            if (is_source) {
                source_seen = true;
                if (!literal) {
                    add("computed-kernel-source", refs[arg.begin]->line,
                        fmt::format("The source given to `{}` is computed, not a literal, so "
                                    "the code compiled cannot be audited.",
                                    callee));
                    continue;
                }
            }
            if (literal && arg.keyword != "device_str") {
                audit_embedded(*literal, language, refs[arg.begin]->line);
            }
        }
        // PyTorch 2.0 passed a Triton kernel's source alone, before it passed a
        // name first: `async_compile.triton('''...''')`, audited above.
        const bool source_alone = source_index == 1 && positional == 1 && !args.empty() &&
                                  args.front().keyword.empty() &&
                                  literal_of(refs, args.front()).has_value();
        if (!source_seen && !source_alone) {
            add("computed-kernel-source", refs[open]->line,
                fmt::format("`{}` is called without a literal source.", callee));
        }
    }

    // CppWrapperCodeCache.load_pybinding(..., main_code=cpp_wrapper_src, kernel_code=...).
    void check_cpp_wrapper_call(const TokenRefs& refs, std::size_t open) {
        std::vector<CallArg> args;
        call_args(refs, open, args);
        for (const CallArg& arg : args) {
            if (const auto literal = literal_of(refs, arg)) {
                audit_embedded(*literal, Embedded::Cpp, refs[arg.begin]->line);
                continue;
            }
            const bool code_argument = arg.keyword == "main_code" || arg.keyword == "kernel_code" ||
                                       arg.keyword == "source_code";
            const bool audited_name =
                arg.end == arg.begin + 1 &&
                (is_name(refs[arg.begin], "cpp_wrapper_src") || is_name(refs[arg.begin], "None"));
            if (code_argument && !audited_name) {
                add("computed-kernel-source", refs[arg.begin]->line,
                    "The C++ given to CppWrapperCodeCache is computed, not a literal, so the "
                    "code compiled cannot be audited.");
            }
        }
    }

    void check_getattr(const TokenRefs& refs, std::size_t i) {
        const std::size_t line = refs[i]->line;
        if (!is_op(at(refs, i + 1), "(")) {
            add("computed-getattr", line,
                "`getattr` passed around can look up any attribute by a computed name.");
            return;
        }
        std::vector<CallArg> args;
        call_args(refs, i + 1, args);
        std::optional<std::string> name;
        if (args.size() >= 2 && args[1].keyword.empty() && args[1].end == args[1].begin + 1 &&
            refs[args[1].begin]->kind == PyTokenKind::String) {
            if (auto decoded = decode_string_token(refs[args[1].begin]->text)) {
                name = decoded->value;
            }
        }
        if (!name) {
            add("computed-getattr", line,
                "`getattr` with a computed name can reach any attribute, which Inductor's code "
                "never does.");
            return;
        }
        if (is_dunder(*name)) {
            add("dunder-attribute", line,
                fmt::format("`getattr(..., '{}')` reaches Python's internals, which Inductor's "
                            "code never touches.",
                            *name));
            return;
        }
        if (contains(dangerous_attributes, *name)) {
            add("call-outside-vocabulary", line,
                fmt::format("`getattr(..., '{}')` reaches the operating system or the "
                            "interpreter.",
                            *name));
            return;
        }
        if (contains(kernel_methods, *name)) {
            add("unaudited-kernel", line,
                fmt::format("`getattr(..., '{}')` reaches a kernel compiler by a path the audit "
                            "does not follow.",
                            *name));
            return;
        }
        const CallArg& object = args[0];
        std::optional<std::string> object_chain;
        if (object.keyword.empty() && refs[object.begin]->kind == PyTokenKind::Name &&
            chain_at(refs, object.begin).second + 1 == object.end) {
            object_chain = resolve(chain_at(refs, object.begin).first);
        }
        if (loads_code(*name, object_chain)) {
            add("call-outside-vocabulary", line,
                fmt::format("`getattr(..., '{}')` loads, compiles or runs code, which Inductor's "
                            "code never does.",
                            *name));
            return;
        }
        if (object.keyword.empty() && refs[object.begin]->kind == PyTokenKind::Name) {
            const auto [chain, last] = chain_at(refs, object.begin);
            if (last + 1 == object.end) {
                if (const auto prefix = code_loading_prefix(resolve(chain) + "." + *name)) {
                    add("call-outside-vocabulary", line,
                        fmt::format("`{}` loads, compiles or runs code, which Inductor's code "
                                    "never does.",
                                    *prefix));
                }
            }
        }
    }

    // `async_compile = AsyncCompile()` at the start of a statement.
    static bool is_async_compile_made(const TokenRefs& refs, std::size_t i) {
        return i >= 2 && is_op(refs[i - 1], "=") && is_name(refs[i - 2], "async_compile") &&
               statement_start(refs, i - 2) && is_op(at(refs, i + 1), "(") &&
               is_op(at(refs, i + 2), ")");
    }

    // AOTInductor's wrapper (2.3 to 2.6) walks its kernels to reset them:
    // `for kernel in globals().values():` at the start of a statement.
    static bool is_kernel_walk_of_globals(const TokenRefs& refs, std::size_t i) {
        return i >= 3 && is_name(refs[i - 1], "in") && is_name(refs[i - 2], "kernel") &&
               is_name(refs[i - 3], "for") && statement_start(refs, i - 3) &&
               is_op(at(refs, i + 1), "(") && is_op(at(refs, i + 2), ")") &&
               is_op(at(refs, i + 3), ".") && is_name(at(refs, i + 4), "values") &&
               is_op(at(refs, i + 5), "(") && is_op(at(refs, i + 6), ")") &&
               is_op(at(refs, i + 7), ":");
    }

    bool is_async_compile_wait_globals(const TokenRefs& refs, std::size_t i) const {
        return i >= 4 && is_op(refs[i - 1], "(") && is_name(refs[i - 2], "wait") &&
               is_op(refs[i - 3], ".") && is_name(refs[i - 4], "async_compile") &&
               is_op(at(refs, i + 1), "(") && is_op(at(refs, i + 2), ")") &&
               is_op(at(refs, i + 3), ")");
    }

    void check_name(const TokenRefs& refs, std::size_t i) {
        const PyToken& token = *refs[i];
        const std::string_view name = token.text;
        const std::size_t line = token.line;
        if (!is_ascii(name)) {
            add("non-ascii-name", line,
                "Inductor writes ASCII names only, and Python folds other names to ASCII ones "
                "(NFKC), which can hide a call.");
            return;
        }
        const PyToken* prev = i > 0 ? refs[i - 1] : nullptr;
        const PyToken* next = at(refs, i + 1);
        if (is_name(prev, "def") || is_name(prev, "class")) {
            return; // a definition names what it defines
        }
        if (is_op(next, "=") && (is_op(prev, "(") || is_op(prev, ","))) {
            return; // a keyword argument's name
        }
        if (name == "__import__" || name == "eval" || name == "exec" || name == "compile") {
            add("dynamic-code", line,
                fmt::format("`{}` runs code made at run time, which Inductor's code never does.",
                            name));
            return;
        }
        if (is_dunder(name) && !contains(allowed_dunder_names, name)) {
            add("dunder-attribute", line,
                fmt::format("`{}` reaches Python's internals, which Inductor's code never touches.",
                            name));
            return;
        }
        if (name == "globals" || name == "locals" || name == "vars") {
            if (!(name == "globals" &&
                  (is_async_compile_wait_globals(refs, i) || is_kernel_walk_of_globals(refs, i)))) {
                add("dynamic-code", line,
                    fmt::format("`{}` exposes a namespace to rewrite or read by name; Inductor "
                                "uses only `async_compile.wait(globals())`.",
                                name));
            }
            return;
        }
        if (name == "open" || name == "breakpoint" || name == "setattr" || name == "delattr" ||
            (name == "input" && is_op(next, "("))) {
            add("call-outside-vocabulary", line,
                fmt::format("`{}` is outside what Inductor's generated code calls.", name));
            return;
        }
        if (name == "getattr") {
            check_getattr(refs, i);
            return;
        }
        const auto [chain, last] = chain_at(refs, i);
        const std::string resolved = resolve(chain);
        const std::string root = resolved.substr(0, resolved.find('.'));
        if (contains(dangerous_modules, root)) {
            const bool ctypes_type = resolved == "ctypes.c_void_p" || resolved == "ctypes.c_long" ||
                                     resolved == "ctypes.c_int";
            if (!ctypes_type) {
                add("call-outside-vocabulary", line,
                    fmt::format("`{}` uses the `{}` module, which Inductor's code imports at most "
                                "and never uses.",
                                resolved, root));
                return;
            }
        }
        // AsyncCompile (before 2.4) and CppWrapperCodeCache are imported from
        // codecache: their uses are checked below, not refused as a load.
        const bool codecache_entry_point =
            resolved == "torch._inductor.codecache.AsyncCompile" ||
            resolved.starts_with("torch._inductor.codecache.CppWrapperCodeCache");
        if (const auto prefix = code_loading_prefix(resolved); prefix && !codecache_entry_point) {
            add("call-outside-vocabulary", line,
                fmt::format("`{}` loads, compiles or runs code, which Inductor's code never does.",
                            *prefix));
            return;
        }
        const bool called = is_op(at(refs, last + 1), "(");
        if (resolved.starts_with("async_compile.") && called &&
            resolved.find('.', sizeof("async_compile")) == std::string::npos) {
            check_async_compile(refs, refs[last]->text, last + 1);
        }
        if (resolved == "torch._inductor.runtime.runtime_utils.compile_mps_shader") {
            // MPS wrappers (2.6+): `mps_lib_0 = compile_mps_shader("""...""")`.
            if (called && last == i) {
                check_kernel_sources(refs, last + 1, Embedded::Cpp, 0, "compile_mps_shader");
            } else {
                add("unaudited-kernel", line,
                    "`compile_mps_shader` compiles a Metal shader by a path the audit does not "
                    "follow.");
            }
        }
        if (resolved.ends_with(".AsyncCompile") && !is_async_compile_made(refs, i)) {
            add("unaudited-kernel", line,
                "AsyncCompile compiles kernels; Inductor only makes one, as "
                "`async_compile = AsyncCompile()`, whose calls the audit follows.");
        }
        if (resolved.starts_with("torch._inductor.codecache.CppWrapperCodeCache")) {
            if (called && last == i + 2) {
                check_cpp_wrapper_call(refs, last + 1);
            } else {
                add("unaudited-kernel", line,
                    "CppWrapperCodeCache compiles C++; Inductor only calls its methods "
                    "directly, which the audit follows.");
            }
        }
        if (name == "cpp_wrapper_src" && next != nullptr && next->kind == PyTokenKind::Op &&
            next->text != "=" && next->text.size() >= 2 && next->text.back() == '=' &&
            next->text != "==" && next->text != "!=" && next->text != "<=" && next->text != ">=") {
            add("computed-kernel-source", line,
                "`cpp_wrapper_src` is changed after it is written, so the C++ compiled from it "
                "cannot be audited.");
        }
        if (name == "cpp_wrapper_src" && statement_start(refs, i) && is_op(next, "=")) {
            // cpp_wrapper mode: the C++ wrapper's source, compiled by CppWrapperCodeCache.
            std::vector<CallArg> value{CallArg{i + 2, i + 2, {}}};
            std::size_t end = i + 2;
            while (!ends_statement(at(refs, end))) {
                ++end;
            }
            value[0].end = end;
            if (const auto literal = literal_of(refs, value[0])) {
                audit_embedded(*literal, Embedded::Cpp, line);
            } else {
                add("computed-kernel-source", line,
                    "`cpp_wrapper_src` is computed, not a literal, so the C++ compiled from it "
                    "cannot be audited.");
            }
        }
    }

    const PyTokens& tokens_;
    std::uint8_t kind_;
    int depth_;
    std::map<std::string, std::string, std::less<>> bindings_;
    std::set<std::string, std::less<>> imported_roots_; // top-level packages imported
    FindingSink findings_;
};

// ---- C++ ----

// Headers Inductor's C++ includes (codegen/cpp.py, cpp_prefix.h, the
// pybinding glue of codecache.py, codegen/cuda): these prefixes and the C++
// standard library below.
constexpr std::string_view cpp_include_prefixes[] = {
    "ATen/", "c10/", "torch/", "cutlass/", "cute/", "cuda/", "cub/",
};
constexpr std::string_view cpp_include_headers[] = {
    "omp.h",
    "immintrin.h",
    "arm_neon.h",
    "arm_sve.h",
    "Python.h",
    // cpp_wrapper's pybinding glue (2.6)
    "pybind11/pybind11.h",
    "sleef.h",
    "metal_stdlib",
    "cuda.h",
    "cuda_runtime.h",
    "cuda_fp16.h",
    "cuda_bf16.h",
    "hip/hip_runtime.h",
    // cpp_wrapper_gpu.py (2.6) loads its cubins by path; the audit refuses
    // what runs code (below), and <cstdio> already reaches files.
    "filesystem",
    // C++ standard library headers (not the POSIX ones)
    "algorithm",
    "array",
    "atomic",
    "bit",
    "bitset",
    "cassert",
    "cerrno",
    "cfloat",
    "chrono",
    "cinttypes",
    "climits",
    "cmath",
    "complex",
    "cstddef",
    "cstdint",
    "cstdio",
    "cstdlib",
    "cstring",
    "deque",
    "exception",
    "functional",
    "initializer_list",
    "iomanip",
    "iostream",
    "iterator",
    "limits",
    "list",
    "map",
    "memory",
    "mutex",
    "new",
    "numeric",
    "optional",
    "ostream",
    "set",
    "sstream",
    "stdexcept",
    "string",
    "string_view",
    "tuple",
    "type_traits",
    "typeinfo",
    "unordered_map",
    "unordered_set",
    "utility",
    "variant",
    "vector",
    "float.h",
    "limits.h",
    "math.h",
    "stddef.h",
    "stdint.h",
    "stdlib.h",
    "string.h",
    "assert.h",
};

constexpr std::string_view cpp_dangerous_calls[] = {
    "system",
    "popen",
    "_popen",
    "_wpopen",
    "_wsystem",
    "dlopen",
    "dlmopen",
    "dlsym",
    "fork",
    "vfork",
    "clone",
    "execl",
    "execle",
    "execlp",
    "execv",
    "execve",
    "execvp",
    "execvpe",
    "fexecve",
    "syscall",
    "posix_spawn",
    "posix_spawnp",
    "ptrace",
    "mprotect",
    "LoadLibraryA",
    "LoadLibraryW",
    "LoadLibraryExA",
    "LoadLibraryExW",
    "GetProcAddress",
    "CreateProcessA",
    "CreateProcessW",
    "ShellExecuteA",
    "ShellExecuteW",
    "WinExec",
    "Py_CompileString",
    "Py_CompileStringExFlags",
    "Py_CompileStringObject",
    // attributes that bind a function to another symbol named by a string
    "alias",
    "__alias__",
    "weakref",
    "__weakref__",
    "ifunc",
    "__ifunc__",
    "symver",
    "__symver__",
};
// Python C API families that import modules or run Python code.
constexpr std::string_view cpp_dangerous_prefixes[] = {
    "PyRun_",
    "PyImport_",
    "PyEval_",
    "PyMarshal_",
};

// `#include "<cache dir>/<xx>/c<hash>.h"`: the copy of cpp_prefix.h that
// Inductor 2.1 to 2.6 wrote into its cache dir, named by the hash of its
// text, and included by absolute path (a Windows one too). The copy is a file
// of the cache, audited as C++ on its own.
bool is_cpp_prefix_copy(std::string_view written) {
    // A Windows path in a C string doubles its backslashes.
    std::string path(written);
    for (std::size_t at; (at = path.find("\\\\")) != std::string::npos;) {
        path.erase(at, 1);
    }
    const std::string_view header = path;
    const std::size_t slash = header.find_last_of("/\\");
    if (slash == std::string_view::npos || slash < 3 ||
        (header.front() != '/' && header.find(":\\") != 1 && header.find(":/") != 1)) {
        return false;
    }
    const std::string_view name = header.substr(slash + 1);
    const std::string_view shard = header.substr(slash - 2, 2);
    const char before = header[slash - 3];
    return (before == '/' || before == '\\') && name.size() == 54 && name.starts_with('c') &&
           name.ends_with(".h") && shard == name.substr(1, 2) &&
           std::ranges::all_of(name.substr(1, 51), [](char c) {
               return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7');
           });
}

bool cpp_include_allowed(std::string_view header) {
    if (header.find("..") != std::string_view::npos) {
        return false;
    }
    if (is_cpp_prefix_copy(header)) {
        return true;
    }
    return contains(cpp_include_headers, header) ||
           std::ranges::any_of(cpp_include_prefixes,
                               [&](std::string_view prefix) { return header.starts_with(prefix); });
}

bool cpp_ident_start(unsigned char c) {
    return std::isalpha(c) != 0 || c == '_' || c >= 0x80;
}
bool cpp_ident_char(unsigned char c) {
    return cpp_ident_start(c) || std::isdigit(c) != 0;
}

std::vector<RawFinding> audit_cpp_raw(std::string_view source) {
    // Translation phase 2: backslash-newline splices lines before anything
    // else reads them (so `sys\<newline>tem` is `system`).
    std::string text;
    text.reserve(source.size());
    std::vector<std::size_t> line_breaks; // text offsets where a new line starts
    for (std::size_t i = 0; i < source.size(); ++i) {
        const char c = source[i];
        if (c == '\\') {
            std::size_t after = i + 1;
            if (after < source.size() && source[after] == '\r') {
                ++after;
            }
            if (after < source.size() && source[after] == '\n') {
                line_breaks.push_back(text.size());
                i = after;
                continue;
            }
        }
        if (c == '\r' && i + 1 < source.size() && source[i + 1] == '\n') {
            continue;
        }
        text += c == '\r' ? '\n' : c;
        if (text.back() == '\n') {
            line_breaks.push_back(text.size());
        }
    }
    auto line_of = [&](std::size_t offset) {
        return 1 + static_cast<std::size_t>(
                       std::upper_bound(line_breaks.begin(), line_breaks.end(), offset) -
                       line_breaks.begin());
    };

    FindingSink findings;
    const std::size_t n = text.size();
    bool line_start = true;
    auto skip_quoted = [&](std::size_t i, char quote) {
        ++i;
        while (i < n && text[i] != quote && text[i] != '\n') {
            i += text[i] == '\\' ? 2 : 1;
        }
        return std::min(i + 1, n);
    };
    for (std::size_t i = 0; i < n;) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\n') {
            line_start = true;
            ++i;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\f' || c == '\v') {
            ++i;
            continue;
        }
        if (c == '/' && i + 1 < n && text[i + 1] == '/') {
            while (i < n && text[i] != '\n') {
                ++i;
            }
            continue;
        }
        if (c == '/' && i + 1 < n && text[i + 1] == '*') {
            const std::size_t end = text.find("*/", i + 2);
            i = end == std::string::npos ? n : end + 2;
            continue;
        }
        // `%:` is the digraph of `#` (and `%:%:` of `##`).
        const bool hash = c == '#' || (c == '%' && i + 1 < n && text[i + 1] == ':');
        const std::size_t hash_size = c == '#' ? 1 : 2;
        if (hash && line_start) {
            line_start = false;
            std::size_t k = i + hash_size;
            while (k < n && (text[k] == ' ' || text[k] == '\t')) {
                ++k;
            }
            std::size_t word_end = k;
            while (word_end < n && cpp_ident_char(static_cast<unsigned char>(text[word_end]))) {
                ++word_end;
            }
            const std::string_view directive(text.data() + k, word_end - k);
            i = word_end;
            if (directive == "include" || directive == "include_next" || directive == "import" ||
                directive == "embed") {
                const std::size_t line = line_of(k);
                while (i < n && (text[i] == ' ' || text[i] == '\t')) {
                    ++i;
                }
                const char open = i < n ? text[i] : '\0';
                const char close = open == '<' ? '>' : open == '"' ? '"' : '\0';
                const std::size_t end = close == '\0' ? std::string::npos : text.find(close, i + 1);
                if (end == std::string::npos ||
                    text.substr(i + 1, end - i - 1).find('\n') != std::string::npos) {
                    findings.add("cpp-include", line,
                                 "An #include whose header is computed by a macro cannot be "
                                 "checked against what Inductor includes.");
                    continue;
                }
                const std::string header = text.substr(i + 1, end - i - 1);
                if (!cpp_include_allowed(header)) {
                    findings.add(
                        "cpp-include", line,
                        fmt::format("Inductor's C++ never includes <{}>: its declarations give "
                                    "access outside the kernel's arrays.",
                                    header));
                }
                i = end + 1;
            }
            continue;
        }
        line_start = false;
        if (hash && text.compare(i + hash_size, hash_size, text, i, hash_size) == 0) {
            findings.add("cpp-obfuscation", line_of(i),
                         "Token pasting (`##`) can spell a name this audit would refuse; "
                         "Inductor's kernels never paste tokens.");
            i += 2 * hash_size;
            continue;
        }
        if (c == '"' || c == '\'') {
            i = skip_quoted(i, static_cast<char>(c));
            continue;
        }
        if (cpp_ident_start(c)) {
            const std::size_t start = i;
            while (i < n && cpp_ident_char(static_cast<unsigned char>(text[i]))) {
                ++i;
            }
            const std::string_view word(text.data() + start, i - start);
            if (i < n && text[i] == '"' &&
                (word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR")) {
                // A raw string: R"delim( ... )delim".
                const std::size_t paren = text.find('(', i + 1);
                if (paren == std::string::npos || paren - i - 1 > 16) {
                    i = n;
                    continue;
                }
                const std::string terminator = ")" + text.substr(i + 1, paren - i - 1) + "\"";
                const std::size_t end = text.find(terminator, paren + 1);
                i = end == std::string::npos ? n : end + terminator.size();
                continue;
            }
            if (i < n && (text[i] == '"' || text[i] == '\'') &&
                (word == "u8" || word == "u" || word == "U" || word == "L")) {
                i = skip_quoted(i, text[i]);
                continue;
            }
            const std::size_t line = line_of(start);
            if (!is_ascii(word)) {
                findings.add("cpp-obfuscation", line,
                             "A non-ASCII identifier can stand for a name this audit would "
                             "refuse; Inductor writes ASCII only.");
            } else if (word == "asm" || word == "__asm__" || word == "__asm") {
                findings.add("inline-asm", line,
                             "Inline assembly runs arbitrary machine code; Inductor's C++ "
                             "has none outside the ATen headers it includes.");
            } else if (contains(cpp_dangerous_calls, word) ||
                       std::ranges::any_of(cpp_dangerous_prefixes, [&](std::string_view prefix) {
                           return word.starts_with(prefix);
                       })) {
                findings.add(
                    "cpp-call", line,
                    fmt::format("`{}` starts processes, loads libraries or runs code, which "
                                "Inductor's C++ never does.",
                                word));
            }
            continue;
        }
        if (std::isdigit(c) != 0 ||
            (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(text[i + 1])) != 0)) {
            // A preprocessing number, digit separators and exponents included.
            ++i;
            while (i < n) {
                const auto d = static_cast<unsigned char>(text[i]);
                if ((d == '+' || d == '-') &&
                    std::string_view("eEpP").find(text[i - 1]) != std::string_view::npos) {
                    ++i;
                } else if (cpp_ident_char(d) || d == '.' ||
                           (d == '\'' && i + 1 < n &&
                            cpp_ident_char(static_cast<unsigned char>(text[i + 1])))) {
                    ++i;
                } else {
                    break;
                }
            }
            continue;
        }
        if (c == '\\') {
            findings.add("cpp-obfuscation", line_of(i),
                         "A backslash outside a literal (a universal character name) can "
                         "spell a name this audit would refuse.");
        }
        ++i;
    }
    return findings.take();
}

} // namespace

Result<std::vector<Finding>> audit_python(std::string_view source, std::string_view file,
                                          PythonCode kind) {
    auto tokens = tokenize_python(source);
    if (!tokens) {
        return std::unexpected(tokens.error().at(file));
    }
    return place(PythonAuditor(*tokens, bit_of(kind), 0).run(), source, file);
}

std::vector<Finding> audit_cpp(std::string_view source, std::string_view file) {
    return place(audit_cpp_raw(source), source, file);
}

namespace {

// What Dynamo's code never names: the system, imports, dynamic code and the
// interpreter's internals (a precompiled function's bytecode, its shape guards).
bool is_refused_code_name(std::string_view name) {
    static const std::set<std::string_view> refused{"os",
                                                    "sys",
                                                    "subprocess",
                                                    "system",
                                                    "popen",
                                                    "Popen",
                                                    "spawnv",
                                                    "spawnve",
                                                    "spawnl",
                                                    "execv",
                                                    "execve",
                                                    "execl",
                                                    "execvp",
                                                    "fork",
                                                    "kill",
                                                    "remove",
                                                    "unlink",
                                                    "rmdir",
                                                    "rmtree",
                                                    "shutil",
                                                    "socket",
                                                    "ctypes",
                                                    "cffi",
                                                    "pickle",
                                                    "marshal",
                                                    "importlib",
                                                    "import_module",
                                                    "__import__",
                                                    "exec",
                                                    "eval",
                                                    "compile",
                                                    "open",
                                                    "builtins",
                                                    "__builtins__",
                                                    "globals",
                                                    "locals",
                                                    "vars",
                                                    "setattr",
                                                    "delattr",
                                                    "getattr",
                                                    "check_output",
                                                    "check_call",
                                                    "urlopen",
                                                    "urllib",
                                                    "requests",
                                                    "pty",
                                                    "runpy",
                                                    "code",
                                                    "__globals__",
                                                    "__code__",
                                                    "__subclasses__",
                                                    "__reduce__",
                                                    "__dict__",
                                                    "__class__",
                                                    "__bases__",
                                                    "__mro__",
                                                    "__closure__",
                                                    "__getattribute__",
                                                    "__loader__",
                                                    "__spec__"};
    return refused.contains(name);
}

} // namespace

std::vector<Finding> audit_code_names(std::span<const std::string_view> names,
                                      std::string_view file) {
    std::vector<Finding> out;
    std::set<std::string_view> reported;
    for (const auto name : names) {
        if (is_refused_code_name(name) && reported.insert(name).second) {
            out.push_back(make_finding(
                "bytecode-name", std::string(file), 0, std::string(name),
                "the bytecode names '" + std::string(name) +
                    "': PyTorch runs this code on every call, and Dynamo's bytecode never "
                    "reaches the system, imports, dynamic code or the interpreter's internals"));
        }
    }
    return out;
}

std::vector<Finding> audit_import(std::string_view module, std::string_view own_module,
                                  std::string_view file) {
    const auto within = [&](std::string_view root) {
        return module == root || (module.starts_with(root) && module.size() > root.size() &&
                                  module[root.size()] == '.');
    };
    // __main__ is the program already running: importing it runs nothing new.
    if (within("torch") || within("triton") || module == "__main__" ||
        (!own_module.empty() && module == own_module)) {
        return {};
    }
    return {make_finding("foreign-import", std::string(file), 0, "import " + std::string(module),
                         "loading imports " + std::string(module) +
                             ", neither PyTorch's, Triton's, the running program's (__main__) nor "
                             "the function's own module: "
                             "importing a module runs its code")};
}

std::vector<Finding> audit_shape_guard(std::string_view expression, std::string_view file) {
    // What Dynamo's shape guards are made of: L[...] and G[...] lookups, size,
    // stride, storage_offset, numbers, comparisons, arithmetic and sympy's
    // helpers. A name outside it, a dunder or a string other than a local's
    // or global's name is code of another kind.
    static const std::set<std::string_view> words{"L",
                                                  "G",
                                                  "size",
                                                  "stride",
                                                  "storage_offset",
                                                  "numel",
                                                  "dim",
                                                  "and",
                                                  "or",
                                                  "not",
                                                  "True",
                                                  "False",
                                                  "None",
                                                  "int",
                                                  "float",
                                                  "math",
                                                  "floor",
                                                  "ceil",
                                                  "sqrt",
                                                  "abs",
                                                  "max",
                                                  "min",
                                                  "Max",
                                                  "Min",
                                                  "Eq",
                                                  "Ne",
                                                  "Mod",
                                                  "FloorDiv",
                                                  "CleanDiv",
                                                  "PythonMod",
                                                  "FloorToInt",
                                                  "CeilToInt",
                                                  "TruncToInt",
                                                  "IntTrueDiv",
                                                  "FloatTrueDiv",
                                                  "ToFloat",
                                                  "pow",
                                                  "Pow",
                                                  "is_contiguous",
                                                  "in",
                                                  "is",
                                                  "len",
                                                  "_modules",
                                                  "_parameters",
                                                  "_buffers",
                                                  "___as_tensor",
                                                  "item",
                                                  "shape",
                                                  "Sym",
                                                  "sym_size",
                                                  "sym_stride",
                                                  "sym_numel",
                                                  "sym_storage_offset",
                                                  "isinstance",
                                                  "tuple",
                                                  "list",
                                                  "builtins_float",
                                                  "PythonMod"};
    const auto finding = [&](std::string why) {
        return std::vector<Finding>{make_finding("shape-guard-code", std::string(file), 0,
                                                 std::string(expression), std::move(why))};
    };
    auto tokens = tokenize_python(expression);
    if (!tokens) {
        return finding("the shape guard does not read as Python (" + tokens.error().message +
                       "): PyTorch compiles this expression into the guard on load");
    }
    const auto& list = tokens->tokens;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const PyToken& token = list[i];
        if (token.kind == PyTokenKind::String && token.field_end > token.field_begin) {
            return finding("the shape guard holds an f-string: code PyTorch would run");
        }
        if (token.kind != PyTokenKind::Name) {
            continue;
        }
        const std::string_view word = token.text;
        if (word.starts_with("__")) {
            return finding("the shape guard reaches a dunder ('" + std::string(word) +
                           "'): PyTorch compiles this expression into the guard on load");
        }
        // An attribute (after '.') is a tensor's method or a module's
        // member; a sympy symbol (s0, u3) a size; anything else must be known.
        const bool attribute =
            i > 0 && list[i - 1].kind == PyTokenKind::Op && list[i - 1].text == ".";
        const bool symbol = word.size() > 1 && (word[0] == 's' || word[0] == 'u') &&
                            std::ranges::all_of(word.substr(1), [](char d) {
                                return std::isdigit(static_cast<unsigned char>(d));
                            });
        if (attribute && is_refused_code_name(word)) {
            return finding("the shape guard reaches '" + std::string(word) +
                           "': PyTorch compiles this expression into the guard on load, and "
                           "shape guards only compare sizes");
        }
        if (!attribute && !symbol && !words.contains(word)) {
            return finding("the shape guard names '" + std::string(word) +
                           "': PyTorch compiles this expression into the guard on load, and "
                           "shape guards only compare sizes");
        }
    }
    return {};
}

Result<std::vector<Finding>> audit_cache_file(std::string_view text,
                                              std::string_view relative_path) {
    if (relative_path.ends_with(".py")) {
        const bool wrapper = text.find("async_compile = AsyncCompile()") != std::string_view::npos;
        return audit_python(text, relative_path,
                            wrapper ? PythonCode::InductorWrapper : PythonCode::TritonKernel);
    }
    if (relative_path.ends_with(".cpp") || relative_path.ends_with(".h") ||
        relative_path.ends_with(".cu") || relative_path.ends_with(".hip") ||
        relative_path.ends_with(".metal")) {
        return audit_cpp(text, relative_path);
    }
    return std::vector<Finding>{};
}

} // namespace cachelens::safety
