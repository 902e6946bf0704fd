#include <cachelens/cachedir/debug_line.h>
#include <cachelens/explain/causes.h>
#include <cachelens/explain/entry_facts.h>
#include <cachelens/explain/example_inputs.h>
#include <cachelens/explain/graph_code.h>
#include <cachelens/explain/line_diff.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace cachelens::explain {

namespace {

bool is_identifier_start(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}

bool is_identifier_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) {
        text.remove_prefix(1);
    }
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
        text.remove_suffix(1);
    }
    return text;
}

// The names a line assigns: "a, b = ..." -> {a, b}; none for other lines.
std::vector<std::string_view> assigned_names(std::string_view line) {
    const auto equals = line.find(" = ");
    if (equals == std::string_view::npos) {
        return {};
    }
    std::vector<std::string_view> names;
    std::string_view targets = line.substr(0, equals);
    while (!targets.empty()) {
        const auto comma = targets.find(',');
        const std::string_view name = trimmed(targets.substr(0, comma));
        if (name.empty() || !is_identifier_start(name.front()) ||
            !std::all_of(name.begin(), name.end(), is_identifier_char)) {
            return {};
        }
        names.push_back(name);
        if (comma == std::string_view::npos) {
            break;
        }
        targets.remove_prefix(comma + 1);
    }
    return names;
}

// A line FX prints that says nothing of what the graph computes.
bool is_bookkeeping(std::string_view line) {
    return line.empty() || line.starts_with('#') || line.starts_with("def ") ||
           line.find("GraphModule()") != std::string_view::npos ||
           line.find("torch.ops.aten.sym_size") != std::string_view::npos ||
           line.find("torch.ops.aten.sym_stride") != std::string_view::npos ||
           line.find("torch.ops.aten.sym_numel") != std::string_view::npos ||
           line.find("torch.ops.aten.sym_storage_offset") != std::string_view::npos;
}

// "view = f(x);  x = None" -> "view = f(x)": the frees follow the names.
std::string_view without_frees(std::string_view line) {
    const auto at = line.find(";  ");
    if (at != std::string_view::npos && line.ends_with("= None")) {
        return line.substr(0, at);
    }
    return line;
}

// Folds size arithmetic ("#*#", "-#", "(# - #)") to one "#".
std::string folded_sizes(std::string text) {
    static constexpr std::string_view kPatterns[] = {"#*#",    "# * #", "# + #", "# - #", "#//#",
                                                     "# // #", "(#)",   "-#",    "#.#"};
    bool changed = true;
    while (changed) {
        changed = false;
        for (const auto pattern : kPatterns) {
            for (auto at = text.find(pattern); at != std::string::npos;
                 at = text.find(pattern, at)) {
                text.replace(at, pattern.size(), "#");
                changed = true;
            }
        }
    }
    return text;
}

} // namespace

std::map<std::string, int> ops_of(std::string_view code) {
    std::map<std::string, int> ops;
    constexpr std::string_view kPrefix = "torch.ops.";
    for (auto at = code.find(kPrefix); at != std::string_view::npos;
         at = code.find(kPrefix, at + 1)) {
        std::size_t end = at + kPrefix.size();
        while (end < code.size() && (is_identifier_char(code[end]) || code[end] == '.')) {
            ++end;
        }
        std::string op(code.substr(at + kPrefix.size(), end - at - kPrefix.size()));
        // The overload ("default", "Tensor") says little to a user.
        if (const auto dot = op.rfind('.'); dot != std::string::npos && op.find('.') != dot) {
            op.erase(dot);
        }
        ++ops[op];
    }
    return ops;
}

std::set<std::string> op_names(std::string_view code) {
    std::set<std::string> names;
    for (auto& [op, count] : ops_of(code)) {
        names.insert(op);
    }
    return names;
}

double op_similarity(const std::set<std::string>& a, const std::set<std::string>& b) {
    if (a.empty() && b.empty()) {
        return 1.0;
    }
    std::size_t both = 0;
    for (const auto& op : a) {
        both += b.contains(op) ? 1 : 0;
    }
    return static_cast<double>(both) / static_cast<double>(a.size() + b.size() - both);
}

std::string_view graph_code_of(std::span<const std::string_view> debug_lines) {
    for (const auto line : debug_lines) {
        const cachedir::DebugLine parsed = cachedir::parse_debug_line(line);
        if (parsed.attribute == "gm" && !parsed.has_subkey) {
            return parsed.value;
        }
    }
    return {};
}

NormalizedCode normalize_graph_code(std::string_view code, bool sizes_as_symbol) {
    // First pass: the graph's values are its parameters and what its lines assign.
    std::unordered_set<std::string_view> values;
    std::vector<std::string_view> kept;
    for (const auto raw : split_lines(code)) {
        const std::string_view line = trimmed(raw);
        if (line.starts_with("def ")) {
            const auto open = line.find('(');
            const auto close = line.rfind(')');
            if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
                std::string_view params = line.substr(open + 1, close - open - 1);
                while (!params.empty()) {
                    const auto comma = params.find(',');
                    const auto name = trimmed(params.substr(0, comma));
                    if (!name.empty() && name != "self") {
                        values.insert(name);
                    }
                    if (comma == std::string_view::npos) {
                        break;
                    }
                    params.remove_prefix(comma + 1);
                }
            }
        }
        if (is_bookkeeping(line)) {
            continue;
        }
        const std::string_view statement = without_frees(line);
        for (const auto name : assigned_names(statement)) {
            values.insert(name);
        }
        kept.push_back(statement);
    }
    // Second pass: values renamed by first use, sizes folded.
    NormalizedCode out;
    std::unordered_map<std::string_view, std::size_t> index;
    for (const auto line : kept) {
        std::string text;
        text.reserve(line.size());
        for (std::size_t i = 0; i < line.size();) {
            const char c = line[i];
            if (is_identifier_start(c)) {
                std::size_t end = i;
                while (end < line.size() && is_identifier_char(line[end])) {
                    ++end;
                }
                const std::string_view name = line.substr(i, end - i);
                const bool attribute = i > 0 && line[i - 1] == '.';
                if (!attribute && values.contains(name) && sizes_as_symbol) {
                    // For ranking, values are anonymous: one early use of a
                    // new SymInt would renumber every later value.
                    text += 'v';
                } else if (!attribute && values.contains(name)) {
                    auto [it, added] = index.try_emplace(name, out.names.size());
                    if (added) {
                        out.names.emplace_back(name);
                    }
                    text += kValueMark;
                    text += std::to_string(it->second);
                    text += kValueMark;
                } else if (!attribute && sizes_as_symbol && is_size_symbol(name)) {
                    text += '#';
                } else {
                    text += name;
                }
                i = end;
            } else if (sizes_as_symbol && std::isdigit(static_cast<unsigned char>(c)) != 0) {
                while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])) != 0) {
                    ++i;
                }
                text += '#';
            } else if (c == kValueMark) {
                // The mark in the code itself (a hostile cache's): written as
                // Python writes the character, never read as a value.
                text += "\\x1f";
                ++i;
            } else {
                text += c;
                ++i;
            }
        }
        out.lines.push_back(sizes_as_symbol ? folded_sizes(std::move(text)) : std::move(text));
    }
    return out;
}

namespace {

// The value numbers a normalized line names, in order.
std::vector<std::size_t> values_in(std::string_view line) {
    std::vector<std::size_t> values;
    for (auto at = line.find(kValueMark); at != std::string_view::npos;) {
        const auto end = line.find(kValueMark, at + 1);
        std::size_t value = 0;
        std::from_chars(line.data() + at + 1, line.data() + end, value);
        values.push_back(value);
        at = line.find(kValueMark, end + 1);
    }
    return values;
}

std::string rendered(const NormalizedCode& code, const std::vector<std::string>& names) {
    std::string out;
    for (const auto& line : code.lines) {
        for (std::size_t i = 0; i < line.size();) {
            if (line[i] != kValueMark) {
                out += line[i++];
                continue;
            }
            const auto end = line.find(kValueMark, i + 1);
            std::size_t value = 0;
            std::from_chars(line.data() + i + 1, line.data() + end, value);
            out += names.at(value);
            i = end + 1;
        }
        out += '\n';
    }
    return out;
}

std::string joined_lines(const NormalizedCode& code) {
    std::string out;
    for (const auto& line : code.lines) {
        out += line + '\n';
    }
    return out;
}

} // namespace

AlignedCode aligned_graph_code(std::string_view left, std::string_view right) {
    const NormalizedCode named_left = normalize_graph_code(left, false);
    const NormalizedCode named_right = normalize_graph_code(right, false);
    const std::string shape_left = joined_lines(normalize_graph_code(left, true));
    const std::string shape_right = joined_lines(normalize_graph_code(right, true));
    // Lines alike in structure pair up; their values pair in order.
    std::vector<std::optional<std::size_t>> partner(named_right.names.size());
    std::vector<bool> taken(named_left.names.size(), false); // one partner each
    std::size_t i = 0;
    std::size_t j = 0;
    for (const auto& line : diff_lines(shape_left, shape_right)) {
        if (line.op == DiffLine::Op::Same) {
            const auto left_values = values_in(named_left.lines.at(i));
            const auto right_values = values_in(named_right.lines.at(j));
            if (left_values.size() == right_values.size()) {
                for (std::size_t k = 0; k < right_values.size(); ++k) {
                    auto& slot = partner[right_values[k]];
                    if (!slot && !taken[left_values[k]]) {
                        slot = left_values[k];
                        taken[left_values[k]] = true;
                    }
                }
            }
        }
        i += line.op != DiffLine::Op::Added ? 1 : 0;
        j += line.op != DiffLine::Op::Removed ? 1 : 0;
    }
    const std::set<std::string> left_names(named_left.names.begin(), named_left.names.end());
    std::vector<std::string> right_names;
    right_names.reserve(named_right.names.size());
    for (std::size_t value = 0; value < named_right.names.size(); ++value) {
        const std::string& own = named_right.names[value];
        right_names.push_back(partner[value]             ? named_left.names[*partner[value]]
                              : left_names.contains(own) ? own + "'"
                                                         : own);
    }
    return {rendered(named_left, named_left.names), rendered(named_right, right_names)};
}

double code_similarity(const NormalizedCode& a, const NormalizedCode& b) {
    if (a.lines.empty() && b.lines.empty()) {
        return 1.0;
    }
    std::string left;
    std::string right;
    for (const auto& line : a.lines) {
        left += line + '\n';
    }
    for (const auto& line : b.lines) {
        right += line + '\n';
    }
    std::size_t same = 0;
    for (const auto& line : diff_lines(left, right)) {
        same += line.op == DiffLine::Op::Same ? 1 : 0;
    }
    return 2.0 * static_cast<double>(same) / static_cast<double>(a.lines.size() + b.lines.size());
}

GraphShape graph_shape_of(std::span<const std::string_view> debug_lines) {
    GraphShape shape;
    shape.role = cachedir::graph_role(debug_lines);
    const auto code = graph_code_of(debug_lines);
    shape.ops = op_names(code);
    shape.code = normalize_graph_code(code, true);
    if (code.empty()) {
        // No gm: an entry compared by what it holds, by the ops its wrapper
        // computes. A wrapper that names none (launching kernels only), or
        // lines with neither (a 2.2/2.3 entry, its wrapper elsewhere), say
        // nothing of them.
        bool listed = false;
        for (const auto line : debug_lines) {
            const cachedir::DebugLine parsed = cachedir::parse_debug_line(line);
            if (parsed.attribute == "wrapper_ops") {
                for (auto& [op, count] : listed_ops(parsed.value)) {
                    shape.ops.insert(std::move(op));
                }
                listed = true;
            }
        }
        shape.ops_known = listed;
    }
    return shape;
}

bool same_family(const GraphShape& a, const GraphShape& b) {
    if (a.role != b.role && a.role != cachedir::GraphRole::Unknown &&
        b.role != cachedir::GraphRole::Unknown) {
        return false;
    }
    if (!a.ops_known || !b.ops_known) {
        return false;
    }
    return op_similarity(a.ops, b.ops) >= kSameGraph;
}

bool other_family(const GraphShape& a, const GraphShape& b) {
    if (a.role != b.role && a.role != cachedir::GraphRole::Unknown &&
        b.role != cachedir::GraphRole::Unknown) {
        return true;
    }
    return a.ops_known && b.ops_known && op_similarity(a.ops, b.ops) < kSameGraph;
}

} // namespace cachelens::explain
