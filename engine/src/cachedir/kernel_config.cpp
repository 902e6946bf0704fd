#include <cachelens/cachedir/kernel_config.h>
#include <cachelens/pickle/repr.h>

#include <algorithm>

namespace cachelens::cachedir {

std::string to_string(const ConfigValue& value) {
    struct Visitor {
        std::string operator()(bool b) const { return b ? "True" : "False"; }
        std::string operator()(std::int64_t i) const { return std::to_string(i); }
        std::string operator()(double d) const { return pickle::float_repr(d); }
        std::string operator()(const std::string& s) const { return pickle::str_repr(s); }
    };
    return std::visit(Visitor{}, value);
}

ConfigValue config_value_of(const pickle::Value& value) {
    switch (value.kind()) {
    case pickle::Kind::Bool:
        return value.as_bool();
    case pickle::Kind::Int:
        return value.as_int();
    case pickle::Kind::Float:
        return value.as_float();
    case pickle::Kind::Str:
        return std::string(value.text());
    default:
        return pickle::repr(value);
    }
}

const ConfigValue* KernelConfig::kwarg(std::string_view name) const {
    for (const auto& [key, value] : kwargs) {
        if (key == name) {
            return &value;
        }
    }
    return nullptr;
}

std::string KernelConfig::describe() const {
    std::string out;
    auto add = [&](std::string_view key, const std::string& value) {
        if (!out.empty()) {
            out += ", ";
        }
        out.append(key).append("=").append(value);
    };
    for (const auto& [key, value] : kwargs) {
        add(key, to_string(value));
    }
    const std::pair<const char*, const std::optional<std::int64_t>*> options[] = {
        {"num_warps", &num_warps},
        {"num_stages", &num_stages},
        {"num_ctas", &num_ctas},
        {"maxnreg", &maxnreg},
    };
    for (const auto& [key, value] : options) {
        if (value->has_value() && !(std::string_view(key) == "num_ctas" && **value == 1)) {
            add(key, std::to_string(**value));
        }
    }
    return out;
}

bool same_config(const KernelConfig& a, const KernelConfig& b) {
    if (a.num_warps != b.num_warps || a.num_stages != b.num_stages ||
        a.kwargs.size() != b.kwargs.size()) {
        return false;
    }
    return std::all_of(a.kwargs.begin(), a.kwargs.end(), [&](const auto& kwarg) {
        const ConfigValue* other = b.kwarg(kwarg.first);
        return other != nullptr && *other == kwarg.second;
    });
}

} // namespace cachelens::cachedir
