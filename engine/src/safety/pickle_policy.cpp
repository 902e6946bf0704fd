#include "pickle_policy_table.h"

#include <cachelens/pickle/repr.h>
#include <cachelens/safety/pickle_policy.h>

#include <algorithm>
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

class Walker {
public:
    explicit Walker(PickleSchema schema)
        : schema_(schema) {}

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
        const bool allowed = schema_ == PickleSchema::Entry ? row->in_entry : row->in_pgo;
        if (!allowed) {
            report(rule, text,
                   name + (schema_ == PickleSchema::Entry
                               ? " belongs in PGO profiles, never in a cache entry"
                               : " belongs in cache entries, never in a PGO profile"));
            return nullptr;
        }
        return row;
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
        return row != nullptr && is_class_role(row->role) &&
               (schema_ == PickleSchema::Entry ? row->in_entry : row->in_pgo);
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
            if (!is_allowed_class(items[0])) {
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
        out_.code.push_back(EmbeddedCode{
            .where = "graph module " + std::to_string(out_.code.size()),
            .source = std::string(code->text()),
            .import_block = items.size() == 2 ? std::string(items[1]->text()) : std::string()});
    }

    PickleSchema schema_;
    PickleCheck out_;
    std::unordered_set<const Value*> seen_;
    std::set<std::pair<std::string, std::string>> reported_;
};

} // namespace

PickleCheck check_pickle(const pickle::Document& document, PickleSchema schema) {
    Walker walker(schema);
    walker.visit(&document.root(), 0);
    return walker.take();
}

} // namespace cachelens::safety
