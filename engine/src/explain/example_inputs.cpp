#include <cachelens/cachedir/debug_line.h>
#include <cachelens/core/text.h>
#include <cachelens/explain/example_inputs.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <tuple>

namespace cachelens::explain {

namespace {

// Splits at the commas outside brackets and quotes; empty trailing parts
// (a one-element tuple's comma) are dropped.
std::vector<std::string_view> split_top_level(std::string_view text) {
    std::vector<std::string_view> parts;
    int depth = 0;
    char quote = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quote != 0) {
            if (c == '\\') {
                ++i;
            } else if (c == quote) {
                quote = 0;
            }
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '(' || c == '[' || c == '{') {
            ++depth;
        } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
            --depth;
        } else if (c == ',' && depth == 0) {
            parts.push_back(trim_space(text.substr(start, i - start)));
            start = i + 1;
        }
    }
    if (const auto last = trim_space(text.substr(start)); !last.empty()) {
        parts.push_back(last);
    }
    return parts;
}

// `prefix(` ... `)` around the whole of `text`: what is inside; nullopt
// otherwise.
std::optional<std::string_view> inside_call(std::string_view text, std::string_view prefix) {
    text = trim_space(text);
    if (!text.starts_with(prefix) || text.size() < prefix.size() + 2 ||
        text[prefix.size()] != '(' || text.back() != ')') {
        return std::nullopt;
    }
    return text.substr(prefix.size() + 1, text.size() - prefix.size() - 2);
}

std::optional<std::string_view> inside_brackets(std::string_view text, char open, char close) {
    text = trim_space(text);
    if (text.size() < 2 || text.front() != open || text.back() != close) {
        return std::nullopt;
    }
    return text.substr(1, text.size() - 2);
}

std::vector<std::string> sizes_of(std::string_view text) {
    std::vector<std::string> sizes;
    for (const auto part : split_top_level(text)) {
        sizes.emplace_back(part);
    }
    return sizes;
}

std::string unquoted(std::string_view text) {
    text = trim_space(text);
    if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') &&
        text.back() == text.front()) {
        return std::string(text.substr(1, text.size() - 2));
    }
    return std::string(text);
}

// "device(type='cuda', index=0)" -> "cuda:0"; "device(type='cpu')" -> "cpu".
std::string device_of(std::string_view text) {
    const auto inside = inside_call(text, "device");
    if (!inside) {
        return std::string(trim_space(text));
    }
    std::string type;
    std::string index;
    for (const auto part : split_top_level(*inside)) {
        const auto equals = part.find('=');
        if (equals == std::string_view::npos) {
            type = unquoted(part);
            continue;
        }
        const auto name = trim_space(part.substr(0, equals));
        const auto value = part.substr(equals + 1);
        if (name == "type") {
            type = unquoted(value);
        } else if (name == "index") {
            index = unquoted(value);
        }
    }
    return index.empty() || index == "None" ? type : type + ":" + index;
}

std::string without_torch(std::string_view text) {
    text = trim_space(text);
    if (text.starts_with("torch.")) {
        text.remove_prefix(6);
    }
    return std::string(text);
}

// How alike two inputs are, from 0 (nothing in common) to 1 (the same);
// below zero: never the same input (not the same kind).
double similarity(const ExampleInput& a, const ExampleInput& b) {
    if (a.kind != b.kind) {
        return -1;
    }
    if (a.kind == ExampleInput::Kind::SymInt) {
        return a.expression == b.expression ? 1 : 0.7; // renamed, or another size
    }
    if (a.kind == ExampleInput::Kind::Other) {
        return a.text == b.text ? 1 : 0.2;
    }
    // Tensors: dtype 2, device 1, requires_grad 0.5, the rank 2 and a point
    // per dim (half for a size that became or stopped being symbolic).
    const std::size_t rank = std::max(a.shape.size(), b.shape.size());
    double score = 0;
    score += a.dtype == b.dtype ? 2 : 0;
    score += a.device == b.device ? 1 : 0;
    score += a.requires_grad == b.requires_grad ? 0.5 : 0;
    if (a.shape.size() == b.shape.size()) {
        score += 2;
        for (std::size_t i = 0; i < a.shape.size(); ++i) {
            if (a.shape[i] == b.shape[i]) {
                score += 1;
            } else if (!is_static_size(a.shape[i]) || !is_static_size(b.shape[i])) {
                score += 0.5;
            }
        }
    }
    return score / (5.5 + static_cast<double>(rank));
}

// Pairs below this similarity are better left unpaired (an input removed and
// another added) than called one changed input.
constexpr double kSameInput = 0.6;
// What is left over pairs across the order only when this alike.
constexpr double kMovedInput = 0.75;

// PyTorch names a graph's symbols anew in each compile (s77 in one, s97 in
// the next): a left symbol and the right one it stands for, read from the
// SymInt inputs aligned with each other.
using Renaming = std::map<std::string, std::string, std::less<>>;

// `expression` with every symbol the renaming knows replaced.
std::string renamed(std::string_view expression, const Renaming& renaming) {
    std::string out;
    std::size_t i = 0;
    while (i < expression.size()) {
        if (std::isalpha(static_cast<unsigned char>(expression[i])) != 0) {
            std::size_t end = i + 1;
            while (end < expression.size() &&
                   (std::isalnum(static_cast<unsigned char>(expression[end])) != 0 ||
                    expression[end] == '_')) {
                ++end;
            }
            const auto word = expression.substr(i, end - i);
            const auto found = renaming.find(word);
            out += found == renaming.end() ? std::string(word) : found->second;
            i = end;
        } else {
            out += expression[i++];
        }
    }
    return out;
}

// Whether two sizes are the same once the left one's symbols are renamed.
bool same_size(const std::string& a, const std::string& b, const Renaming& renaming) {
    return a == b || renamed(a, renaming) == b;
}

std::vector<InputChange> changes_between(const ExampleInput& a, const ExampleInput& b,
                                         const Renaming& renaming) {
    using Aspect = InputChange::Aspect;
    std::vector<InputChange> changes;
    if (a.kind != b.kind) {
        changes.push_back({Aspect::Kind, fmt::format("{} -> {}", a.describe(), b.describe())});
        return changes;
    }
    switch (a.kind) {
    case ExampleInput::Kind::SymInt:
        if (!same_size(a.expression, b.expression, renaming)) {
            changes.push_back(
                {Aspect::Value, fmt::format("SymInt: {} -> {}", a.expression, b.expression)});
        }
        return changes;
    case ExampleInput::Kind::Other:
        if (a.text != b.text) {
            changes.push_back({Aspect::Value, fmt::format("{} -> {}", a.text, b.text)});
        }
        return changes;
    case ExampleInput::Kind::Tensor:
        break;
    }
    if (a.shape.size() != b.shape.size()) {
        changes.push_back(
            {Aspect::Rank, fmt::format("shape: [{}] -> [{}] (rank {} -> {})", join(a.shape),
                                       join(b.shape), a.shape.size(), b.shape.size())});
    } else {
        for (std::size_t i = 0; i < a.shape.size(); ++i) {
            if (same_size(a.shape[i], b.shape[i], renaming)) {
                continue;
            }
            const bool was_static = is_static_size(a.shape[i]);
            const bool is_static = is_static_size(b.shape[i]);
            const Aspect aspect = was_static && !is_static   ? Aspect::BecameDynamic
                                  : !was_static && is_static ? Aspect::BecameStatic
                                                             : Aspect::Size;
            const char* why = aspect == Aspect::BecameDynamic  ? " (became dynamic)"
                              : aspect == Aspect::BecameStatic ? " (became static)"
                                                               : "";
            changes.push_back(
                {aspect, fmt::format("dim {}: {} -> {}{}", i, a.shape[i], b.shape[i], why), i});
        }
    }
    if (a.dtype != b.dtype) {
        changes.push_back({Aspect::Dtype, fmt::format("dtype: {} -> {}", a.dtype, b.dtype)});
    }
    if (a.device != b.device) {
        changes.push_back({Aspect::Device, fmt::format("device: {} -> {}", a.device, b.device)});
    }
    if (a.layout != b.layout) {
        changes.push_back({Aspect::Layout, fmt::format("layout: {} -> {}", a.layout, b.layout)});
    }
    if (a.requires_grad != b.requires_grad) {
        const auto text = [](const std::optional<bool>& value) {
            return value ? (*value ? "True" : "False") : "absent";
        };
        changes.push_back(
            {Aspect::RequiresGrad,
             fmt::format("requires_grad: {} -> {}", text(a.requires_grad), text(b.requires_grad))});
    }
    // A stride follows from the sizes when those changed: said only alone.
    const auto same_strides = [&] {
        if (a.stride.size() != b.stride.size()) {
            return false;
        }
        for (std::size_t i = 0; i < a.stride.size(); ++i) {
            if (!same_size(a.stride[i], b.stride[i], renaming)) {
                return false;
            }
        }
        return true;
    };
    if (!same_strides() && changes.empty()) {
        changes.push_back(
            {Aspect::Stride, fmt::format("stride: ({}) -> ({})", join(a.stride), join(b.stride))});
    }
    if (changes.empty()) {
        for (const auto& [name, value] : a.fields) {
            const auto other = b.fields.find(name);
            const std::string right = other == b.fields.end() ? "absent" : other->second;
            if (value != right) {
                changes.push_back({Aspect::Field, fmt::format("{}: {} -> {}", name, value, right)});
            }
        }
        for (const auto& [name, value] : b.fields) {
            if (!a.fields.contains(name)) {
                changes.push_back({Aspect::Field, fmt::format("{}: absent -> {}", name, value)});
            }
        }
    }
    return changes;
}

} // namespace

bool is_static_size(std::string_view size) {
    size = trim_space(size);
    if (size.empty()) {
        return false;
    }
    return std::all_of(size.begin(), size.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

bool is_size_symbol(std::string_view word) {
    std::size_t letters = 0;
    while (letters < word.size() && word[letters] >= 'a' && word[letters] <= 'z') {
        ++letters;
    }
    return letters > 0 && letters < word.size() &&
           std::all_of(word.begin() + static_cast<std::ptrdiff_t>(letters), word.end(),
                       [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string> size_symbols(std::string_view expression) {
    std::vector<std::string> symbols;
    for (std::size_t i = 0; i < expression.size();) {
        const auto c = static_cast<unsigned char>(expression[i]);
        if (std::isalpha(c) == 0 && c != '_') {
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < expression.size() &&
               (std::isalnum(static_cast<unsigned char>(expression[end])) != 0 ||
                expression[end] == '_')) {
            ++end;
        }
        const std::string word(expression.substr(i, end - i));
        if (is_size_symbol(word) && std::ranges::find(symbols, word) == symbols.end()) {
            symbols.push_back(word);
        }
        i = end;
    }
    return symbols;
}

std::string ExampleInput::describe() const {
    switch (kind) {
    case Kind::Tensor:
        return fmt::format("[{}] {}{}", join(shape), dtype, device.empty() ? "" : " on " + device);
    case Kind::SymInt:
        return "SymInt " + expression;
    case Kind::Other:
        break;
    }
    return text;
}

std::vector<ExampleInput> example_inputs_of(std::span<const std::string_view> debug_lines) {
    // (position, order seen, input): a position written twice keeps its order.
    std::vector<std::tuple<std::size_t, std::size_t, ExampleInput>> indexed;
    for (const auto& line : cachedir::parse_debug_lines(debug_lines)) {
        if (line.attribute != "example_inputs" || !line.has_subkey) {
            continue;
        }
        std::size_t index = 0;
        const auto* end = line.subkey.data() + line.subkey.size();
        if (std::from_chars(line.subkey.data(), end, index).ptr != end) {
            continue; // not a position: no input of ours
        }
        indexed.emplace_back(index, indexed.size(), parse_example_input(line.value));
    }
    std::sort(indexed.begin(), indexed.end(), [](const auto& a, const auto& b) {
        return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
    });
    std::vector<ExampleInput> inputs;
    inputs.reserve(indexed.size());
    for (auto& entry : indexed) {
        inputs.push_back(std::move(std::get<2>(entry)));
    }
    return inputs;
}

ExampleInput parse_example_input(std::string_view value) {
    ExampleInput input;
    input.text = std::string(trim_space(value));
    if (const auto metadata = inside_call(input.text, "TensorMetadata")) {
        input.kind = ExampleInput::Kind::Tensor;
        for (const auto part : split_top_level(*metadata)) {
            const auto equals = part.find('=');
            if (equals == std::string_view::npos) {
                continue;
            }
            const std::string name(trim_space(part.substr(0, equals)));
            const auto field = trim_space(part.substr(equals + 1));
            input.fields[name] = std::string(field);
            if (name == "dtype") {
                input.dtype = without_torch(field);
            } else if (name == "shape") {
                const auto size = inside_call(field, "torch.Size");
                const auto list = inside_brackets(size.value_or(field), '[', ']');
                input.shape = sizes_of(list ? *list : size.value_or(field));
            } else if (name == "stride") {
                const auto tuple = inside_brackets(field, '(', ')');
                input.stride = sizes_of(tuple.value_or(field));
            } else if (name == "device") {
                input.device = device_of(field);
            } else if (name == "layout") {
                input.layout = without_torch(field);
            } else if (name == "requires_grad") {
                if (field == "True" || field == "False") {
                    input.requires_grad = field == "True";
                }
            }
        }
        for (const char* shown :
             {"dtype", "shape", "stride", "device", "layout", "requires_grad"}) {
            input.fields.erase(shown);
        }
        return input;
    }
    // A SymInt: a one-element tuple of its expression, quoted.
    if (const auto tuple = inside_brackets(input.text, '(', ')')) {
        const auto parts = split_top_level(*tuple);
        if (parts.size() == 1 && parts[0].size() >= 2 &&
            (parts[0].front() == '\'' || parts[0].front() == '"') &&
            parts[0].back() == parts[0].front()) {
            input.kind = ExampleInput::Kind::SymInt;
            input.expression = unquoted(parts[0]);
        }
    }
    return input;
}

std::vector<std::string> AlignedInput::change_texts() const {
    std::vector<std::string> texts;
    texts.reserve(changes.size());
    for (const auto& change : changes) {
        texts.push_back(change.text);
    }
    return texts;
}

bool AlignedInput::has(InputChange::Aspect aspect) const {
    return std::ranges::any_of(
        changes, [aspect](const InputChange& change) { return change.aspect == aspect; });
}

std::string AlignedInput::describe() const {
    const auto where = [](const std::optional<std::size_t>& index) {
        return index ? std::to_string(*index) : std::string("-");
    };
    std::string text = "input " + where(left) + " -> " + where(right) + ":";
    const char* separator = " ";
    for (const auto& change : changes) {
        text += separator + change.text;
        separator = "; ";
    }
    return text;
}

std::vector<AlignedInput> align_inputs(const std::vector<ExampleInput>& left,
                                       const std::vector<ExampleInput>& right) {
    // Needleman-Wunsch with free gaps, maximising the similarity of the
    // pairs kept in order.
    const std::size_t n = left.size();
    const std::size_t m = right.size();
    std::vector<std::vector<double>> best(n + 1, std::vector<double>(m + 1, 0));
    for (std::size_t i = 1; i <= n; ++i) {
        for (std::size_t j = 1; j <= m; ++j) {
            double value = std::max(best[i - 1][j], best[i][j - 1]);
            if (const double score = similarity(left[i - 1], right[j - 1]) - kSameInput;
                score > 0) {
                value = std::max(value, best[i - 1][j - 1] + score);
            }
            best[i][j] = value;
        }
    }
    std::vector<AlignedInput> reversed;
    std::size_t i = n;
    std::size_t j = m;
    while (i > 0 || j > 0) {
        if (i > 0 && j > 0) {
            const double score = similarity(left[i - 1], right[j - 1]) - kSameInput;
            if (score > 0 && best[i][j] == best[i - 1][j - 1] + score) {
                reversed.push_back({i - 1, j - 1, {}});
                --i;
                --j;
                continue;
            }
        }
        if (j > 0 && (i == 0 || best[i][j] == best[i][j - 1])) {
            reversed.push_back({std::nullopt, j - 1, {}});
            --j;
        } else {
            reversed.push_back({i - 1, std::nullopt, {}});
            --i;
        }
    }
    std::vector<AlignedInput> aligned(reversed.rbegin(), reversed.rend());

    // What is left on both sides may have moved: pair the most alike, each
    // at most once, when they are the same kind and alike enough.
    for (auto& removed : aligned) {
        if (!removed.removed()) {
            continue;
        }
        AlignedInput* partner = nullptr;
        double partner_score = 0;
        for (auto& added : aligned) {
            if (!added.added()) {
                continue;
            }
            const double score = similarity(left[*removed.left], right[*added.right]);
            if (score >= kMovedInput && score > partner_score) {
                partner = &added;
                partner_score = score;
            }
        }
        if (partner != nullptr) {
            partner->left = removed.left;
            // The same position, with inputs added and removed around it, is no move.
            if (*removed.left != *partner->right) {
                partner->changes.push_back(
                    {InputChange::Aspect::Moved,
                     fmt::format("moved: input {} -> input {}", *removed.left, *partner->right)});
            }
            removed.left.reset(); // marked for removal below
        }
    }
    std::erase_if(aligned, [](const AlignedInput& a) { return !a.left && !a.right; });

    // Symbols renamed between the compiles, from the SymInts paired above; a
    // symbol paired with two different ones is left as it is.
    Renaming renaming;
    std::set<std::string> ambiguous;
    for (const auto& pair : aligned) {
        if (!pair.left || !pair.right) {
            continue;
        }
        const ExampleInput& a = left[*pair.left];
        const ExampleInput& b = right[*pair.right];
        if (a.kind != ExampleInput::Kind::SymInt || b.kind != ExampleInput::Kind::SymInt ||
            !is_size_symbol(a.expression) || !is_size_symbol(b.expression)) {
            continue;
        }
        const auto [known, added] = renaming.emplace(a.expression, b.expression);
        if (!added && known->second != b.expression) {
            ambiguous.insert(a.expression);
        }
    }
    for (const auto& symbol : ambiguous) {
        renaming.erase(symbol);
    }
    for (auto& pair : aligned) {
        if (pair.left && pair.right) {
            auto changes = changes_between(left[*pair.left], right[*pair.right], renaming);
            pair.changes.insert(pair.changes.end(), changes.begin(), changes.end());
        } else if (pair.left) {
            pair.changes.push_back(
                {InputChange::Aspect::Removed, "removed: " + left[*pair.left].describe()});
        } else {
            pair.changes.push_back(
                {InputChange::Aspect::Added, "added: " + right[*pair.right].describe()});
        }
    }
    return aligned;
}

} // namespace cachelens::explain
