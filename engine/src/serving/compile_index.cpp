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

Result<CompileIndexEntry> read_entry(const pickle::DictItem& item) {
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
    const auto index = pickle::int_of(key.items()[1]);
    if (!index || key.items()[1]->is(pickle::Kind::Bool) || *index < 0) {
        return fail(ErrorKind::Corrupt, "a graph index of " + shown(*key.items()[1]) + " in key " +
                                            shown(key) + ", where vLLM writes a count from 0");
    }
    entry.graph_index = *index;
    const auto compiler = pickle::str_of(key.items()[2]);
    if (!compiler) {
        return fail(ErrorKind::Corrupt, "a compiler name of " + shown(*key.items()[2]) +
                                            " in key " + shown(key) + ", where vLLM writes a str");
    }
    entry.compiler = std::string(*compiler);
    const pickle::Value& handle = *item.value;
    if (handle.is_none()) {
        return entry;
    }
    if (!handle.is(pickle::Kind::Tuple) || handle.items().size() != 2 ||
        !handle.items()[0]->is_str() || !handle.items()[1]->is_str()) {
        return fail(ErrorKind::Corrupt, "a handle " + shown(handle) + " for key " + shown(key) +
                                            ", where vLLM writes (key, path) or None");
    }
    entry.handle = CompileHandle{std::string(handle.items()[0]->text()),
                                 std::string(handle.items()[1]->text())};
    return entry;
}

} // namespace

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
    if (!root.is(pickle::Kind::Dict)) {
        return fail(ErrorKind::Corrupt, "a " + pickle::type_name(root) +
                                            " where vLLM writes a dict of compiled graphs");
    }
    CompileIndex index;
    index.entries.reserve(root.dict_items().size());
    for (const auto& item : root.dict_items()) {
        auto entry = read_entry(item);
        if (!entry) {
            return std::unexpected(entry.error());
        }
        index.entries.push_back(std::move(*entry));
    }
    std::ranges::sort(index.entries, [](const CompileIndexEntry& a, const CompileIndexEntry& b) {
        return std::tie(a.graph_index, a.shape, a.compiler) <
               std::tie(b.graph_index, b.shape, b.compiler);
    });
    return index;
}

} // namespace cachelens::serving
