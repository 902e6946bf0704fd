#include <cachelens/cachedir/aot_autograd_entry.h>
#include <cachelens/pickle/access.h>
#include <cachelens/pickle/unpickler.h>

namespace cachelens::cachedir {

namespace {

using pickle::elements_of;
using pickle::Kind;
using pickle::str_of;
using pickle::Value;

// Classes have moved between PyTorch releases (autograd_cache.AOTAutogradCacheEntry
// before aot_autograd_result.AOTAutogradResult); any of them is accepted.
bool is_aot_result_class(std::string_view name) {
    return name.starts_with("torch._functorch.") &&
           (name.ends_with(".AOTAutogradResult") || name.ends_with(".AOTAutogradCacheEntry") ||
            name.ends_with(".GenericAOTAutogradResult") ||
            name.ends_with(".GenericAOTAutogradCacheEntry") ||
            name.ends_with(".BundledAOTAutogradResult") ||
            name.ends_with(".BundledAOTAutogradCacheEntry"));
}

// BundledCompiledForward/BundledCompiledBackward: result = the CompiledFxGraph
// itself, with the key and debug lines it had in the FX graph cache (None when
// it never went through it, as for torch.compile(...).aot_compile).
std::optional<FxGraphLink> bundled_link_of(const Value* compiled) {
    const Value* graph = compiled->attribute("result");
    if (graph == nullptr || !graph->is(Kind::Object) ||
        !graph->class_name().ends_with(".CompiledFxGraph")) {
        return std::nullopt;
    }
    FxGraphLink link;
    link.bundled = true;
    if (auto key = str_of(graph->attribute("_fx_graph_cache_key"))) {
        link.key = std::string(*key);
    }
    for (const Value* line : elements_of(graph->attribute("_fx_graph_cache_debug_lines"))) {
        if (auto text = str_of(line)) {
            link.debug_lines.push_back(*text);
        }
    }
    return link;
}

// CompiledForward/CompiledBackward: fx_graph_cache_info = (key, [debug
// lines]) from PyTorch 2.8; a plain fx_graph_cache_key before (2.4 to 2.7).
std::optional<FxGraphLink> link_of(const Value* compiled) {
    if (compiled == nullptr || !compiled->is(Kind::Object)) {
        return std::nullopt;
    }
    if (auto bundled = bundled_link_of(compiled)) {
        return bundled;
    }
    if (auto key = str_of(compiled->attribute("fx_graph_cache_key"))) {
        return FxGraphLink{std::string(*key), {}};
    }
    const Value* info = compiled->attribute("fx_graph_cache_info");
    const auto parts = elements_of(info);
    if (parts.empty()) {
        return std::nullopt;
    }
    auto key = str_of(parts[0]);
    if (!key) {
        return std::nullopt;
    }
    FxGraphLink link{std::string(*key), {}};
    if (parts.size() > 1) {
        for (const Value* line : elements_of(parts[1])) {
            if (auto text = str_of(line)) {
                link.debug_lines.push_back(*text);
            }
        }
    }
    return link;
}

} // namespace

const pickle::Value* AotAutogradEntry::attribute(std::string_view name) const {
    return root().attribute(name);
}

Result<AotAutogradEntry> read_aot_autograd_entry(std::shared_ptr<const pickle::Document> document) {
    const Value& root = document->root();
    AotAutogradEntry entry;
    entry.class_name = root.class_name();
    if (!root.is(Kind::Object) || !is_aot_result_class(entry.class_name)) {
        return fail(ErrorKind::Corrupt,
                    "not an AOTAutograd result: the pickle holds " + pickle::type_name(root));
    }
    if (root.state() == nullptr || !root.state()->is(Kind::Dict)) {
        return fail(ErrorKind::Corrupt, "the AOTAutograd result has no state dict");
    }
    entry.attribute_names = pickle::attribute_names(root);
    entry.guards_expr = str_of(root.attribute("guards_expr"));
    entry.forward = link_of(root.attribute("compiled_fw"));
    entry.backward = link_of(root.attribute("compiled_bw"));
    entry.forward_time_taken_ns = pickle::int_of(root.attribute("forward_time_taken_ns"));
    entry.backward_time_taken_ns = pickle::int_of(root.attribute("backward_time_taken_ns"));
    entry.joint_graph = str_of(root.attribute("aot_joint_graph_str"));
    entry.forward_graph = str_of(root.attribute("aot_forward_graph_str"));
    entry.backward_graph = str_of(root.attribute("aot_backward_graph_str"));
    entry.document = std::move(document);
    return entry;
}

Result<AotAutogradEntry> load_aot_autograd_entry(const std::filesystem::path& file) {
    return pickle::unpickle_file_as(file, read_aot_autograd_entry);
}

const std::set<std::string_view>& decoded_aot_autograd_attributes() {
    static const std::set<std::string_view> names = {"guards_expr",
                                                     "compiled_fw",
                                                     "compiled_bw",
                                                     "forward_time_taken_ns",
                                                     "backward_time_taken_ns",
                                                     "aot_joint_graph_str",
                                                     "aot_forward_graph_str",
                                                     "aot_backward_graph_str"};
    return names;
}

} // namespace cachelens::cachedir
