#include <cachelens/core/text.h>
#include <cachelens/explain/guard_symbols.h>
#include <cachelens/guards/ast.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>

namespace cachelens::explain {

namespace {

// Unbacked sizes (u0, u1: data-dependent) have no hint; PyTorch passes none.
bool is_backed(std::string_view expression) {
    return std::ranges::none_of(size_symbols(expression),
                                [](const std::string& symbol) { return symbol.starts_with('u'); });
}

// The expression with each symbol written L['s72'], so the guard evaluator
// reads it from hints named by symbol.
std::string as_guard_source(std::string_view expression) {
    std::string out;
    for (std::size_t i = 0; i < expression.size();) {
        const char c = expression[i];
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            std::size_t end = i;
            while (end < expression.size() &&
                   (std::isalnum(static_cast<unsigned char>(expression[end])) ||
                    expression[end] == '_')) {
                ++end;
            }
            const std::string_view word = expression.substr(i, end - i);
            out += is_size_symbol(word) ? guards::symbol_source(word) : std::string(word);
            i = end;
        } else {
            out += c;
            ++i;
        }
    }
    return out;
}

// "input 2 dim 0" for each tensor dim whose size is `expression`.
std::vector<std::string> dims_of(const std::vector<ExampleInput>& inputs,
                                 std::string_view expression, bool with_tensor) {
    std::vector<std::string> dims;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const auto& input = inputs[i];
        if (input.kind != ExampleInput::Kind::Tensor) {
            continue;
        }
        for (std::size_t d = 0; d < input.shape.size(); ++d) {
            if (input.shape[d] == expression) {
                dims.push_back(with_tensor
                                   ? fmt::format("input {} dim {} ({})", i, d, input.describe())
                                   : fmt::format("input {} dim {}", i, d));
            }
        }
    }
    return dims;
}

std::optional<std::size_t> number_after(std::string_view text, std::string_view prefix) {
    if (!text.starts_with(prefix) || text.size() == prefix.size()) {
        return std::nullopt;
    }
    std::size_t value = 0;
    const auto* begin = text.data() + prefix.size();
    const auto* end = text.data() + text.size();
    const auto [at, error] = std::from_chars(begin, end, value);
    if (error != std::errc{} || at != end) {
        return std::nullopt;
    }
    return value;
}

// "input2.dim0" (or "input 2 dim 0") -> (2, 0).
std::optional<std::pair<std::size_t, std::size_t>> input_dim(std::string_view name) {
    std::string compact;
    for (char c : name) {
        if (c != ' ' && c != '.' && c != '_') {
            compact += c;
        }
    }
    const auto dim_at = compact.find("dim");
    if (!compact.starts_with("input") || dim_at == std::string::npos) {
        return std::nullopt;
    }
    const auto input = number_after(std::string_view(compact).substr(0, dim_at), "input");
    const auto dim = number_after(std::string_view(compact).substr(dim_at), "dim");
    if (!input || !dim) {
        return std::nullopt;
    }
    return std::pair{*input, *dim};
}

// "input 2 dim 0" as --sizes takes it: "input2.dim0".
std::string dim_argument(std::string dim) {
    std::erase(dim, ' ');
    if (const auto at = dim.find("dim"); at != std::string::npos) {
        dim.insert(at, ".");
    }
    return dim;
}

std::string sizes_list(const std::vector<FreeSize>& sizes) {
    if (sizes.empty()) {
        // A static graph, or an entry that says nowhere which sizes its guards
        // read (no debug lines, and no size its wrapper takes).
        return "it takes no size as an input that its entry records (a static graph, or one "
               "whose guards' t0, t1, ... only --hints can give)";
    }
    std::string out = "its sizes are ";
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        out += (i == 0 ? "" : ", ") + sizes[i].symbol;
        if (!sizes[i].dims.empty()) {
            out += " (" + sizes[i].dims.front() + ")";
        }
    }
    return out;
}

} // namespace

std::string GuardSymbol::describe() const {
    std::string text = fmt::format("{} = {} (input {})", name, expression, input);
    if (!dims.empty()) {
        text += ": ";
        for (std::size_t i = 0; i < dims.size(); ++i) {
            text += (i == 0 ? "" : ", ") + dims[i];
        }
    }
    return text;
}

std::vector<GuardSymbol> guard_symbols(const std::vector<ExampleInput>& inputs) {
    std::vector<GuardSymbol> symbols;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const auto& input = inputs[i];
        if (input.kind != ExampleInput::Kind::SymInt || !is_backed(input.expression)) {
            continue;
        }
        symbols.push_back({"t" + std::to_string(symbols.size()), i, input.expression,
                           dims_of(inputs, input.expression, true)});
    }
    return symbols;
}

std::vector<FreeSize> free_sizes(const std::vector<ExampleInput>& inputs) {
    std::vector<FreeSize> sizes;
    for (const auto& symbol : guard_symbols(inputs)) {
        for (auto& name : size_symbols(symbol.expression)) {
            if (std::ranges::none_of(sizes, [&](const FreeSize& s) { return s.symbol == name; })) {
                auto dims = dims_of(inputs, name, false);
                sizes.push_back({std::move(name), std::move(dims)});
            }
        }
    }
    return sizes;
}

Result<guards::Hints> hints_from_sizes(const std::vector<ExampleInput>& inputs,
                                       std::string_view sizes) {
    const auto symbols = guard_symbols(inputs);
    const auto free = free_sizes(inputs);
    const auto is_free = [&](std::string_view symbol) {
        return std::ranges::any_of(free, [&](const FreeSize& s) { return s.symbol == symbol; });
    };
    std::map<std::string, guards::Number, std::less<>> values;
    std::map<std::string, std::string, std::less<>> given_as; // symbol -> the item that set it
    std::string_view rest = sizes;
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        const std::string_view item = trim_space(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (item.empty()) {
            continue;
        }
        const auto equals = item.find('=');
        if (equals == std::string_view::npos) {
            return fail(ErrorKind::InvalidArgument,
                        fmt::format("'{}': give NAME=VALUE (s72=48 or input2.dim0=48)", item));
        }
        const std::string_view name = trim_space(item.substr(0, equals));
        auto value = guards::Number::parse(trim_space(item.substr(equals + 1)));
        if (!value || !value->is_int()) {
            return fail(ErrorKind::InvalidArgument, fmt::format("'{}': a size is an int", item));
        }
        std::string symbol;
        if (const auto at = input_dim(name)) {
            const auto [index, dim] = *at;
            if (index >= inputs.size() || inputs[index].kind != ExampleInput::Kind::Tensor) {
                return fail(ErrorKind::InvalidArgument,
                            fmt::format("'{}': input {} is not a tensor of this graph ({} "
                                        "input{}); {}",
                                        item, index, inputs.size(), inputs.size() == 1 ? "" : "s",
                                        sizes_list(free)));
            }
            const auto& shape = inputs[index].shape;
            if (dim >= shape.size()) {
                return fail(ErrorKind::InvalidArgument,
                            fmt::format("'{}': input {} has {} dims ({})", item, index,
                                        shape.size(), inputs[index].describe()));
            }
            const std::string& size = shape[dim];
            if (is_static_size(size)) {
                // The graph was compiled for that size only: the same value is
                // no constraint, another one never hits it.
                if (value->repr() == size) {
                    continue;
                }
                return fail(ErrorKind::InvalidArgument,
                            fmt::format("'{}': input {} dim {} is static ({}): this graph "
                                        "serves that size only",
                                        item, index, dim, size));
            }
            if (!is_free(size)) {
                return fail(ErrorKind::InvalidArgument,
                            fmt::format("'{}': input {} dim {} is {}, which follows from other "
                                        "sizes; {}",
                                        item, index, dim, size, sizes_list(free)));
            }
            symbol = size;
        } else if (is_free(name)) {
            symbol = std::string(name);
        } else {
            return fail(
                ErrorKind::InvalidArgument,
                fmt::format("'{}': this graph has no size {}; {}", item, name, sizes_list(free)));
        }
        const auto [known, added] = values.emplace(symbol, *value);
        if (!added) {
            if (!known->second.identical(*value)) {
                return fail(ErrorKind::InvalidArgument,
                            fmt::format("'{}' and '{}' give {} two values", given_as[symbol], item,
                                        symbol));
            }
            continue;
        }
        given_as[symbol] = std::string(item);
    }
    guards::Hints symbol_values;
    for (const auto& [symbol, value] : values) {
        symbol_values.values.emplace_back(symbol, value);
    }
    for (const auto& size : free) {
        if (!values.contains(size.symbol)) {
            const std::string dim =
                size.dims.empty() ? "" : " or " + dim_argument(size.dims.front()) + "=N";
            return fail(ErrorKind::InvalidArgument,
                        fmt::format("no value for {}{}: give {}=N{}", size.symbol,
                                    size.dims.empty() ? "" : " (" + size.dims.front() + ")",
                                    size.symbol, dim));
        }
    }
    guards::Hints hints;
    for (const auto& symbol : symbols) {
        auto expression = guards::GuardExpression::parse(as_guard_source(symbol.expression));
        if (!expression) {
            return fail(ErrorKind::Unsupported,
                        fmt::format("{} is {}, which cachelens cannot read: {}; give --hints",
                                    symbol.name, symbol.expression, expression.error().message));
        }
        auto value = expression->value(symbol_values);
        if (!value) {
            return fail(
                ErrorKind::InvalidArgument,
                fmt::format("{} = {}: {}", symbol.name, symbol.expression, value.error().message));
        }
        hints.values.emplace_back(symbol.name, std::move(*value));
    }
    return hints;
}

} // namespace cachelens::explain
