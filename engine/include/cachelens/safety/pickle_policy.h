#pragma once

// The pickle policy: what unpickling a PyTorch cache entry may do, derived
// from PyTorch's own source (docs/SECURITY.md, "Pickle policy").
//
// Unpickling imports each global the pickle names (find_class: import module,
// getattr name), then calls what REDUCE/INST/OBJ name with the args beside
// them, and makes classes with NEWOBJ (cls.__new__) and BUILD (__setstate__ or
// __dict__.update). So what matters about a global is what the pickle does
// with it. The table says, for every global a PyTorch 2.5-2.11 FX graph,
// AOTAutograd, PGO or Triton-bundle entry can name, which uses are PyTorch's
// own; check_pickle() walks a decoded pickle (nothing is imported or called)
// and reports every other use as a Finding. It also checks the fields PyTorch
// later turns into code (generated AOTAutograd wrappers, static Triton
// launchers and their grids, autotuner flags, a nested pickle) have the shape
// PyTorch writes there: rule "pickle-field" (docs/SECURITY.md, "Field shapes").

#include <cachelens/pickle/value.h>
#include <cachelens/safety/finding.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::safety {

// What unpickling does with a global, and so which uses are allowed.
enum class GlobalRole : std::uint8_t {
    // A class only built: NEWOBJ/NEWOBJ_EX (or copyreg.__newobj__ /
    // copyreg._reconstructor), then BUILD stores its fields. Never called.
    Built,
    // A dataclass or NamedTuple PyTorch pickles either way: built as above, or
    // called with its field values (a __reduce__ returning (cls, fields)),
    // where __init__ only stores them.
    Record,
    // An enum: called with one plain value, or reached by
    // builtins.getattr(EnumClass, 'MEMBER') as Python >= 3.12 pickles them.
    Enum,
    // A reviewed callable, allowed only with the argument shapes its rule
    // accepts (CallRule).
    Callable,
    // A value referenced as data and never called: a dtype, a builtin type
    // named as a defaultdict factory, inspect._empty.
    Constant,
    // Compiles or execs code when PyTorch calls it (reduce_graph_module): not
    // a finding itself; check_pickle() returns the code for the code audit.
    CodePath,
    // Named in an inventoried module but never part of an entry, or running
    // code beyond storing fields when unpickled: any use is a finding.
    Refused,
};

std::string_view to_string(GlobalRole role);

// The argument shapes a Callable accepts.
enum class CallRule : std::uint8_t {
    None,          // not a callable
    Getattr,       // (allowed class/enum or instance of one, plain non-dunder str)
    NoArgsOrData,  // () or data arguments only (containers, scalars, allowed objects)
    DefaultDict,   // () or (factory[, dict]): factory None, a builtin type, an allowed class,
                   // or a getattr of an allowed object
    NewObj,        // copyreg.__newobj__(cls, *args): cls Built or Record
    Reconstructor, // copyreg._reconstructor(cls, builtin type, state): cls Built or Record
    Device,        // torch.device(str[, int])
};

// Which pickles a row applies to.
enum class PickleSchema : std::uint8_t {
    Entry, // `inductor` (FX graph) and `aot_autograd` entries, with their Triton bundles
    Pgo,   // a dynamo code-state pickle (torch/_dynamo/pgo.py)
    // A value (or key) of torch/_inductor/cache.py's OnDiskCache and
    // InMemoryCache, and of the caching module's store: plain Python data, or
    // the caching module's CacheEntry.
    CacheValue,
    // A precompiled function or a DynamoCache entry (torch/_dynamo/package.py,
    // aot_compile.py), and the guards and backends pickled inside it:
    // everything an entry may hold, and Dynamo's package, guard and code
    // records besides.
    Precompile,
};

struct PolicyRow {
    std::string_view module;
    std::string_view name;
    GlobalRole role = GlobalRole::Refused;
    CallRule call = CallRule::None;
    bool in_entry = true;  // allowed in PickleSchema::Entry
    bool in_pgo = false;   // allowed in PickleSchema::Pgo
    bool in_value = false; // allowed in PickleSchema::CacheValue
    // Allowed in PickleSchema::Precompile even where not in entries (every
    // row allowed in entries is allowed there too).
    bool in_precompile = false;
    // The PyTorch (or Triton) versions it exists in: "2.6–", "2.5–2.8", "3.x".
    std::string_view versions;
    // One line: why it is in an entry (or, for Refused, why it is refused).
    std::string_view why;
};

// Every row, sorted by (module, name).
std::span<const PolicyRow> pickle_policy();

// The row for an exact (module, name): a dotted name is never split (pickle's
// find_class walks attributes for it, so only exact rows may match).
const PolicyRow* find_policy_row(std::string_view module, std::string_view name);

// Code a pickle carries for PyTorch to exec when it uses the entry: a
// GraphModule's forward, which torch.fx.graph_module.reduce_graph_module
// compiles from the body dict's `_code` (or `code`) after `import_block`.
struct EmbeddedCode {
    std::string where;        // "graph module 0"
    std::string source;       // the body's `_code`
    std::string import_block; // what is prepended to it
};

struct PickleCheck {
    std::vector<Finding> findings; // file "pickle", line 0
    std::vector<EmbeddedCode> code;
};

// Walks `document` (bounded in depth, safe on memo cycles) and classifies
// every use of every global against the table, and checks the field shapes.
PickleCheck check_pickle(const pickle::Document& document, PickleSchema schema);

} // namespace cachelens::safety
