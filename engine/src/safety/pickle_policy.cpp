#include "pickle_policy_table.h"

#include <cachelens/pickle/repr.h>
#include <cachelens/pickle/unpickler.h>
#include <cachelens/safety/pickle_policy.h>
#include <cachelens/safety/python_tokens.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <set>
#include <unordered_set>
#include <utility>
#include <vector>

namespace cachelens::safety {

using pickle::Construction;
using pickle::Kind;
using pickle::Value;

std::string_view to_string(GlobalRole role) {
    switch (role) {
    case GlobalRole::Built:
        return "built";
    case GlobalRole::Record:
        return "record";
    case GlobalRole::Enum:
        return "enum";
    case GlobalRole::Callable:
        return "callable";
    case GlobalRole::Constant:
        return "constant";
    case GlobalRole::CodePath:
        return "code path";
    case GlobalRole::Refused:
        return "refused";
    }
    return "unknown";
}

namespace {

bool before(const PolicyRow& a, const PolicyRow& b) {
    return std::pair(a.module, a.name) < std::pair(b.module, b.name);
}

const std::vector<PolicyRow>& sorted_rows() {
    static const std::vector<PolicyRow> rows = [] {
        std::vector<PolicyRow> all(table::rows().begin(), table::rows().end());
        std::ranges::sort(all, before);
        return all;
    }();
    return rows;
}

} // namespace

std::span<const PolicyRow> pickle_policy() {
    return sorted_rows();
}

const PolicyRow* find_policy_row(std::string_view module, std::string_view name) {
    const auto& rows = sorted_rows();
    const auto it = std::ranges::lower_bound(
        rows, std::pair(module, name), std::less{},
        [](const PolicyRow& row) { return std::pair(row.module, row.name); });
    if (it == rows.end() || it->module != module || it->name != name) {
        return nullptr;
    }
    return &*it;
}

namespace {

bool allowed_in(const PolicyRow& row, PickleSchema schema) {
    switch (schema) {
    case PickleSchema::Entry:
        return row.in_entry;
    case PickleSchema::Pgo:
        return row.in_pgo;
    case PickleSchema::CacheValue:
        return row.in_value;
    case PickleSchema::Precompile:
        return row.in_entry || row.in_precompile;
    }
    return false;
}

std::string_view schema_name(PickleSchema schema) {
    switch (schema) {
    case PickleSchema::Entry:
        return "a cache entry";
    case PickleSchema::Pgo:
        return "a PGO profile";
    case PickleSchema::CacheValue:
        return "a value of torch/_inductor/cache.py's caches";
    case PickleSchema::Precompile:
        return "a precompiled function";
    }
    return "this pickle";
}

// Where a row is allowed, for a message on a use where it is not.
std::string where_allowed(const PolicyRow& row) {
    std::string out;
    for (const auto& [allowed, name] :
         {std::pair{row.in_entry, "cache entries"}, std::pair{row.in_pgo, "PGO profiles"},
          std::pair{row.in_value, "cache.py values"},
          std::pair{row.in_precompile, "precompiled functions"}}) {
        if (allowed) {
            out += (out.empty() ? "" : " and ") + std::string(name);
        }
    }
    return out.empty() ? "nothing" : out;
}

// Deeper than any document the unpickler builds (its limit is 512), so only a
// walk through args and state past that stops here.
constexpr std::size_t kMaxDepth = 2048;

bool is_scalar(const Value* v) {
    switch (v->kind()) {
    case Kind::None:
    case Kind::Bool:
    case Kind::Int:
    case Kind::BigInt:
    case Kind::Float:
    case Kind::Str:
    case Kind::Bytes:
        return true;
    default:
        return false;
    }
}

bool is_class_role(GlobalRole role) {
    return role == GlobalRole::Built || role == GlobalRole::Record || role == GlobalRole::Enum;
}

std::span<Value* const> tuple_items(const Value* args) {
    if (args == nullptr || !args->is(Kind::Tuple)) {
        return {};
    }
    return args->items();
}

std::string construction_name(Construction how) {
    switch (how) {
    case Construction::Reduce:
        return "REDUCE";
    case Construction::NewObj:
        return "NEWOBJ";
    case Construction::NewObjEx:
        return "NEWOBJ_EX";
    case Construction::Inst:
        return "INST";
    case Construction::Obj:
        return "OBJ";
    }
    return "REDUCE";
}

std::string shown(const Value& value) {
    pickle::ReprOptions options;
    options.max_depth = 3;
    options.max_items = 8;
    options.max_string = 80;
    options.max_length = 240;
    options.qualified_names = true;
    return pickle::repr(value, options);
}

// ---- Field shapes ----------------------------------------------------------
//
// Some classes the table allows carry fields PyTorch later turns into Python
// it execs (generated AOTAutograd wrappers, static Triton launchers, grid
// expressions) or that switch it onto a path that runs code. Each such field
// must have the shape PyTorch itself writes there (docs/SECURITY.md, "Field
// shapes").

enum class FieldShape : std::uint8_t {
    Indices,      // None, an int (or bool), or lists/tuples/sets of those, nested
    Identifier,   // a plain Python identifier
    Identifiers,  // a list/tuple of plain identifiers
    FalseFlag,    // absent, None or False
    NoneOnly,     // absent or None
    InductorMeta, // a dict: its grid fields (grid_type, fixed_grid, ...) checked
    CompileMeta,  // a dict: its `constants` values plain
    TritonConfig, // a triton Config's kwargs: block sizes ints
    NestedPickle, // absent, None, or bytes checked as a pickle under the same policy
};

struct FieldRule {
    std::string_view cls; // the class name (its module is checked by the table)
    std::string_view field;
    FieldShape shape;
    std::string_view why;
};

constexpr std::string_view kWrapperCodeWhy =
    "PyTorch interpolates this field into the Python source of the AOTAutograd runtime wrappers "
    "it generates and execs, so anything but the ints it writes is code it would run";
constexpr std::string_view kLauncherWhy =
    "PyTorch joins these names into the Python source of the kernel launcher it generates and "
    "execs, so anything but a plain identifier is code it would run";
constexpr std::string_view kInductorMetaWhy =
    "PyTorch builds the kernel launcher's Python source from these grid expressions and launcher "
    "arguments and execs it, so anything beyond the arithmetic Inductor writes is code it would "
    "run";
constexpr std::string_view kConstantsWhy =
    "PyTorch writes a str constant into the generated launcher inside r'...' without escaping, "
    "so a quote, backslash or line break there ends the string and the rest is code";
constexpr std::string_view kConfigWhy =
    "PyTorch interpolates the block sizes of a kernel's config into the launcher's grid "
    "expression, so anything but an int there is code it would run";
constexpr std::string_view kInterpretWhy =
    "triton_interpret=True sends CachingAutotuner.run into Triton's JITFunction.run, which execs "
    "a binder generated from the pickled signature; PyTorch writes False unless TRITON_INTERPRET "
    "was set when it compiled";
constexpr std::string_view kDumpWhy =
    "the dump_launch flags make every kernel launch write files beside the running program; "
    "PyTorch writes False unless the environment asked for it when it compiled";
constexpr std::string_view kJitFnWhy =
    "with JITFunction.fn set, Triton compiles that function again from source when PyTorch "
    "recompiles the kernel; PyTorch clears it before it pickles the kernel";
constexpr std::string_view kKernelNameWhy =
    "PyTorch names the kernel's cubin file after this field and writes the pickled cubin bytes "
    "there, so a path in it chooses where the file is written";
constexpr std::string_view kNestedPickleWhy =
    "PyTorch unpickles these bytes with GraphPickler in post_compile: a second pickle, checked "
    "under the same policy";

constexpr std::array kFieldRules{
    // AOTAutograd runtime wrappers (main generates them as Python).
    FieldRule{"AOTSyntheticBaseWrapper", "base_groups", FieldShape::Indices, kWrapperCodeWhy},
    FieldRule{"AOTSyntheticBaseWrapper", "other_arg_indices", FieldShape::Indices, kWrapperCodeWhy},
    FieldRule{"AOTSyntheticBaseWrapper", "aliased_arg_idx_with_metadata_mutations",
              FieldShape::Indices, kWrapperCodeWhy},
    FieldRule{"AOTDedupeWrapper", "keep_arg_mask", FieldShape::Indices, kWrapperCodeWhy},
    FieldRule{"AOTDedupeWrapper", "add_dupe_map", FieldShape::Indices, kWrapperCodeWhy},
    FieldRule{"AOTAutogradResult", "indices_of_inps_to_detach", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"AOTAutogradResult", "num_fw_outs_saved_for_bw", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"AOTAutogradCacheEntry", "indices_of_inps_to_detach", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"GenericAOTAutogradCacheEntry", "indices_of_inps_to_detach", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"CompiledBackward", "backward_state_indices", FieldShape::Indices, kWrapperCodeWhy},
    FieldRule{"CompiledBackward", "num_symints_saved_for_bw_", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"OutputAliasInfo", "base_idx", FieldShape::Indices, kWrapperCodeWhy},
    FieldRule{"PlainTensorMeta", "unwrapped_idx", FieldShape::Indices, kWrapperCodeWhy},
    // ViewAndMutationMeta: unpickling skips __post_init__, so the derived
    // fields are pickled values too.
    FieldRule{"ViewAndMutationMeta", "num_intermediate_bases", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "static_input_indices", FieldShape::Indices, kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "indices_of_inputs_that_requires_grad_with_mutations_in_bw",
              FieldShape::Indices, kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "bw_donated_idxs", FieldShape::Indices, kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "num_symints_saved_for_bw", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "num_tensors_saved_with_no_vc_check", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "num_opaque_objects_saved_for_bw", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "num_backward_tokens", FieldShape::Indices, kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "num_graphsafe_rng_states", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "graphsafe_rng_state_index", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "mutated_inp_stream_indices", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "mutated_graph_handled_indices", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "num_mutated_graph_handled_indices", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "mutated_graph_handled_indices_seen_by_autograd",
              FieldShape::Indices, kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "num_mutated_graph_handled_indices_seen_by_autograd",
              FieldShape::Indices, kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "mutated_inp_runtime_indices", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "num_mutated_inp_runtime_indices", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "aliased_out_indices", FieldShape::Indices, kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "unsafe_view_out_indices", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "num_outputs", FieldShape::Indices, kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "num_outputs_non_aliased", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "num_outputs_aliased_to_inputs", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "num_unsafe_view_outputs", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "num_outputs_aliased_to_intermediates", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "num_outputs_aliased", FieldShape::Indices, kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "num_outputs_rng_offset", FieldShape::Indices,
              kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "num_forward_returns", FieldShape::Indices, kWrapperCodeWhy},
    FieldRule{"ViewAndMutationMeta", "num_forward", FieldShape::Indices, kWrapperCodeWhy},
    // Static Triton launchers.
    FieldRule{"StaticallyLaunchedCudaKernel", "arg_names", FieldShape::Identifiers, kLauncherWhy},
    FieldRule{"StaticallyLaunchedCudaKernel", "name", FieldShape::Identifier, kKernelNameWhy},
    FieldRule{"StaticallyLaunchedXpuKernel", "arg_names", FieldShape::Identifiers, kLauncherWhy},
    FieldRule{"StaticallyLaunchedXpuKernel", "name", FieldShape::Identifier, kKernelNameWhy},
    FieldRule{"JITFunction", "arg_names", FieldShape::Identifiers, kLauncherWhy},
    FieldRule{"JITFunction", "fn", FieldShape::NoneOnly, kJitFnWhy},
    FieldRule{"StaticTritonCompileResult", "inductor_meta", FieldShape::InductorMeta,
              kInductorMetaWhy},
    FieldRule{"StaticTritonCompileResult", "compile_meta", FieldShape::CompileMeta, kConstantsWhy},
    FieldRule{"Config", "kwargs", FieldShape::TritonConfig, kConfigWhy},
    FieldRule{"InductorConfig", "kwargs", FieldShape::TritonConfig, kConfigWhy},
    // Autotuners: state that steers run().
    FieldRule{"CachingAutotuner", "inductor_meta", FieldShape::InductorMeta, kInductorMetaWhy},
    FieldRule{"CachingAutotuner", "triton_interpret", FieldShape::FalseFlag, kInterpretWhy},
    FieldRule{"CachingAutotuner", "dump_launch_params", FieldShape::FalseFlag, kDumpWhy},
    FieldRule{"CachingAutotuner", "dump_launch_tensors", FieldShape::FalseFlag, kDumpWhy},
    FieldRule{"DebugAutotuner", "inductor_meta", FieldShape::InductorMeta, kInductorMetaWhy},
    FieldRule{"DebugAutotuner", "triton_interpret", FieldShape::FalseFlag, kInterpretWhy},
    FieldRule{"DebugAutotuner", "dump_launch_params", FieldShape::FalseFlag, kDumpWhy},
    FieldRule{"DebugAutotuner", "dump_launch_tensors", FieldShape::FalseFlag, kDumpWhy},
    // A second pickle PyTorch loads.
    FieldRule{"CompiledFxGraph", "_serialized_original_gm", FieldShape::NestedPickle,
              kNestedPickleWhy},
};

// The modules whose classes kFieldRules names: a class of the same name
// elsewhere (triton.Config is not torch's) is not checked here.
bool in_field_rule_module(std::string_view module) {
    return module.starts_with("torch.") || module.starts_with("triton.");
}

bool is_python_keyword(std::string_view name) {
    static constexpr std::array<std::string_view, 35> keywords{
        "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
        "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
        "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
        "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
    return std::ranges::find(keywords, name) != keywords.end();
}

// ASCII letters, digits and `_`, not starting with a digit, not a keyword,
// not a dunder (or any `__` name): what Inductor names arguments and kernels.
bool is_plain_identifier(std::string_view name) {
    if (name.empty() || (name[0] >= '0' && name[0] <= '9') || name.starts_with("__") ||
        is_python_keyword(name)) {
        return false;
    }
    return std::ranges::all_of(name, [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_';
    });
}

// A Python grid expression as Inductor writes it (GridExpr: ceildiv as
// `-((xnumel) // -(XBLOCK))`, `max(...)`, sums, `(...) * n`, sympy-printed
// sizes): only names, int literals, arithmetic operators, parentheses and
// commas, and calls of max/min. No attribute, subscript, string, keyword or
// other call.
bool is_grid_expression(std::string_view text) {
    if (text.empty() || text.find_first_of("\r\n\\;") != std::string_view::npos) {
        return false;
    }
    const auto tokens = tokenize_python(text);
    if (!tokens) {
        return false;
    }
    static constexpr std::array<std::string_view, 10> operators{"(", ")",  "+", "-",  "*",
                                                                "/", "//", "%", "**", ","};
    const auto& list = tokens->tokens;
    std::size_t meaningful = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const PyToken& token = list[i];
        switch (token.kind) {
        case PyTokenKind::Newline:
        case PyTokenKind::Nl:
        case PyTokenKind::EndMarker:
            continue;
        case PyTokenKind::Number:
            if (!std::ranges::all_of(token.text,
                                     [](char c) { return (c >= '0' && c <= '9') || c == '_'; })) {
                return false;
            }
            break;
        case PyTokenKind::Name: {
            if (!is_plain_identifier(token.text)) {
                return false;
            }
            const bool called = i + 1 < list.size() && list[i + 1].kind == PyTokenKind::Op &&
                                list[i + 1].text == "(";
            if (called && token.text != "max" && token.text != "min") {
                return false;
            }
            break;
        }
        case PyTokenKind::Op:
            if (std::ranges::find(operators, token.text) == operators.end()) {
                return false;
            }
            break;
        default:
            return false;
        }
        ++meaningful;
    }
    return meaningful > 0;
}

// A C++ grid expression (PrecomputedGrid's "cpp" entries: `((xnumel + 1023L)
// / 1024L)`, `std::max(a, b)`): letters, digits, `_`, spaces, arithmetic,
// parentheses, commas and `::`; nothing that ends a statement or starts a
// string, comment or preprocessor line.
bool is_cpp_grid_expression(std::string_view text) {
    return !text.empty() && std::ranges::all_of(text, [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == ' ' || c == '+' || c == '-' || c == '*' || c == '/' || c == '%' ||
               c == '(' || c == ')' || c == ',' || c == ':';
    });
}

// The first value inside `value` that is not an index, for the message.
// Each (sequence, depth) is walked once: the memo lets one list appear many
// times in another, and walking every path through nine levels of such
// lists would take exponential time.
const Value* first_non_index(const Value* value, std::size_t depth,
                             std::set<std::pair<const Value*, std::size_t>>& walked) {
    if (value == nullptr || value->is_none() || value->is_int()) {
        return nullptr;
    }
    if (depth <= 8 && value->is_sequence()) {
        if (!walked.emplace(value, depth).second) {
            return nullptr; // walked before at this depth, and all indices: a bad one ends the walk
        }
        for (const Value* item : value->items()) {
            if (const Value* bad = first_non_index(item, depth + 1, walked)) {
                return bad;
            }
        }
        return nullptr;
    }
    return value;
}

const Value* first_non_index(const Value* value) {
    std::set<std::pair<const Value*, std::size_t>> walked;
    return first_non_index(value, 0, walked);
}

std::string kind_phrase(const Value& value) {
    switch (value.kind()) {
    case Kind::Str:
        return "a str";
    case Kind::Bytes:
        return "bytes";
    case Kind::Float:
        return "a float";
    case Kind::Dict:
        return "a dict";
    case Kind::Object:
        return "an object";
    case Kind::Global:
        return "a global";
    default:
        return "a " + std::string(pickle::to_string(value.kind()));
    }
}

// How deep pickles nested in pickles are followed.
constexpr std::size_t kMaxNestedPickles = 2;

class Walker {
public:
    explicit Walker(PickleSchema schema, std::size_t nesting = 0)
        : schema_(schema)
        , nesting_(nesting) {}

    void visit(const Value* value, std::size_t depth) {
        if (value == nullptr) {
            return;
        }
        if (depth > kMaxDepth) {
            report("pickle-depth", "nested deeper than " + std::to_string(kMaxDepth),
                   "the pickle nests deeper than any PyTorch entry; the rest was not checked");
            return;
        }
        switch (value->kind()) {
        case Kind::Global:
            check_named_as_data(*value);
            return;
        case Kind::Extension:
            report_extension(*value);
            return;
        case Kind::PersistentId:
            // save_compiled_function's external_data (2.11): load hands the
            // caller's own objects back by these names; it builds nothing.
            if (schema_ == PickleSchema::Precompile && value->persistent_id() != nullptr &&
                value->persistent_id()->is_str()) {
                return;
            }
            report("pickle-persistent-id", "PERSID " + shown(*value->persistent_id()),
                   "a persistent id hands a value to the loader's persistent_load: PyTorch's "
                   "cache entries never use one");
            visit(value->persistent_id(), depth + 1);
            return;
        case Kind::List:
        case Kind::Tuple:
        case Kind::Set:
        case Kind::FrozenSet:
            if (seen_.insert(value).second) {
                for (const Value* item : value->items()) {
                    visit(item, depth + 1);
                }
            }
            return;
        case Kind::Dict:
            if (seen_.insert(value).second) {
                take_serialized_graph_module(*value);
                for (const auto& item : value->dict_items()) {
                    visit(item.key, depth + 1);
                    visit(item.value, depth + 1);
                }
            }
            return;
        case Kind::Object:
            if (seen_.insert(value).second) {
                check_object(*value, depth);
                check_fields(*value);
                visit(value->args(), depth + 1);
                visit(value->kwargs(), depth + 1);
                visit(value->state(), depth + 1);
                for (const Value* item : value->items()) {
                    visit(item, depth + 1);
                }
                for (const auto& item : value->dict_items()) {
                    visit(item.key, depth + 1);
                    visit(item.value, depth + 1);
                }
            }
            return;
        default:
            return;
        }
    }

    PickleCheck take() { return std::move(out_); }

private:
    void report(std::string rule, std::string text, std::string why) {
        if (reported_.emplace(rule, text).second) {
            out_.findings.push_back(
                make_finding(std::move(rule), "pickle", 0, std::move(text), std::move(why)));
        }
    }

    void report_extension(const Value& ext) {
        report("pickle-extension", "EXT " + std::to_string(ext.extension_code()),
               "a copyreg extension code names a global through the loading process's "
               "registry, so what it calls cannot be known from the bytes: PyTorch never "
               "uses them");
    }

    // The row for a Global allowed in this schema; reports and returns null
    // otherwise.
    const PolicyRow* allowed_row(const Value& global, const std::string& rule,
                                 const std::string& text) {
        const PolicyRow* row = find_policy_row(global.module(), global.name());
        const std::string name = global.qualified_name();
        if (row == nullptr && schema_ == PickleSchema::Precompile) {
            row = precompile_family_row(global);
        }
        if (row == nullptr && schema_ == PickleSchema::Precompile && rule == "pickle-global" &&
            !global.module().starts_with("torch") && text.starts_with("NEWOBJ")) {
            report("pickle-user-class", text,
                   name + " is a class of your program that the guards name: loading imports " +
                       std::string(global.module()) +
                       " and builds an instance with the class's own __setstate__ (PyTorch's "
                       "loader does the same); accept it only if you trust that module");
            return nullptr;
        }
        if (row == nullptr) {
            report(rule, text,
                   name + " is not a class or function PyTorch's cache entries use: "
                          "unpickling imports it and can run code");
            return nullptr;
        }
        if (row->role == GlobalRole::Refused) {
            report(rule, text, name + " is refused: " + std::string(row->why));
            return nullptr;
        }
        if (!allowed_in(*row, schema_)) {
            report(rule, text,
                   name + " belongs in " + where_allowed(*row) + ", never in " +
                       std::string(schema_name(schema_)));
            return nullptr;
        }
        return row;
    }

    // Rows for families of names the precompile schema allows whole: the
    // guard kinds (GuardBuilder.<NAME>, methods PyTorch's loader calls on
    // the live objects to rebuild each guard) and torch.nn's module classes
    // (guarded modules pickled with their __dict__; Module.__setstate__ is
    // PyTorch's).
    static const PolicyRow* precompile_family_row(const Value& global) {
        static constexpr PolicyRow guard_kind{
            .module = "torch._dynamo.guards",
            .name = "GuardBuilder.<KIND>",
            .role = GlobalRole::Constant,
            .in_entry = false,
            .in_precompile = true,
            .versions = "2.11 read",
            .why = "a guard kind: the GuardBuilder method PyTorch calls on load"};
        static constexpr PolicyRow main_class{
            .module = "__main__",
            .name = "<class>",
            .role = GlobalRole::Built,
            .in_entry = false,
            .in_precompile = true,
            .versions = "your program",
            .why = "a class of the running program that the guards name (a guarded module): "
                   "importing __main__ runs nothing new"};
        static constexpr PolicyRow nn_module{.module = "torch.nn.modules.*",
                                             .name = "<Module class>",
                                             .role = GlobalRole::Built,
                                             .in_entry = false,
                                             .in_precompile = true,
                                             .versions = "public API",
                                             .why = "a guarded torch.nn module"};
        const std::string_view module = global.module();
        const std::string_view name = global.name();
        if (module == "torch._dynamo.guards" && name.starts_with("GuardBuilder.") &&
            name.size() > 13 && std::ranges::all_of(name.substr(13), [](char c) {
                return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
            })) {
            return &guard_kind;
        }
        if (module == "__main__" && !name.empty() && name.front() != '_' &&
            name.find('.') == std::string_view::npos) {
            return &main_class;
        }
        if (module.starts_with("torch.nn.modules.") &&
            std::ranges::all_of(
                name,
                [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }) &&
            !name.empty() && name.front() >= 'A' && name.front() <= 'Z') {
            return &nn_module;
        }
        return nullptr;
    }

    // getattr(Class, 'member') whose (Class, "Class.member") has a row of its own.
    const PolicyRow* member_row(const Value* getattr_call) const {
        if (getattr_call == nullptr || !getattr_call->is(Kind::Object) ||
            getattr_call->callable() == nullptr || !getattr_call->callable()->is(Kind::Global) ||
            getattr_call->callable()->qualified_name() != "builtins.getattr") {
            return nullptr;
        }
        const auto args = tuple_items(getattr_call->args());
        if (args.size() != 2 || !args[0]->is(Kind::Global) || !args[1]->is_str()) {
            return nullptr;
        }
        const PolicyRow* row = find_policy_row(
            args[0]->module(), std::string(args[0]->name()) + "." + std::string(args[1]->text()));
        return row != nullptr && allowed_in(*row, schema_) ? row : nullptr;
    }

    void check_named_as_data(const Value& global) {
        allowed_row(global, "pickle-global", "GLOBAL " + global.qualified_name());
    }

    void check_object(const Value& object, std::size_t depth) {
        const Value* callable = object.callable();
        if (callable == nullptr) {
            return;
        }
        const Construction how = object.construction();
        const bool builds = how == Construction::NewObj || how == Construction::NewObjEx;
        const std::string text = construction_name(how) + " " + shown(object);
        if (callable->is(Kind::Extension)) {
            report_extension(*callable);
            return;
        }
        if (const PolicyRow* member = member_row(callable);
            member != nullptr && member->role == GlobalRole::Callable) {
            visit(callable, depth + 1); // the getattr itself, by the Getattr rule
            check_call(*member, object, text);
            return;
        }
        if (!callable->is(Kind::Global)) {
            report("pickle-call", text,
                   "calls the result of another operation: PyTorch's pickles only call "
                   "named classes and reviewed functions");
            visit(callable, depth + 1);
            return;
        }
        const PolicyRow* row =
            allowed_row(*callable, builds ? "pickle-global" : "pickle-call", text);
        if (row == nullptr) {
            return;
        }
        const std::string name = callable->qualified_name();
        if (builds) {
            if (!is_class_role(row->role)) {
                report("pickle-newobj", text,
                       name + " is allowed only as a " + std::string(to_string(row->role)) +
                           "; NEWOBJ would build it as a class");
            }
            return;
        }
        switch (row->role) {
        case GlobalRole::Record:
            return;
        case GlobalRole::Enum: {
            const auto args = tuple_items(object.args());
            if (args.size() != 1 || !is_scalar(args[0])) {
                report("pickle-enum", text,
                       name + " is an enum: PyTorch calls it with one plain value, never "
                              "with a class, a function or a constructed object");
            }
            return;
        }
        case GlobalRole::Built:
            report("pickle-call", text,
                   name + " is a class PyTorch only builds (NEWOBJ + BUILD); calling it "
                          "runs its constructor");
            return;
        case GlobalRole::Constant:
            report("pickle-call", text, name + " is referenced as data, never called");
            return;
        case GlobalRole::CodePath:
            take_graph_module(object.args(), text);
            return;
        case GlobalRole::Callable:
            check_call(*row, object, text);
            return;
        case GlobalRole::Refused:
            return;
        }
    }

    // A class (or, for getattr, an instance of one) the table allows building.
    bool is_allowed_class(const Value* value) {
        if (value == nullptr) {
            return false;
        }
        const Value* global = value->is(Kind::Global) ? value : nullptr;
        if (value->is(Kind::Object) && value->callable() != nullptr &&
            value->callable()->is(Kind::Global)) {
            global = value->callable();
        }
        if (global == nullptr) {
            return false;
        }
        const PolicyRow* row = find_policy_row(global->module(), global->name());
        return row != nullptr && is_class_role(row->role) && allowed_in(*row, schema_);
    }

    bool is_builtin_type(const Value* value) {
        if (value == nullptr || !value->is(Kind::Global) || value->module() != "builtins") {
            return false;
        }
        const PolicyRow* row = find_policy_row(value->module(), value->name());
        return row != nullptr &&
               (row->call == CallRule::NoArgsOrData || row->role == GlobalRole::Constant);
    }

    void check_call(const PolicyRow& row, const Value& object, const std::string& text) {
        const Value* args = object.args();
        if (args != nullptr && !args->is(Kind::Tuple)) {
            report("pickle-call", text, "the arguments of a call are not a tuple");
            return;
        }
        if (object.kwargs() != nullptr) {
            report("pickle-call", text, "a reviewed function is called with keyword arguments");
            return;
        }
        const auto items = tuple_items(args);
        const std::string name = object.callable()->qualified_name();
        switch (row.call) {
        case CallRule::None:
        case CallRule::NoArgsOrData:
            return;
        case CallRule::Getattr: {
            if (items.size() != 2) {
                report("pickle-getattr", text, "getattr takes an object and a name");
                return;
            }
            if (!items[1]->is_str()) {
                report("pickle-getattr", text,
                       "getattr with a computed name: PyTorch's pickles only name a member "
                       "with a plain string");
                return;
            }
            const std::string_view member = items[1]->text();
            if (member.starts_with("__") || member.empty()) {
                report("pickle-getattr", text,
                       "getattr of a dunder or private name reaches the object's internals "
                       "(__class__, __globals__, ...): PyTorch never pickles one");
                return;
            }
            if (!is_allowed_class(items[0]) && member_row(&object) == nullptr) {
                report("pickle-getattr", text,
                       "getattr on something that is not a class (or an instance of a class) "
                       "the policy allows");
            }
            return;
        }
        case CallRule::DefaultDict: {
            if (items.size() > 2) {
                report("pickle-call", text, "defaultdict takes a factory and a dict");
                return;
            }
            if (items.empty() || items[0]->is_none() || is_builtin_type(items[0])) {
                return;
            }
            const Value* factory = items[0];
            if (factory->is(Kind::Global) && is_allowed_class(factory)) {
                return;
            }
            if (factory->is(Kind::Object) && factory->callable() != nullptr &&
                factory->callable()->is(Kind::Global) &&
                factory->callable()->qualified_name() == "builtins.getattr") {
                return; // a bound method; the getattr itself is checked on its own
            }
            report("pickle-call", text,
                   "a defaultdict factory must be None, a builtin type, an allowed class or a "
                   "method of an allowed object");
            return;
        }
        case CallRule::NewObj:
            if (items.empty() || !items[0]->is(Kind::Global) || !is_allowed_class(items[0])) {
                report("pickle-newobj", text, name + " must build a class the policy allows");
            }
            return;
        case CallRule::Reconstructor:
            if (items.size() != 3 || !items[0]->is(Kind::Global) || !is_allowed_class(items[0]) ||
                !is_builtin_type(items[1])) {
                report("pickle-newobj", text,
                       name + " must build a class the policy allows on a builtin base");
            }
            return;
        case CallRule::Device:
            if (items.empty() || items.size() > 2 || !items[0]->is_str() ||
                (items.size() == 2 && !items[1]->is_int() && !items[1]->is_none())) {
                report("pickle-call", text, "torch.device takes a type string and an index");
            }
            return;
        }
    }

    // The class an Object is an instance of: its callable, or what
    // copyreg.__newobj__ / _reconstructor build.
    static const Value* instance_class(const Value& object) {
        const Value* callable = object.callable();
        if (callable == nullptr || !callable->is(Kind::Global)) {
            return nullptr;
        }
        if (callable->module() == "copyreg" &&
            (callable->name() == "__newobj__" || callable->name() == "_reconstructor")) {
            const auto args = tuple_items(object.args());
            return !args.empty() && args[0]->is(Kind::Global) ? args[0] : nullptr;
        }
        return callable;
    }

    void check_fields(const Value& object) {
        const Value* cls = instance_class(object);
        if (cls == nullptr || !in_field_rule_module(cls->module())) {
            return;
        }
        for (const FieldRule& rule : kFieldRules) {
            if (rule.cls != cls->name()) {
                continue;
            }
            const Value* value = object.attribute(rule.field);
            // The memo lets many objects share one value: it is checked once
            // (a nested pickle decoded once), so the work stays linear in the
            // pickle's size.
            if (value == nullptr || checked_fields_.emplace(&rule, value).second) {
                check_field(rule, value);
            }
        }
    }

    void report_field(const FieldRule& rule, const std::string& holds, std::string_view expected,
                      std::string_view why) {
        report("pickle-field",
               std::string(rule.cls) + "." + std::string(rule.field) + " holds " + holds +
                   " where PyTorch writes " + std::string(expected),
               std::string(why));
    }

    static std::string holding(const Value& value) {
        return kind_phrase(value) + " (" + shown(value) + ")";
    }

    void check_field(const FieldRule& rule, const Value* value) {
        switch (rule.shape) {
        case FieldShape::Indices:
            if (const Value* bad = first_non_index(value)) {
                report_field(rule, holding(*bad), "ints", rule.why);
            }
            return;
        case FieldShape::Identifier:
            if (value != nullptr && !(value->is_str() && is_plain_identifier(value->text()))) {
                report_field(rule, holding(*value), "an identifier", rule.why);
            }
            return;
        case FieldShape::Identifiers:
            check_identifiers(rule, value);
            return;
        case FieldShape::FalseFlag:
            if (value != nullptr && !value->is_none() &&
                !(value->is_int() && value->as_int() == 0)) {
                report_field(rule, shown(*value), "False", rule.why);
            }
            return;
        case FieldShape::NoneOnly:
            if (value != nullptr && !value->is_none()) {
                report_field(rule, holding(*value), "None", rule.why);
            }
            return;
        case FieldShape::InductorMeta:
            check_inductor_meta(rule, value);
            return;
        case FieldShape::CompileMeta:
            check_compile_meta(rule, value);
            return;
        case FieldShape::TritonConfig:
            check_triton_config(rule, value);
            return;
        case FieldShape::NestedPickle:
            check_nested_pickle(rule, value);
            return;
        }
    }

    void check_identifiers(const FieldRule& rule, const Value* value, std::string_view why = {}) {
        const std::string_view reason = why.empty() ? rule.why : why;
        if (value == nullptr || value->is_none()) {
            return;
        }
        if (!value->is(Kind::List) && !value->is(Kind::Tuple)) {
            report_field(rule, holding(*value), "a list of identifiers", reason);
            return;
        }
        std::unordered_set<const Value*> checked; // the memo may repeat one str many times
        for (const Value* item : value->items()) {
            if (!checked.insert(item).second) {
                continue;
            }
            if (!item->is_str() || !is_plain_identifier(item->text())) {
                report_field(rule, holding(*item), "identifiers", reason);
            }
        }
    }

    // A grid of three entries, each an int or a grid expression.
    void check_grid(const FieldRule& rule, std::string_view key, const Value* grid, bool cpp) {
        const std::string where = std::string(rule.field) + "['" + std::string(key) + "']";
        const FieldRule keyed{rule.cls, where, rule.shape, rule.why};
        if (!grid->is(Kind::List) && !grid->is(Kind::Tuple)) {
            report_field(keyed, holding(*grid), "a list of three grid expressions", rule.why);
            return;
        }
        std::unordered_set<const Value*> checked; // the memo may repeat one str many times
        for (const Value* item : grid->items()) {
            if (item->is_int() || !checked.insert(item).second) {
                continue;
            }
            const bool ok = item->is_str() && (cpp ? is_cpp_grid_expression(item->text())
                                                   : is_grid_expression(item->text()));
            if (!ok) {
                report_field(keyed, holding(*item),
                             cpp ? "C++ arithmetic on sizes" : "arithmetic on sizes", rule.why);
            }
        }
    }

    void check_inductor_meta(const FieldRule& rule, const Value* meta) {
        if (meta == nullptr || !meta->is(Kind::Dict)) {
            return; // a non-dict fails PyTorch's own lookups before any code is built
        }
        if (const Value* type = meta->find("grid_type");
            type != nullptr && !(type->is_str() && is_plain_identifier(type->text()))) {
            const FieldRule keyed{rule.cls, std::string_view("inductor_meta['grid_type']"),
                                  rule.shape, rule.why};
            report_field(keyed, holding(*type), "a GridExpr class name", rule.why);
        }
        if (const Value* grid = meta->find("fixed_grid"); grid != nullptr) {
            check_grid(rule, "fixed_grid", grid, false);
        }
        if (const Value* args = meta->find("extra_launcher_args"); args != nullptr) {
            const FieldRule keyed{rule.cls,
                                  std::string_view("inductor_meta['extra_launcher_args']"),
                                  FieldShape::Identifiers, rule.why};
            check_identifiers(keyed, args);
        }
        if (const Value* grids = meta->find("precomputed_grids"); grids != nullptr) {
            check_precomputed_grids(rule, grids);
        }
        if (const Value* combo = meta->find("combo_grid_meta"); combo != nullptr) {
            check_combo_grid_meta(rule, combo);
        }
    }

    // [{'config': {...}, 'python': [x, y, z], 'cpp': [...], 'python_slow': [...]}, ...]
    void check_precomputed_grids(const FieldRule& rule, const Value* grids) {
        const FieldRule keyed{rule.cls, std::string_view("inductor_meta['precomputed_grids']"),
                              rule.shape, rule.why};
        if (!grids->is(Kind::List) && !grids->is(Kind::Tuple)) {
            report_field(keyed, holding(*grids), "a list of grids", rule.why);
            return;
        }
        std::unordered_set<const Value*> checked; // the memo may repeat one dict many times
        for (const Value* candidate : grids->items()) {
            if (!checked.insert(candidate).second) {
                continue;
            }
            if (!candidate->is(Kind::Dict)) {
                report_field(keyed, holding(*candidate), "a dict per config", rule.why);
                continue;
            }
            for (const auto& item : candidate->dict_items()) {
                if (!item.key->is_str() || item.key->text() == "config") {
                    continue;
                }
                const std::string_view mode = item.key->text();
                check_grid(keyed, mode, item.value, mode == "cpp");
            }
        }
    }

    // ComboKernelGrid interpolates xnumel_N / ynumel_N / znumel_N, min_blocks
    // and num_kernels, and default_config's block sizes.
    void check_combo_grid_meta(const FieldRule& rule, const Value* combo) {
        const FieldRule keyed{rule.cls, std::string_view("inductor_meta['combo_grid_meta']"),
                              FieldShape::Indices, rule.why};
        if (!combo->is(Kind::Dict)) {
            report_field(keyed, holding(*combo), "a dict of sizes", rule.why);
            return;
        }
        // The memo may repeat one value many times: each is checked once.
        std::unordered_set<const Value*> checked;
        std::unordered_set<const Value*> checked_inner;
        for (const auto& item : combo->dict_items()) {
            const Value* value = item.value;
            if (!checked.insert(value).second) {
                continue;
            }
            if (value->is(Kind::Dict)) {
                for (const auto& inner : value->dict_items()) {
                    if (!checked_inner.insert(inner.value).second) {
                        continue;
                    }
                    if (const Value* bad = first_non_index(inner.value)) {
                        report_field(keyed, holding(*bad), "ints", rule.why);
                    }
                }
            } else if (const Value* bad = first_non_index(value)) {
                report_field(keyed, holding(*bad), "ints", rule.why);
            }
        }
    }

    // compile_meta['constants']: PyTorch writes ints, floats, bools, None and
    // (for user kernels) strs, a str going inside r'...'.
    void check_compile_meta(const FieldRule& rule, const Value* meta) {
        if (meta == nullptr || !meta->is(Kind::Dict)) {
            return;
        }
        const Value* constants = meta->find("constants");
        if (constants == nullptr || !constants->is(Kind::Dict)) {
            return;
        }
        const FieldRule keyed{rule.cls, std::string_view("compile_meta['constants']"), rule.shape,
                              rule.why};
        std::unordered_set<const Value*> checked; // the memo may repeat one str many times
        for (const auto& item : constants->dict_items()) {
            const Value* value = item.value;
            if (!checked.insert(value).second) {
                continue;
            }
            if (value->is_none() || value->is_int() || value->is(Kind::BigInt) ||
                value->is(Kind::Float)) {
                continue;
            }
            if (value->is_str() &&
                value->text().find_first_of("'\"\\\r\n") == std::string_view::npos) {
                continue;
            }
            report_field(keyed, holding(*value), "numbers or strs without quotes or backslashes",
                         rule.why);
        }
    }

    // The block sizes GridExpr reads from a config (XBLOCK, ..., RSPLIT).
    void check_triton_config(const FieldRule& rule, const Value* kwargs) {
        if (kwargs == nullptr || !kwargs->is(Kind::Dict)) {
            return;
        }
        static constexpr std::array<std::string_view, 7> grid_keys{
            "XBLOCK", "YBLOCK", "ZBLOCK", "R0_BLOCK", "R1_BLOCK", "RSPLIT", "RBLOCK"};
        for (const auto& item : kwargs->dict_items()) {
            if (!item.key->is_str() ||
                std::ranges::find(grid_keys, item.key->text()) == grid_keys.end()) {
                continue;
            }
            if (!item.value->is_int() && !item.value->is_none()) {
                const std::string where =
                    std::string(rule.field) + "['" + std::string(item.key->text()) + "']";
                report_field(FieldRule{rule.cls, where, rule.shape, rule.why}, holding(*item.value),
                             "an int", rule.why);
            }
        }
    }

    // Decoded with the same unpickler and checked with the same policy, a
    // bounded number of levels deep; its findings say where they came from.
    void check_nested_pickle(const FieldRule& rule, const Value* value) {
        if (value == nullptr || value->is_none()) {
            return;
        }
        const std::string where = std::string(rule.cls) + "." + std::string(rule.field);
        if (!value->is(Kind::Bytes) && !value->is(Kind::ByteArray)) {
            report_field(rule, holding(*value), "bytes or None", rule.why);
            return;
        }
        if (nesting_ >= kMaxNestedPickles) {
            report("pickle-field",
                   where + " nests a pickle " + std::to_string(nesting_ + 1) + " levels deep",
                   "PyTorch never nests pickles this deep; the innermost one was not checked");
            return;
        }
        const auto document = pickle::unpickle(value->text());
        if (!document) {
            report("pickle-field", where + " holds bytes that are not a pickle",
                   "PyTorch would unpickle them in post_compile; they do not decode: " +
                       document.error().message);
            return;
        }
        Walker nested(schema_, nesting_ + 1);
        nested.visit(&(*document)->root(), 0);
        PickleCheck inner = nested.take();
        for (auto& finding : inner.findings) {
            report(finding.rule, where + ": " + finding.text, finding.why);
        }
        for (auto& code : inner.code) {
            code.where = where + " " + code.where;
            out_.code.push_back(std::move(code));
        }
    }

    // SerializedGraphModule keeps {'fn': reduce_graph_module, 'args': (...)}
    // and calls it later: the same code as a REDUCE now.
    void take_serialized_graph_module(const Value& dict) {
        const Value* fn = dict.find("fn");
        if (fn == nullptr || !fn->is(Kind::Global)) {
            return;
        }
        const PolicyRow* row = find_policy_row(fn->module(), fn->name());
        if (row != nullptr && row->role == GlobalRole::CodePath) {
            take_graph_module(dict.find("args"), "GLOBAL " + fn->qualified_name());
        }
    }

    // reduce_graph_module(body, import_block) execs import_block + body's code.
    void take_graph_module(const Value* args, const std::string& text) {
        const auto items = tuple_items(args);
        const Value* body = items.empty() ? nullptr : items[0];
        const Value* code = nullptr;
        if (body != nullptr && body->is(Kind::Dict)) {
            code = body->find("_code");
            if (code == nullptr) {
                code = body->find("code");
            }
        }
        if (code == nullptr || !code->is_str() || items.size() > 2 ||
            (items.size() == 2 && !items[1]->is_str())) {
            report("pickle-code", text,
                   "a GraphModule whose code cannot be read: PyTorch would exec whatever its "
                   "body holds");
            return;
        }
        // Objects sharing one body and import block (through the memo) are one code.
        if (!taken_code_.emplace(code, items.size() == 2 ? items[1] : nullptr).second) {
            return;
        }
        out_.code.push_back(EmbeddedCode{
            .where = "graph module " + std::to_string(out_.code.size()),
            .source = std::string(code->text()),
            .import_block = items.size() == 2 ? std::string(items[1]->text()) : std::string()});
    }

    PickleSchema schema_;
    std::size_t nesting_ = 0;
    PickleCheck out_;
    std::unordered_set<const Value*> seen_;
    std::set<std::pair<std::string, std::string>> reported_;
    std::set<std::pair<const FieldRule*, const Value*>> checked_fields_;
    std::set<std::pair<const Value*, const Value*>> taken_code_; // (code, import block)
};

} // namespace

PickleCheck check_pickle(const pickle::Document& document, PickleSchema schema) {
    Walker walker(schema);
    walker.visit(&document.root(), 0);
    return walker.take();
}

} // namespace cachelens::safety
