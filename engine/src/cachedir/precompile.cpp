#include <cachelens/cachedir/precompile.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/hash/sha256.h>
#include <cachelens/pickle/access.h>
#include <cachelens/pickle/repr.h>
#include <cachelens/pickle/unpickler.h>

#include <algorithm>
#include <map>
#include <set>
#include <system_error>

namespace cachelens::cachedir {

namespace {

using pickle::Kind;
using pickle::str_of;
using pickle::Value;

constexpr std::string_view kPackage = "torch._dynamo.package.";

std::string text_of(const Value* value) {
    if (auto text = str_of(value)) {
        return std::string(*text);
    }
    if (value != nullptr && value->is(Kind::Object)) {
        // TorchVersion('2.11.0+cu130'): a str subclass built from its text.
        const auto args = pickle::elements_of(value->args());
        if (args.size() == 1 && args[0]->is_str()) {
            return std::string(args[0]->text());
        }
    }
    return {};
}

std::int64_t int_or(const Value* value, std::int64_t otherwise = 0) {
    return pickle::int_of(value).value_or(otherwise);
}

// A field of a dataclass: from its BUILD state, or by position from the
// values a REDUCE(cls, fields) passed (frozen dataclasses pickle both ways).
const Value* field(const Value* object, std::string_view name, std::size_t position) {
    if (object == nullptr || !object->is(Kind::Object)) {
        return nullptr;
    }
    if (const Value* found = object->attribute(name)) {
        return found;
    }
    const auto args = pickle::elements_of(object->args());
    return position < args.size() && object->construction() == pickle::Construction::Reduce
               ? args[position]
               : nullptr;
}

// Where a torch._dynamo.source.* Source reads its value, as guards print it.
std::string source_text(const Value* source, int depth = 0) {
    if (source == nullptr || !source->is(Kind::Object) || depth > 32) {
        return {};
    }
    std::string cls = source->class_name();
    cls = cls.substr(cls.rfind('.') + 1);
    const Value* base = field(source, "base", 0);
    const auto index_text = [](const Value* index) {
        if (index == nullptr) {
            return std::string("?");
        }
        pickle::ReprOptions options;
        options.max_string = 80;
        return pickle::repr(*index, options);
    };
    if (cls == "LocalSource") {
        return "L['" + text_of(field(source, "local_name", 0)) + "']";
    }
    if (cls == "GlobalSource") {
        return "G['" + text_of(field(source, "global_name", 0)) + "']";
    }
    if (cls == "AttrSource" || cls == "GenericAttrSource" || cls == "ParamBufferSource" ||
        cls == "UnspecializedParamBufferSource") {
        return source_text(base, depth + 1) + "." + text_of(field(source, "member", 1));
    }
    if (cls == "DictGetItemSource" || cls == "GetItemSource" || cls == "ODictGetItemSource" ||
        cls == "DictSubclassGetItemSource" || cls == "ListGetItemSource") {
        return source_text(base, depth + 1) + "[" + index_text(field(source, "index", 1)) + "]";
    }
    if (cls == "TypeSource") {
        return "type(" + source_text(base, depth + 1) + ")";
    }
    if (cls == "TypeDictSource") {
        return "type(" + source_text(base, depth + 1) + ").__dict__";
    }
    if (cls == "TypeMROSource") {
        return "type(" + source_text(base, depth + 1) + ").__mro__";
    }
    if (cls == "GlobalStateSource" || cls == "ShapeEnvSource") {
        return {};
    }
    if (base != nullptr && base->is(Kind::Object)) {
        return source_text(base, depth + 1); // NNModuleSource and kin wrap another source
    }
    return cls;
}

std::string dims_text(const Value* dims) {
    std::string out = "[";
    bool first = true;
    for (const Value* dim : pickle::elements_of(dims)) {
        out += (first ? "" : ", ") +
               (dim->is_int() ? std::to_string(dim->as_int()) : pickle::repr(*dim));
        first = false;
    }
    return out + "]";
}

// GuardsStatePickler._unpickle_tensor(meta, device, pytype, dispatch_keys, grad),
// meta = _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad).
// Tuples and lists below depth 3 read "(...)": a memo makes them cyclic or
// shared at every level, and each level shows up to 8 items.
std::string describe_scope_value(const Value& value, std::vector<std::string>& user_classes,
                                 int depth = 0) {
    if (value.is(Kind::Object) && value.construction() == pickle::Construction::Reduce) {
        const auto args = pickle::elements_of(value.args());
        if (args.size() >= 3 && args[0]->is(Kind::Object) &&
            args[0]->class_name() == "torch._utils._rebuild_meta_tensor_no_storage") {
            const auto meta = pickle::elements_of(args[0]->args());
            std::string out = args[2]->is(Kind::Global) ? std::string(args[2]->name()) : "Tensor";
            if (meta.size() >= 3) {
                out += " " +
                       (meta[0]->is(Kind::Global) ? std::string(meta[0]->name()) : std::string()) +
                       " " + dims_text(meta[1]) + " stride " + dims_text(meta[2]);
            }
            if (meta.size() >= 4 && meta[3]->is(Kind::Bool) && meta[3]->as_bool()) {
                out += " requires_grad";
            }
            const auto device = pickle::elements_of(args[1]->args());
            if (!device.empty() && device[0]->is_str()) {
                out += " on " + std::string(device[0]->text());
                if (device.size() > 1 && device[1]->is_int()) {
                    out += ":" + std::to_string(device[1]->as_int());
                }
            }
            return out;
        }
    }
    if ((value.is(Kind::Tuple) || value.is(Kind::List)) && depth >= 3) {
        return value.is(Kind::Tuple) ? "(...)" : "[...]";
    }
    if (value.is(Kind::Tuple) || value.is(Kind::List)) {
        std::string out = value.is(Kind::Tuple) ? "(" : "[";
        std::size_t index = 0;
        for (const Value* item : value.items()) {
            if (index++ == 8) {
                out += ", ...";
                break;
            }
            out += (index > 1 ? ", " : "") + describe_scope_value(*item, user_classes, depth + 1);
        }
        return out + (value.is(Kind::Tuple) ? (index == 1 ? ",)" : ")") : "]");
    }
    const std::string cls = value.class_name();
    if (value.is(Kind::Object) && !cls.empty() && !cls.starts_with("torch.") &&
        !cls.starts_with("builtins.") && !cls.starts_with("collections.")) {
        if (std::ranges::find(user_classes, cls) == user_classes.end()) {
            user_classes.push_back(cls);
        }
        return "an instance of " + cls + " (your class: loading imports it)";
    }
    pickle::ReprOptions options;
    options.max_string = 120;
    options.max_items = 8;
    options.max_depth = 3;
    return pickle::repr(value, options);
}

void collect_user_classes(const Value* value, std::set<const Value*>& seen,
                          std::vector<std::string>& out, int depth = 0) {
    if (value == nullptr || depth > 256 || !seen.insert(value).second) {
        return;
    }
    if (value->is(Kind::Object)) {
        const std::string cls = value->class_name();
        const bool foreign = !cls.empty() && !cls.starts_with("torch.") &&
                             !cls.starts_with("builtins.") && !cls.starts_with("collections.") &&
                             !cls.starts_with("functools.") && !cls.starts_with("inspect.") &&
                             !cls.starts_with("traceback.") && !cls.starts_with("copyreg.");
        if (foreign && value->construction() != pickle::Construction::Reduce &&
            std::ranges::find(out, cls) == out.end()) {
            out.push_back(cls);
        }
        collect_user_classes(value->args(), seen, out, depth + 1);
        collect_user_classes(value->state(), seen, out, depth + 1);
        for (const Value* item : value->items()) {
            collect_user_classes(item, seen, out, depth + 1);
        }
        return;
    }
    if (value->is(Kind::Dict)) {
        for (const auto& item : value->dict_items()) {
            collect_user_classes(item.value, seen, out, depth + 1);
        }
        return;
    }
    if (value->is_sequence()) {
        for (const Value* item : value->items()) {
            collect_user_classes(item, seen, out, depth + 1);
        }
    }
}

// _ShapeGuardsHelper(exprs) and _CppShapeGuardsHelper(exprs, source_to_symbol)
// are slots dataclasses: BUILD gives the slot values as a list, exprs first.
const Value* shape_exprs(const Value* helper) {
    if (helper == nullptr || !helper->is(Kind::Object)) {
        return nullptr;
    }
    if (const Value* exprs = helper->attribute("exprs")) {
        return exprs;
    }
    const Value* state = helper->state();
    if (state != nullptr && state->is(Kind::List) && !state->items().empty()) {
        return state->items()[0];
    }
    return nullptr;
}

std::string guard_kind(const Value* create_fn) {
    const Value* fn = create_fn;
    // functools.partial(GuardBuilder.TENSOR_MATCH, ...): the function is its first arg.
    if (fn != nullptr && fn->is(Kind::Object)) {
        const auto args = pickle::elements_of(fn->args());
        fn = args.empty() ? nullptr : args[0];
    }
    if (fn == nullptr || !fn->is(Kind::Global)) {
        return "?";
    }
    const std::string_view name = fn->name();
    const auto dot = name.rfind('.');
    return std::string(dot == std::string_view::npos ? name : name.substr(dot + 1));
}

std::vector<std::string> strings_of(const Value* list) {
    std::vector<std::string> out;
    for (const Value* item : pickle::elements_of(list)) {
        if (auto text = str_of(item)) {
            out.emplace_back(*text);
        }
    }
    return out;
}

class Reader {
public:
    Reader(PrecompileFile& out, std::shared_ptr<const void> keep)
        : out_(out)
        , keep_(std::move(keep)) {}

    // Each bytes value is decoded once: a pickle's memo lets one value stand
    // in many places, and decoding it at each would multiply the work.
    Result<std::shared_ptr<const pickle::Document>> decode(std::string_view bytes,
                                                           std::string where) {
        const auto key = std::pair(bytes.data(), bytes.size());
        if (const auto found = decoded_.find(key); found != decoded_.end()) {
            return found->second;
        }
        auto document = pickle::unpickle(bytes, keep_);
        if (!document) {
            return std::unexpected(document.error());
        }
        out_.documents.emplace_back(std::move(where), *document);
        decoded_.emplace(key, *document);
        return *document;
    }

    void guards(const Value* bytes, std::string where) {
        PrecompileGuards set;
        set.where = where;
        if (bytes == nullptr || !(bytes->is(Kind::Bytes) || bytes->is(Kind::ByteArray))) {
            set.error = "no guards_state bytes";
            out_.guards.push_back(std::move(set));
            return;
        }
        auto document = decode(bytes->text(), where);
        if (!document) {
            set.error = "the guards do not decode: " + document.error().message;
            out_.problems.push_back(where + ": " + set.error +
                                    " (PyTorch's load_guards_state would fail)");
            out_.guards.push_back(std::move(set));
            return;
        }
        const Value& state = (*document)->root();
        const Value* graph = state.attribute("output_graph");
        if (graph != nullptr) {
            if (const Value* scope = graph->attribute("local_scope");
                scope != nullptr && scope->is(Kind::Dict)) {
                for (const auto& item : scope->dict_items()) {
                    if (auto name = str_of(item.key)) {
                        set.inputs.push_back(
                            PrecompileInput{std::string(*name),
                                            describe_scope_value(*item.value, set.user_classes)});
                    }
                }
            }
            if (const Value* global_state = graph->attribute("global_state_guard")) {
                set.global_state = text_of(global_state->state());
            }
            const Value* guards_set = graph->attribute("_guards");
            const Value* inner = guards_set == nullptr ? nullptr : guards_set->attribute("inner");
            for (const Value* guard : pickle::elements_of(inner)) {
                PrecompileGuard row;
                row.kind = guard_kind(guard->attribute("create_fn"));
                row.source = source_text(guard->attribute("originating_source"));
                // code_list often holds one line twice (its verbose twin is the same).
                for (auto& line : strings_of(guard->attribute("code_list"))) {
                    if (std::ranges::find(row.code, line) == row.code.end()) {
                        row.code.push_back(std::move(line));
                    }
                }
                set.guards.push_back(std::move(row));
            }
        }
        if (const Value* parts = state.attribute("shape_code_parts")) {
            set.shape_guards = strings_of(shape_exprs(parts->attribute("python_code_parts")));
            set.cpp_shape_guards = strings_of(shape_exprs(parts->attribute("cpp_code_parts")));
        }
        std::set<const Value*> seen;
        collect_user_classes(&state, seen, set.user_classes);
        out_.guards.push_back(std::move(set));
    }

    // A SerializedCode and the code objects in its constants.
    PrecompileCode code(const Value* serialized, std::string role, bool runs) {
        PrecompileCode out;
        out.role = std::move(role);
        out.runs = runs;
        if (serialized == nullptr || !serialized->is(Kind::Object)) {
            return out;
        }
        out.qualname = text_of(serialized->attribute("co_qualname"));
        if (out.qualname.empty()) {
            out.qualname = text_of(serialized->attribute("co_name"));
        }
        out.file = text_of(serialized->attribute("co_filename"));
        out.first_line = int_or(serialized->attribute("co_firstlineno"));
        std::vector<const Value*> pending{serialized};
        std::set<const Value*> seen;
        std::set<std::string_view> known_names;
        while (!pending.empty() && seen.size() < 3 * 4096) {
            const Value* current = pending.back();
            pending.pop_back();
            if (!seen.insert(current).second) {
                continue;
            }
            if (const Value* raw = current->attribute("co_code");
                raw != nullptr && raw->is(Kind::Bytes)) {
                out.bytecode_bytes += raw->text().size();
            }
            // Code objects may share one names or constants tuple (the memo):
            // each tuple is read once.
            if (const Value* names = current->attribute("co_names"); seen.insert(names).second) {
                for (const Value* name : pickle::elements_of(names)) {
                    if (auto text = str_of(name); text && known_names.insert(*text).second) {
                        out.names.push_back(*text);
                    }
                }
            }
            const Value* constants = current->attribute("co_consts");
            if (!seen.insert(constants).second) {
                continue;
            }
            for (const Value* constant : pickle::elements_of(constants)) {
                if (constant->is(Kind::Object) &&
                    constant->class_name().ends_with(".SerializedCode")) {
                    pending.push_back(constant);
                }
            }
        }
        return out;
    }

    void sources(const Value* source_info, const Value* legacy_set = nullptr) {
        const Value* inlined =
            legacy_set != nullptr
                ? legacy_set
                : (source_info == nullptr ? nullptr : source_info->attribute("inlined_sources"));
        for (const Value* item : pickle::elements_of(inlined)) {
            PrecompileSource source;
            source.module = text_of(field(item, "module", 0));
            source.first_line = int_or(field(item, "firstlineno", 1));
            source.last_line = int_or(field(item, "lastlineno", 2));
            source.checksum = text_of(field(item, "checksum", 3));
            if (auto content = str_of(field(item, "content", 4))) {
                source.content = *content;
                source.content_matches = source_span_checksum(*content, source.first_line,
                                                              source.last_line) == source.checksum;
                if (!*source.content_matches) {
                    out_.problems.push_back(
                        "the checksum of " + source.module + " (line " +
                        std::to_string(source.first_line) + " - line " +
                        std::to_string(source.last_line) +
                        ") is not that of the source recorded beside it: the file was altered "
                        "after PyTorch wrote it");
                }
            }
            out_.sources.push_back(std::move(source));
        }
        std::ranges::sort(out_.sources, {}, [](const PrecompileSource& source) {
            return std::pair(source.module, source.first_line);
        });
    }

    void system(const Value* info) {
        if (info == nullptr || !info->is(Kind::Object)) {
            return;
        }
        PrecompileSystem& system = out_.system;
        system.recorded = true;
        system.python_version = text_of(info->attribute("python_version"));
        system.torch_version = text_of(info->attribute("torch_version"));
        system.toolkit_version = text_of(info->attribute("toolkit_version"));
        if (system.toolkit_version.empty()) {
            system.toolkit_version = text_of(info->attribute("cuda_version"));
        }
        system.triton_version.clear(); // a module's payloads each carry one
        const auto triton = pickle::elements_of(info->attribute("triton_version"));
        for (std::size_t i = 0; i < triton.size(); ++i) {
            system.triton_version += (i > 0 ? "." : "") + std::to_string(int_or(triton[i]));
        }
        system.gpu_name = text_of(info->attribute("gpu_name"));
    }

    // A CompiledFxGraph PyTorch writes out as <cache_dir>/<xx>/<cache_key>.py and imports.
    void graph(const Value* compiled, std::string role, PrecompileBackend& backend) {
        const Value* result = compiled == nullptr ? nullptr : compiled->attribute("result");
        if (result == nullptr || !result->is(Kind::Object)) {
            return;
        }
        BundledGraph graph;
        graph.role = std::move(role);
        graph.cache_key = text_of(result->attribute("cache_key"));
        graph.fx_graph_key = text_of(result->attribute("_fx_graph_cache_key"));
        if (auto source = str_of(result->attribute("source_code"))) {
            graph.source_code = *source;
            graph.key_matches = hash::code_hash(hash::python_strip(*source)) == graph.cache_key;
            if (!graph.key_matches) {
                out_.problems.push_back("backend " + backend.id + "'s " + graph.role +
                                        " graph is named " + graph.cache_key +
                                        " but its source hashes to " +
                                        hash::code_hash(hash::python_strip(*source)) +
                                        ": the module was altered after PyTorch wrote it");
            }
        }
        backend.graphs.push_back(std::move(graph));
    }

    void bundled_result(const Value* result, PrecompileBackend& backend) {
        if (result == nullptr || !result->is(Kind::Object)) {
            return;
        }
        backend.class_name = result->class_name();
        graph(result->attribute("compiled_fw"), "forward", backend);
        graph(result->attribute("compiled_bw"), "backward", backend);
    }

    // compiled_fn = (getattr(<callable class>, 'deserialize_compile_artifacts'), bytes).
    PrecompileBackend aot_backend(const Value* compiled_fn, const std::string& id) {
        PrecompileBackend backend;
        backend.id = id;
        const auto parts = pickle::elements_of(compiled_fn);
        if (parts.size() != 2) {
            out_.problems.push_back(
                "compiled_fn is not (deserializer, bytes): PyTorch cannot rebuild the backend");
            return backend;
        }
        std::string deserializer;
        const auto getattr_args = pickle::elements_of(parts[0]->args());
        if (getattr_args.size() == 2 && getattr_args[0]->is(Kind::Global)) {
            deserializer = getattr_args[0]->qualified_name();
        }
        backend.class_name = deserializer;
        backend.present = true;
        if (deserializer.ends_with("BundledAOTAutogradSerializableCallable")) {
            backend.kind = "Inductor (bundled AOTAutograd)";
        } else if (deserializer.ends_with("GraphModuleSerializableCallable")) {
            backend.kind = "eager GraphModule";
        } else if (deserializer.starts_with("vllm.")) {
            backend.kind = "vLLM (its backend compiles the graph again on first call)";
        } else {
            backend.kind = deserializer.empty() ? "unknown" : "other: " + deserializer;
        }
        if (!parts[1]->is(Kind::Bytes) && !parts[1]->is(Kind::ByteArray)) {
            out_.problems.push_back("compiled_fn's state is not bytes");
            return backend;
        }
        auto document = decode(parts[1]->text(), "compiled_fn");
        if (!document) {
            out_.problems.push_back("the compiled backend does not decode: " +
                                    document.error().message);
            return backend;
        }
        const Value& root = (*document)->root();
        // 2.11: (result, {index: (module, name)}, {index: constants}); before: the result.
        const auto items =
            root.is(Kind::Tuple) ? pickle::elements_of(&root) : std::span<Value* const>();
        const Value* result = items.empty() ? &root : items[0];
        bundled_result(result, backend);
        if (items.size() >= 2 && items[1]->is(Kind::Dict)) {
            for (const auto& kernel : items[1]->dict_items()) {
                const auto where = pickle::elements_of(kernel.value);
                if (!where.empty()) {
                    if (auto module = str_of(where[0])) {
                        backend.kernel_modules.emplace_back(*module);
                    }
                }
            }
        }
        return backend;
    }

    std::string signature(const Value* signature) {
        if (signature == nullptr || !signature->is(Kind::Object)) {
            return {};
        }
        // inspect.Signature((parameters...)): each Parameter(name, kind) + BUILD.
        const auto args = pickle::elements_of(signature->args());
        std::string out = "(";
        bool first = true;
        for (const Value* parameter : pickle::elements_of(args.empty() ? nullptr : args[0])) {
            const auto fields = pickle::elements_of(parameter->args());
            if (fields.empty() || !fields[0]->is_str()) {
                continue;
            }
            std::string name(fields[0]->text());
            if (fields.size() > 1) {
                // inspect._ParameterKind: 2 VAR_POSITIONAL, 4 VAR_KEYWORD.
                const auto kind = pickle::elements_of(fields[1]->args());
                const std::int64_t value = kind.empty() ? -1 : int_or(kind[0], -1);
                name = (value == 2 ? "*" : value == 4 ? "**" : "") + name;
            }
            out += (first ? "" : ", ") + name;
            first = false;
        }
        return out + ")";
    }

    Result<void> aot_function(const Value& state, std::string prefix) {
        const bool runtime_env = state.find("runtime_env") != nullptr;
        const bool flat = state.find("bytecode") != nullptr;
        if (!runtime_env && !flat) {
            return fail(ErrorKind::Corrupt, "a dict with a signature but neither runtime_env "
                                            "nor bytecode: no layout of CompileArtifacts");
        }
        if (prefix.empty()) {
            out_.layout = runtime_env ? PrecompileLayout::AotFunction
                          : state.find("system_info") != nullptr
                              ? PrecompileLayout::AotFunctionFlat
                              : PrecompileLayout::AotFunctionEarly;
        }
        const Value* env = state.find("runtime_env");
        const auto get = [&](std::string_view name) -> const Value* {
            if (env != nullptr && env->is(Kind::Object)) {
                return env->attribute(name);
            }
            return state.find(name);
        };
        const std::string id = text_of(state.find("backend_id"));
        const Value* original = state.find("original_code");
        PrecompileFunction function;
        auto original_code = code(original,
                                  prefix + "original function (guards are built "
                                           "against it; not run from the file)",
                                  false);
        function.qualname = original_code.qualname;
        function.file = original_code.file;
        function.first_line = original_code.first_line;
        function.signature = signature(state.find("signature"));
        function.backend_ids.push_back(id);
        out_.functions.push_back(std::move(function));
        out_.codes.push_back(std::move(original_code));
        out_.codes.push_back(
            code(get("bytecode"), prefix + "Dynamo's bytecode (runs on every call)", true));
        if (const Value* imports = get("import_sources");
            imports != nullptr && imports->is(Kind::Dict)) {
            for (const auto& item : imports->dict_items()) {
                out_.imports.emplace_back(text_of(item.key), text_of(item.value));
            }
        }
        out_.backends.push_back(aot_backend(state.find("compiled_fn"), id));
        guards(state.find("guards_state"), prefix + "guards_state");
        sources(state.find("source_info"));
        system(state.find("system_info"));
        out_.device_type = text_of(state.find("device_type"));
        out_.backend_name = text_of(state.find("backend_name"));
        // Read whole first (its guards too), then judged: without its code
        // PyTorch has nothing to load.
        const Value* bytecode = get("bytecode");
        for (const auto& [name, value] :
             {std::pair{"original_code", original}, std::pair{"bytecode", bytecode}}) {
            if (value == nullptr || !value->is(Kind::Object) ||
                !value->class_name().ends_with(".SerializedCode")) {
                return fail(ErrorKind::Corrupt,
                            prefix + std::string(name) +
                                " is not a SerializedCode: no function PyTorch could load");
            }
        }
        return {};
    }

    PrecompileBackend cache_backend(const std::string& id, const Value* artifact) {
        PrecompileBackend backend;
        backend.id = id;
        backend.present = artifact != nullptr;
        if (artifact == nullptr || !artifact->is(Kind::Object)) {
            return backend;
        }
        const std::string cls = artifact->class_name();
        backend.class_name = cls;
        const Value* content = artifact->attribute("content");
        if (cls.ends_with("BundledAOTAutogradCacheArtifact")) {
            backend.kind = "Inductor (bundled AOTAutograd)";
        } else if (cls.ends_with("EagerCacheArtifact")) {
            backend.kind = "eager GraphModule";
        } else if (cls.ends_with("PrecompileCacheArtifact")) {
            backend.kind = "Inductor (bundled AOTAutograd, 2.9)";
        } else {
            backend.kind = "other: " + cls;
        }
        // 2.9 kept the artifact's pickle as bytes.
        if (content != nullptr && (content->is(Kind::Bytes) || content->is(Kind::ByteArray))) {
            auto document = decode(content->text(), "backends['" + id + "'].content");
            if (!document) {
                out_.problems.push_back("backend " + id +
                                        " does not decode: " + document.error().message);
                return backend;
            }
            content = &(*document)->root();
        }
        bundled_result(content, backend);
        return backend;
    }

    Result<void> dynamo_entry(const Value& dynamo, const Value* backends) {
        const auto by_id = [&](std::string_view id) -> const Value* {
            if (backends == nullptr || !backends->is(Kind::Dict)) {
                return nullptr;
            }
            return backends->find(id);
        };
        std::size_t index = 0;
        for (const Value* entry : pickle::elements_of(dynamo.attribute("codes"))) {
            const std::string where = "codes[" + std::to_string(index) + "]";
            PrecompileFunction function;
            auto python = code(entry->attribute("python_code"),
                               where + (index == 0 ? ": the function (bound to your code on load, "
                                                     "not run from the file)"
                                                   : ": installed and run"),
                               index != 0);
            function.qualname = python.qualname;
            function.file = python.file;
            function.first_line = python.first_line;
            function.python_module = text_of(entry->attribute("python_module"));
            function.bypassed = pickle::bool_of(entry->attribute("bypassed")).value_or(false);
            function.backend_ids = strings_of(entry->attribute("backend_ids"));
            out_.codes.push_back(std::move(python));
            if (const Value* imports = entry->attribute("import_sources");
                imports != nullptr && imports->is(Kind::Dict)) {
                for (const auto& item : imports->dict_items()) {
                    out_.imports.emplace_back(text_of(item.key), text_of(item.value));
                }
            }
            std::size_t guarded_index = 0;
            for (const Value* guarded : pickle::elements_of(entry->attribute("guarded_codes"))) {
                const std::string at =
                    where + ".guarded_codes[" + std::to_string(guarded_index++) + "]";
                out_.codes.push_back(code(guarded->attribute("dynamo_code"),
                                          at + ": Dynamo's bytecode (runs on every call)", true));
                guards(guarded->attribute("guards_state"), at);
            }
            for (const auto& id : function.backend_ids) {
                if (by_id(id) == nullptr && !function.bypassed) {
                    out_.problems.push_back("Backend " + id +
                                            " is not found in the given backends (PyTorch's "
                                            "install fails: the function compiles again)");
                }
            }
            out_.functions.push_back(std::move(function));
            ++index;
        }
        if (out_.functions.empty()) {
            return fail(ErrorKind::Corrupt, "a DynamoCache entry with no code");
        }
        if (backends != nullptr && backends->is(Kind::Dict)) {
            for (const auto& item : backends->dict_items()) {
                out_.backends.push_back(cache_backend(text_of(item.key), item.value));
            }
        }
        if (const Value* legacy = dynamo.attribute("inlined_sources")) {
            sources(nullptr, legacy);
            out_.system.recorded = true;
            out_.system.python_version = text_of(dynamo.attribute("python_version"));
            out_.system.torch_version = text_of(dynamo.attribute("torch_version"));
        } else {
            sources(dynamo.attribute("source_info"));
            system(dynamo.attribute("system_info"));
        }
        out_.device_type = text_of(dynamo.attribute("device_type"));
        const std::string fn_name = text_of(dynamo.attribute("fn_name"));
        if (const Value* line = dynamo.attribute("fn_first_lineno"); !fn_name.empty()) {
            // Annotated Optional[str], written as an int in 2.11: either is read.
            const std::int64_t first_line = line != nullptr && line->is_int()
                                                ? line->as_int()
                                                : std::atoll(text_of(line).c_str());
            out_.expected_key = dynamo_cache_key(fn_name, first_line);
            out_.functions.front().qualname = fn_name;
            out_.functions.front().first_line = first_line;
        }
        return {};
    }

    Result<void> top(const Value& root, std::string_view backends_bytes) {
        if (root.is(Kind::Dict) && root.find("signature") != nullptr) {
            return aot_function(root, {});
        }
        if (root.is(Kind::List)) {
            // AOTCompiledModel: one payload per ModelInput.
            std::size_t index = 0;
            std::set<const Value*> payloads;
            for (const Value* item : root.items()) {
                if (!item->is(Kind::Bytes)) {
                    return fail(ErrorKind::Corrupt,
                                "a list that holds something other than function payloads");
                }
                // One compile per input: PyTorch never writes a payload twice.
                if (!payloads.insert(item).second) {
                    return fail(ErrorKind::Corrupt, "payload [" + std::to_string(index) +
                                                        "] is an earlier payload again: "
                                                        "AOTCompiledModel writes each once");
                }
                const std::string where = "[" + std::to_string(index++) + "] ";
                auto document = decode(strip_header(item->text()), where);
                if (!document) {
                    return std::unexpected(document.error());
                }
                const Value& state = (*document)->root();
                if (!state.is(Kind::Dict) || state.find("signature") == nullptr) {
                    return fail(ErrorKind::Corrupt,
                                "payload " + where + "is not a precompiled function");
                }
                if (auto read = aot_function(state, where); !read) {
                    return read;
                }
            }
            if (index == 0) {
                return fail(ErrorKind::Corrupt, "an empty list: no precompiled function");
            }
            out_.layout = PrecompileLayout::AotModel;
            return {};
        }
        const std::string cls = root.class_name();
        if (cls == std::string(kPackage) + "PrecompileCacheEntry") {
            out_.layout = PrecompileLayout::DynamoCacheEntry;
            const Value* dynamo = root.attribute("dynamo");
            if (dynamo == nullptr || !dynamo->is(Kind::Object)) {
                return fail(ErrorKind::Corrupt, "a PrecompileCacheEntry with no dynamo entry");
            }
            return dynamo_entry(*dynamo, root.attribute("backends"));
        }
        if (cls == std::string(kPackage) + "_DynamoCacheEntry") {
            out_.layout = PrecompileLayout::DynamoCacheSplit;
            const Value* backends = nullptr;
            if (!backends_bytes.empty()) {
                auto document = decode(backends_bytes, "backends");
                if (!document) {
                    return std::unexpected(document.error().at("backends"));
                }
                backends = &(*document)->root();
            }
            return dynamo_entry(root, backends);
        }
        return fail(ErrorKind::Corrupt, "not a precompiled function or DynamoCache entry: the "
                                        "pickle holds " +
                                            pickle::type_name(root));
    }

    // A payload after PyTorch's PT2AOT header, when it has one.
    std::string_view strip_header(std::string_view bytes) {
        if (bytes.starts_with(kPt2AotMagic) && bytes.size() > kPt2AotMagic.size()) {
            return bytes.substr(kPt2AotMagic.size() + 1);
        }
        return bytes;
    }

private:
    PrecompileFile& out_;
    std::shared_ptr<const void> keep_;
    std::map<std::pair<const char*, std::size_t>, std::shared_ptr<const pickle::Document>> decoded_;
};

void collect_persistent_ids(const Value* value, std::set<std::string>& out) {
    std::vector<const Value*> pending{value};
    std::set<const Value*> seen;
    while (!pending.empty() && seen.size() < (1U << 20)) {
        const Value* current = pending.back();
        pending.pop_back();
        if (current == nullptr || !seen.insert(current).second) {
            continue;
        }
        switch (current->kind()) {
        case Kind::PersistentId:
            if (const Value* id = current->persistent_id()) {
                out.insert(pickle::repr(*id));
            }
            break;
        case Kind::Dict:
            for (const auto& item : current->dict_items()) {
                pending.push_back(item.key);
                pending.push_back(item.value);
            }
            break;
        case Kind::Object:
            pending.push_back(current->args());
            pending.push_back(current->state());
            for (const Value* item : current->items()) {
                pending.push_back(item);
            }
            for (const auto& item : current->dict_items()) {
                pending.push_back(item.value);
            }
            break;
        default:
            if (current->is_sequence()) {
                for (const Value* item : current->items()) {
                    pending.push_back(item);
                }
            }
            break;
        }
    }
}

// A module's text as inspect.getsourcelines sees it (linecache: universal
// newlines, and a last line given its newline).
std::string as_python_reads(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size() + 1);
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        if (bytes[i] == '\r') {
            out += '\n';
            if (i + 1 < bytes.size() && bytes[i + 1] == '\n') {
                ++i;
            }
        } else {
            out += bytes[i];
        }
    }
    if (!out.empty() && out.back() != '\n') {
        out += '\n';
    }
    return out;
}

bool is_hex64(std::string_view name) {
    return name.size() == 64 && std::ranges::all_of(name, [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

} // namespace

std::string_view to_string(PrecompileLayout layout) {
    switch (layout) {
    case PrecompileLayout::AotFunction:
        return "precompiled function (save_compiled_function, PyTorch 2.11 layout)";
    case PrecompileLayout::AotFunctionFlat:
        return "precompiled function (save_compiled_function, PyTorch 2.10 layout)";
    case PrecompileLayout::AotFunctionEarly:
        return "precompiled function (save_compiled_function, PyTorch 2.9 layout: no system "
               "info, nothing checked on load)";
    case PrecompileLayout::AotModel:
        return "precompiled module (AOTCompiledModel: one function per input)";
    case PrecompileLayout::DynamoCacheEntry:
        return "DynamoCache entry (PyTorch 2.10+)";
    case PrecompileLayout::DynamoCacheSplit:
        return "DynamoCache entry (PyTorch 2.9: dynamo and backends files)";
    }
    return "precompile";
}

bool looks_like_precompile(std::string_view bytes) {
    if (bytes.starts_with(kPt2AotMagic)) {
        return true;
    }
    if (bytes.empty() || bytes.front() != '\x80') {
        return false;
    }
    const std::string_view head = bytes.substr(0, 4096);
    // CompileArtifacts' dict starts with its signature (an inspect.Signature),
    // also as the first payload of a module's list; a DynamoCache entry names
    // its package's classes first.
    return head.find("torch._dynamo.package") != std::string_view::npos ||
           (head.find("signature") != std::string_view::npos &&
            head.find("inspect") != std::string_view::npos);
}

Result<PrecompileFile> read_precompile(std::string_view bytes, std::shared_ptr<const void> keep,
                                       std::string_view backends_bytes) {
    PrecompileFile out;
    std::string_view pickled = bytes;
    if (bytes.starts_with(kPt2AotMagic)) {
        if (bytes.size() <= kPt2AotMagic.size()) {
            return fail(ErrorKind::Corrupt, "a PT2AOT header with no version and no payload");
        }
        out.header_version = static_cast<unsigned char>(bytes[kPt2AotMagic.size()]);
        if (out.header_version != kPt2AotVersion) {
            return fail(ErrorKind::Unsupported,
                        "PT2AOT format version " + std::to_string(out.header_version) +
                            ", not 1: PyTorch says \"AOT compiled artifact has an unsupported "
                            "serialization format. Recompile it with the current PyTorch "
                            "version.\"");
        }
        pickled = bytes.substr(kPt2AotMagic.size() + 1);
    }
    Reader reader(out, std::move(keep));
    auto document = reader.decode(pickled, "file");
    if (!document) {
        return std::unexpected(document.error());
    }
    if (auto read = reader.top((*document)->root(), backends_bytes); !read) {
        return std::unexpected(read.error());
    }
    // Objects the caller hands in at load (external_data), by persistent id.
    std::set<std::string> ids;
    collect_persistent_ids(&(*document)->root(), ids);
    out.external_data.assign(ids.begin(), ids.end());
    return out;
}

Result<PrecompileFile> read_precompile_file(const std::filesystem::path& path) {
    // A 2.9 DynamoCache `dynamo` file reads with the `backends` beside it.
    if (std::error_code error; path.filename() == "dynamo" &&
                               std::filesystem::exists(path.parent_path() / "backends", error)) {
        Entry entry;
        entry.path = path.parent_path().filename().string();
        entry.key = entry.path;
        return read_precompile_dir(path.parent_path().parent_path(), entry);
    }
    auto file = MappedFile::open(path);
    if (!file) {
        return std::unexpected(file.error());
    }
    const std::string_view bytes = (*file)->bytes();
    auto read = read_precompile(bytes, *file);
    if (!read) {
        return std::unexpected(std::move(read.error()).at(path.string()));
    }
    return read;
}

Result<PrecompileFile> read_precompile_dir(const std::filesystem::path& root, const Entry& entry) {
    const auto dir = root / entry.path;
    std::error_code error;
    if (std::filesystem::is_regular_file(dir, error)) {
        return read_precompile_file(dir); // vLLM's torch_aot_compile/<hash>/rank_*/model
    }
    const bool split = !std::filesystem::exists(dir / "entry", error) &&
                       std::filesystem::exists(dir / "dynamo", error);
    const auto main_path = dir / (split ? "dynamo" : "entry");
    auto file = MappedFile::open(main_path);
    if (!file) {
        return std::unexpected(file.error());
    }
    std::shared_ptr<const MappedFile> backends;
    if (split) {
        auto opened = MappedFile::open(dir / "backends");
        if (!opened) {
            return std::unexpected(opened.error());
        }
        backends = *opened;
    }
    auto keep = std::make_shared<
        std::pair<std::shared_ptr<const MappedFile>, std::shared_ptr<const MappedFile>>>(*file,
                                                                                         backends);
    auto read =
        read_precompile((*file)->bytes(), keep, backends ? backends->bytes() : std::string_view());
    if (!read) {
        return std::unexpected(std::move(read.error()).at(main_path.string()));
    }
    read->key = entry.key;
    if (!read->expected_key.empty() && is_hex64(read->key) && read->key != read->expected_key) {
        read->problems.push_back("the dir is named " + read->key + ", but PyTorch looks " +
                                 read->functions.front().qualname + " (line " +
                                 std::to_string(read->functions.front().first_line) + ") up as " +
                                 read->expected_key + ": this entry is never loaded");
    }
    return read;
}

std::string source_checks_answer(std::span<const SourceCheck> checks) {
    if (checks.empty()) {
        return "Nothing of your source is checked on load: the file records no source span "
               "(code defined outside a module file is never checked)";
    }
    const auto count = [&](SourceCheck::Status status) {
        return static_cast<std::size_t>(std::ranges::count(checks, status, &SourceCheck::status));
    };
    const std::size_t changed = count(SourceCheck::Status::Changed);
    const std::size_t missing = count(SourceCheck::Status::Missing);
    const std::string of =
        " of " + std::to_string(checks.size()) + " checked span" + (checks.size() == 1 ? "" : "s");
    if (changed > 0) {
        return std::to_string(changed) + of + " changed" +
               ": PyTorch's DynamoCache and vLLM reject this file and compile again";
    }
    if (missing > 0) {
        return std::to_string(missing) + of + " not found in the checkout" +
               (missing < checks.size() ? "; the rest unchanged" : "");
    }
    return "All " + std::to_string(checks.size()) + " checked span" +
           (checks.size() == 1 ? " is" : "s are") + " unchanged: the sources will not reject it";
}

std::string dynamo_cache_key(std::string_view qualname, std::int64_t first_line) {
    return hash::sha256_hex(std::string(qualname) + std::to_string(first_line));
}

std::string source_span_checksum(std::string_view source, std::int64_t first, std::int64_t last) {
    // inspect.getsourcelines keeps line ends: lines [first - 1, last - 1), joined.
    std::size_t start = 0;
    std::int64_t line = 1;
    std::size_t begin = std::string_view::npos;
    std::size_t end = source.size();
    while (start <= source.size()) {
        if (line == first) {
            begin = start;
        }
        if (line == last) {
            end = start;
            break;
        }
        const auto newline = source.find('\n', start);
        if (newline == std::string_view::npos) {
            break;
        }
        start = newline + 1;
        ++line;
    }
    if (begin == std::string_view::npos || first < 1 || last < first) {
        return hash::sha256_hex({});
    }
    return hash::sha256_hex(source.substr(begin, end > begin ? end - begin : 0));
}

std::vector<SourceCheck> check_sources_against(const PrecompileFile& file,
                                               const std::filesystem::path& source_dir) {
    std::vector<SourceCheck> out;
    for (const auto& source : file.sources) {
        SourceCheck check;
        check.source = &source;
        std::string relative = source.module;
        std::ranges::replace(relative, '.', '/');
        for (const std::string& candidate :
             {relative + ".py", relative + "/__init__.py", "src/" + relative + ".py",
              "src/" + relative + "/__init__.py"}) {
            std::error_code error;
            if (std::filesystem::is_regular_file(source_dir / candidate, error)) {
                check.path = candidate;
                break;
            }
        }
        const std::string span = source.module + " (line " + std::to_string(source.first_line) +
                                 " - line " + std::to_string(source.last_line) + ")";
        if (check.path.empty()) {
            check.text = span + ": not under " + source_dir.string() +
                         " (PyTorch imports the module by name: whatever it finds then decides)";
        } else if (auto opened = MappedFile::open(source_dir / check.path); !opened) {
            check.text = span + ": " + opened.error().message;
        } else if (source_span_checksum(as_python_reads((*opened)->bytes()), source.first_line,
                                        source.last_line) == source.checksum) {
            check.status = SourceCheck::Status::Same;
            check.text = span + ": unchanged in " + check.path;
        } else {
            check.status = SourceCheck::Status::Changed;
            check.text = "Source code changes detected for " + span + " in " + check.path +
                         ": PyTorch rejects the entry and compiles again";
        }
        out.push_back(std::move(check));
    }
    return out;
}

} // namespace cachelens::cachedir
