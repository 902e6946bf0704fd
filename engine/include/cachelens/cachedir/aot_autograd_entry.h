#pragma once

// One AOTAutograd result: `aotautograd/<key>/<name>`, a pickle of
// AOTAutogradResult (formats.md §3). Its compiled_fw/compiled_bw name the FX
// graph entries it is made of: the links from an AOT entry to its graphs.

#include <cachelens/core/error.h>
#include <cachelens/pickle/value.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::cachedir {

struct FxGraphLink {
    std::string key; // the fxgraph key; empty when a bundled graph has none
    std::vector<std::string_view> debug_lines; // as recorded when it was compiled
    // The compiled graph itself is inside the entry (BundledCompiledForward/
    // Backward, as precompile and the DynamoCache save them): PyTorch runs it
    // from there and never looks `key` up in fxgraph/.
    bool bundled = false;
};

struct AotAutogradEntry {
    std::string class_name;
    std::optional<std::string_view> guards_expr;
    std::optional<FxGraphLink> forward;
    std::optional<FxGraphLink> backward;
    std::optional<std::int64_t> forward_time_taken_ns;
    std::optional<std::int64_t> backward_time_taken_ns;
    std::optional<std::string_view> joint_graph;
    std::optional<std::string_view> forward_graph;
    std::optional<std::string_view> backward_graph;
    std::vector<std::string_view> attribute_names;

    std::shared_ptr<const pickle::Document> document;
    const pickle::Value& root() const { return document->root(); }
    const pickle::Value* attribute(std::string_view name) const;
};

// The pickle attributes AotAutogradEntry decodes into its own fields.
const std::set<std::string_view>& decoded_aot_autograd_attributes();

Result<AotAutogradEntry> read_aot_autograd_entry(std::shared_ptr<const pickle::Document> document);
Result<AotAutogradEntry> load_aot_autograd_entry(const std::filesystem::path& file);

} // namespace cachelens::cachedir
