#pragma once

// One description of an entry: its fields, grouped, each with the label
// people read, the key and typed value scripts read, the entry it links to.
// `cachelens show` (app/cli/entry_text.cpp), `cachelens show --json`
// (entry_json.cpp) and the GUI's Overview (ui/models/entry_fields_model.cpp)
// all render it, so a field added here appears in all three.
//
// A field is for everyone unless its audience says less: where the terse
// text, the raw JSON and the browsable tree say one thing differently (a
// count in the tree, every line in the JSON), each has its own field, and a
// renderer shows only the fields for it, in order.

#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/file_kind.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace cachelens::cachedir {

// Who a field is for (a bit set).
enum Audience : std::uint8_t {
    kText = 1, // `cachelens show`
    kJson = 2, // `cachelens show --json`
    kTree = 4, // the GUI's Overview
    kPeople = kText | kTree,
    kEveryone = kText | kJson | kTree,
};

// JSON text as a file held it (a best_config's unknown fields): the JSON
// renderer embeds it parsed.
struct JsonText {
    std::string text;
    bool operator==(const JsonText&) const = default;
};

// What the JSON holds for a field that is a value. A string_view is text of
// the entry's content (source, graphs, debug lines), borrowed: a description
// lives no longer than the content it describes.
using FieldValue = std::variant<std::monostate, bool, std::int64_t, std::uint64_t, double,
                                std::string, std::string_view, JsonText>;

// In the JSON: a value, an array of the children, or an object keyed by them.
enum class FieldShape : std::uint8_t { Value, List, Group };

// How `cachelens show` lays a field out.
enum class TextLayout : std::uint8_t {
    Row,     // "  label                  text", its children as rows below, indented
    Section, // "\n  label:\n", then its children
    Heading, // "\n  text\n", then its children
    Line,    // "    text", deeper under a line
    Block,   // "\nlabel:\n<value>\n": source code and graphs
};

// When `cachelens show` prints a field: always, with --source, with
// --debug-lines, or without it.
enum class TextDetail : std::uint8_t { Always, Source, DebugLines, NoDebugLines };

// Another entry of the same root a field names: a key, a Triton hash or a
// path relative to the root.
struct FieldLink {
    FileKind kind = FileKind::Unknown;
    std::string target;
    bool operator==(const FieldLink&) const = default;
};

struct Field {
    std::string label; // for people; `show` lower-cases its first letter
    std::string key;   // the JSON key; none for an element of a list
    FieldValue value;  // the JSON of a FieldShape::Value
    std::string text;  // the value (or a group's summary) as people read it
    std::string brief; // what `show` prints instead of `text`, when set
    FieldShape shape = FieldShape::Value;
    std::vector<Field> children;
    std::optional<FieldLink> link;
    bool monospace = false; // keys, hashes, code
    std::uint8_t audience = kEveryone;
    TextLayout layout = TextLayout::Row;
    TextDetail detail = TextDetail::Always;

    bool is_for(Audience reader) const { return (audience & reader) != 0; }
    // The value's text for a string or a borrowed text; empty otherwise.
    std::string_view value_text() const;
};

struct EntryDescription {
    std::vector<Field> fields;
};

// Every field of `entry` and its parsed content. Each entry type is
// described explicitly: one the description does not handle fails to
// compile.
EntryDescription describe_entry(const Entry& entry, const EntryContent& content);

// A compiled Triton kernel dir's fields (metadata, PTX, files): the entry's
// own, and the GUI's Kernels tab shows them for a kernel of an FX entry.
std::vector<Field> describe_triton_kernel(const TritonKernelDir& kernel);

} // namespace cachelens::cachedir
