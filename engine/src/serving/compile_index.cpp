#include <cachelens/cachedir/python_literal.h>
#include <cachelens/pickle/access.h>
#include <cachelens/pickle/repr.h>
#include <cachelens/serving/compile_index.h>

#include <algorithm>
#include <tuple>

namespace cachelens::serving {

namespace {

std::string shown(const pickle::Value& value) {
    std::string text = pickle::repr(value);
    constexpr std::size_t kMax = 80;
    if (text.size() > kMax) {
        text = text.substr(0, kMax) + "...";
    }
    return text;
}

Result<CompileShape> read_shape(const pickle::Value& value) {
    if (value.is_none()) {
        return CompileShape{};
    }
    if (value.is(pickle::Kind::Int)) {
        return CompileShape{CompileShape::Kind::Size, value.as_int(), value.as_int()};
    }
    if (value.is(pickle::Kind::Tuple) && value.items().size() == 2 &&
        value.items()[0]->is(pickle::Kind::Int) && value.items()[1]->is(pickle::Kind::Int)) {
        const std::int64_t start = value.items()[0]->as_int();
        const std::int64_t end = value.items()[1]->as_int();
        if (start > end) {
            return fail(ErrorKind::Corrupt,
                        "the compile range " + shown(value) + " ends before it starts");
        }
        return CompileShape{CompileShape::Kind::Range, start, end};
    }
    return fail(ErrorKind::Corrupt, "a shape of " + shown(value) +
                                        ", where vLLM writes None, a size or a (start, end) range");
}

// A (key, path) handle, or None; `where` says what was read, for the error.
Result<std::optional<CompileHandle>> read_handle(const pickle::Value& handle,
                                                 const std::string& where) {
    if (handle.is_none()) {
        return std::nullopt;
    }
    if (!handle.is(pickle::Kind::Tuple) || handle.items().size() != 2 ||
        !handle.items()[0]->is_str() || !handle.items()[1]->is_str()) {
        return fail(ErrorKind::Corrupt, "a handle " + shown(handle) + " for " + where +
                                            ", where vLLM writes (key, path) or None");
    }
    return CompileHandle{std::string(handle.items()[0]->text()),
                         std::string(handle.items()[1]->text())};
}

Result<std::int64_t> read_graph_index(const pickle::Value& value, const pickle::Value& key) {
    const auto index = pickle::int_of(&value);
    if (!index || value.is(pickle::Kind::Bool) || *index < 0) {
        return fail(ErrorKind::Corrupt, "a graph index of " + shown(value) + " in key " +
                                            shown(key) + ", where vLLM writes a count from 0");
    }
    return *index;
}

// {(shape, graph index or graph hash, compiler): handle}
Result<CompileIndexEntry> read_dict_entry(const pickle::DictItem& item) {
    const pickle::Value& key = *item.key;
    if (!key.is(pickle::Kind::Tuple) || key.items().size() != 3) {
        return fail(ErrorKind::Corrupt,
                    "a key " + shown(key) + ", where vLLM writes (shape, graph index, compiler)");
    }
    CompileIndexEntry entry;
    auto shape = read_shape(*key.items()[0]);
    if (!shape) {
        return std::unexpected(shape.error());
    }
    entry.shape = *shape;
    const pickle::Value& graph = *key.items()[1];
    if (graph.is_str()) {
        // 2026 vLLM keys a piece by the sha256 of its graph, not its position.
        if (graph.text().empty()) {
            return fail(ErrorKind::Corrupt, "an empty graph hash in key " + shown(key) +
                                                ", where vLLM writes the graph's sha256");
        }
        entry.graph_hash = std::string(graph.text());
    } else {
        auto index = read_graph_index(graph, key);
        if (!index) {
            return std::unexpected(index.error());
        }
        entry.graph_index = *index;
    }
    const auto compiler = pickle::str_of(key.items()[2]);
    if (!compiler) {
        return fail(ErrorKind::Corrupt, "a compiler name of " + shown(*key.items()[2]) +
                                            " in key " + shown(key) + ", where vLLM writes a str");
    }
    entry.compiler = std::string(*compiler);
    auto handle = read_handle(*item.value, "key " + shown(key));
    if (!handle) {
        return std::unexpected(handle.error());
    }
    entry.handle = std::move(*handle);
    return entry;
}

// vLLM 0.6.5-0.6.6's inductor_hash_cache.py: [(shape, graph index, FX key)],
// the Inductor adaptor being the only compiler. The FX key may come as a
// (key, path) pair, the two fields of 0.7.0's InductorArtifact.
Result<CompileIndexEntry> read_list_entry(const pickle::Value& item) {
    if (!item.is(pickle::Kind::Tuple) || item.items().size() != 3) {
        return fail(ErrorKind::Corrupt,
                    "an item " + shown(item) +
                        ", where vLLM 0.6 writes (shape, graph index, FX graph key)");
    }
    CompileIndexEntry entry;
    entry.compiler = "inductor";
    auto shape = read_shape(*item.items()[0]);
    if (!shape) {
        return std::unexpected(shape.error());
    }
    entry.shape = *shape;
    auto index = read_graph_index(*item.items()[1], item);
    if (!index) {
        return std::unexpected(index.error());
    }
    entry.graph_index = *index;
    const pickle::Value& handle = *item.items()[2];
    if (handle.is_str()) {
        entry.handle = CompileHandle{std::string(handle.text()), {}};
        return entry;
    }
    auto pair = read_handle(handle, "item " + shown(item));
    if (!pair || !*pair) {
        return fail(ErrorKind::Corrupt, "a handle " + shown(handle) + " for item " + shown(item) +
                                            ", where vLLM 0.6 writes an FX graph key");
    }
    entry.handle = std::move(*pair);
    return entry;
}

} // namespace

std::string CompileIndexEntry::graph_name() const {
    if (graph_index) {
        return std::to_string(*graph_index);
    }
    constexpr std::size_t kShown = 12;
    return graph_hash.size() > kShown ? graph_hash.substr(0, kShown) : graph_hash;
}

bool CompileShape::covers(std::int64_t size) const {
    switch (kind) {
    case Kind::General:
        return true;
    case Kind::Size:
        return size == start;
    case Kind::Range:
        return size >= start && size <= end;
    }
    return false;
}

std::string CompileShape::describe() const {
    switch (kind) {
    case Kind::General:
        return "general";
    case Kind::Size:
        return std::to_string(start);
    case Kind::Range:
        return "(" + std::to_string(start) + ", " + std::to_string(end) + ")";
    }
    return {};
}

std::string CompileShape::artifact_part() const {
    switch (kind) {
    case Kind::General:
        return "shape_None";
    case Kind::Size:
        return "shape_" + std::to_string(start);
    case Kind::Range:
        return "compile_range_" + std::to_string(start) + "_" + std::to_string(end);
    }
    return {};
}

Result<CompileIndex> parse_compile_index(std::string_view text) {
    auto document = cachedir::parse_python_literal(text);
    if (!document) {
        return std::unexpected(document.error());
    }
    const pickle::Value& root = (*document)->root();
    CompileIndex index;
    if (root.is(pickle::Kind::List)) {
        index.form = CompileIndex::Form::HashedGraphList;
        index.entries.reserve(root.items().size());
        for (const auto& item : root.items()) {
            auto entry = read_list_entry(*item);
            if (!entry) {
                return std::unexpected(entry.error());
            }
            index.entries.push_back(std::move(*entry));
        }
    } else if (root.is(pickle::Kind::Dict)) {
        index.entries.reserve(root.dict_items().size());
        for (const auto& item : root.dict_items()) {
            auto entry = read_dict_entry(item);
            if (!entry) {
                return std::unexpected(entry.error());
            }
            index.entries.push_back(std::move(*entry));
        }
    } else {
        return fail(ErrorKind::Corrupt,
                    "a " + pickle::type_name(root) +
                        " where vLLM writes a dict of compiled graphs (a list in vLLM 0.6)");
    }
    std::ranges::sort(index.entries, [](const CompileIndexEntry& a, const CompileIndexEntry& b) {
        return std::tie(a.graph_index, a.graph_hash, a.shape, a.compiler) <
               std::tie(b.graph_index, b.graph_hash, b.shape, b.compiler);
    });
    return index;
}

} // namespace cachelens::serving
