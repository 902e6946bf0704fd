#include <cachelens/core/text.h>
#include <cachelens/guards/ast.h>
#include <cachelens/guards/guard_expression.h>

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace cachelens::guards {

namespace {

std::string positional_name(std::size_t index) {
    return "t" + std::to_string(index);
}

bool is_identifier(std::string_view name) {
    if (name.empty() || (name[0] >= '0' && name[0] <= '9')) {
        return false;
    }
    return std::ranges::all_of(name, [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_';
    });
}

// N of a positional symbol "tN"; nullopt for any other name.
std::optional<std::size_t> positional_index(std::string_view name) {
    if (name.size() < 2 || name[0] != 't' || (name[1] == '0' && name.size() > 2)) {
        return std::nullopt;
    }
    std::size_t index = 0;
    for (char c : name.substr(1)) {
        if (c < '0' || c > '9' || index > 1'000'000) {
            return std::nullopt;
        }
        index = index * 10 + static_cast<std::size_t>(c - '0');
    }
    return index;
}

std::string symbol_list(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& name : names) {
        out += (out.empty() ? "" : ", ") + symbol_source(name);
    }
    return out;
}

std::string count_of(std::size_t count, std::string_view noun) {
    return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

} // namespace

Result<void> check_hints(const Hints& hints, std::span<const std::vector<std::string>> symbols_read,
                         std::string_view reader) {
    std::vector<std::string> symbols;
    for (const auto& read : symbols_read) {
        symbols.insert(symbols.end(), read.begin(), read.end());
    }
    std::ranges::sort(symbols, natural_less);
    symbols.erase(std::unique(symbols.begin(), symbols.end()), symbols.end());
    // An entry without guards reads nothing and takes any shape: not a difference.
    const bool sets_differ = std::ranges::any_of(symbols_read, [&](const auto& read) {
        return !read.empty() && read.size() != symbols.size();
    });
    std::optional<std::size_t> highest;
    for (const auto& symbol : symbols) {
        if (const auto index = positional_index(symbol)) {
            highest = std::max(highest.value_or(0), *index);
        }
    }
    std::vector<std::string> missing;
    for (const auto& symbol : symbols) {
        if (!hints.find(symbol)) {
            missing.push_back(symbol);
        }
    }
    std::vector<std::string> unread;
    for (const auto& [name, value] : hints.values) {
        const auto index = positional_index(name);
        const bool input_not_read = index && highest && *index < *highest;
        if (!input_not_read && !std::ranges::binary_search(symbols, name, natural_less)) {
            unread.push_back(name);
        }
    }
    if (missing.empty() && unread.empty()) {
        return {};
    }
    const std::size_t given = hints.values.size();
    std::string message = given == 0 ? "no values given" : count_of(given, "value") + " given";
    if (symbols.empty()) {
        return fail(ErrorKind::InvalidArgument,
                    fmt::format("{}, but {} read no symbols: give none", message, reader));
    }
    message += fmt::format(", but {} read {}{}: {}", reader, count_of(symbols.size(), "symbol"),
                           sets_differ ? " between them" : "", symbol_list(symbols));
    // Values in t0, t1, ... order for t0 to tK-1 need no more words: the
    // counts say it. Anything else names what is wrong.
    bool plain = true;
    for (std::size_t i = 0; i < given; ++i) {
        plain = plain && hints.values[i].first == positional_name(i);
    }
    for (std::size_t i = 0; i < symbols.size(); ++i) {
        plain = plain && symbols[i] == positional_name(i);
    }
    if (!plain) {
        std::vector<std::string> details;
        if (!missing.empty()) {
            details.push_back("no value for " + symbol_list(missing));
        }
        if (!unread.empty()) {
            details.push_back("nothing reads " + symbol_list(unread));
        }
        message += " (" + details.front() + (details.size() > 1 ? "; " + details[1] : "") + ")";
    }
    return fail(ErrorKind::InvalidArgument, std::move(message));
}

Hints Hints::positional(std::span<const Number> values) {
    Hints hints;
    for (std::size_t i = 0; i < values.size(); ++i) {
        hints.values.emplace_back(positional_name(i), values[i]);
    }
    return hints;
}

Result<Hints> Hints::parse(std::string_view text) {
    Hints hints;
    if (trim_space(text).empty()) {
        return hints;
    }
    bool named = false;
    std::size_t index = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string_view item = trim_space(text.substr(start, comma - start));
        start = comma + 1;
        auto bad = [&](std::string_view why) {
            return fail(ErrorKind::InvalidArgument,
                        fmt::format("hint {} ('{}'): {}", index + 1, item, why));
        };
        const std::size_t equals = item.find('=');
        const bool is_named = equals != std::string_view::npos;
        if (index > 0 && is_named != named) {
            return bad("mix of positional (64) and named (t0=64) hints");
        }
        named = is_named;
        std::string name = positional_name(index);
        std::string_view value_text = item;
        if (is_named) {
            name = std::string(trim_space(item.substr(0, equals)));
            value_text = item.substr(equals + 1);
            if (!is_identifier(name)) {
                return bad("the name before '=' must be a symbol such as t0");
            }
            if (hints.find(name)) {
                return bad(fmt::format("{} is given twice", name));
            }
        }
        auto value = Number::parse(value_text);
        if (!value) {
            return bad(value_text.empty() ? "no value" : value.error().message);
        }
        hints.values.emplace_back(std::move(name), std::move(*value));
        ++index;
    }
    return hints;
}

const Number* Hints::find(std::string_view symbol) const {
    for (const auto& [name, value] : values) {
        if (name == symbol) {
            return &value;
        }
    }
    return nullptr;
}

} // namespace cachelens::guards
