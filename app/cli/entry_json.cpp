#include "entry_json.h"

namespace cachelens::cli {

namespace {

using namespace cachedir;

Json field_json(const Field& field);

Json value_json(const FieldValue& value) {
    return std::visit(
        [](const auto& v) -> Json {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::monostate>) {
                return nullptr;
            } else if constexpr (std::is_same_v<T, std::string_view>) {
                return text(v);
            } else if constexpr (std::is_same_v<T, JsonText>) {
                return Json::parse(v.text, nullptr, false);
            } else {
                return v;
            }
        },
        value);
}

Json field_json(const Field& field) {
    switch (field.shape) {
    case FieldShape::Value:
        return value_json(field.value);
    case FieldShape::List: {
        Json out = Json::array();
        for (const auto& child : field.children) {
            if (child.is_for(kJson)) {
                out.push_back(field_json(child));
            }
        }
        return out;
    }
    case FieldShape::Group:
        return fields_json(field.children);
    }
    return nullptr;
}

} // namespace

Json fields_json(const std::vector<Field>& fields) {
    Json out = Json::object();
    for (const auto& field : fields) {
        if (field.is_for(kJson)) {
            out[field.key] = field_json(field);
        }
    }
    return out;
}

Json entry_json(const Entry& entry, const EntryContent& content) {
    return fields_json(describe_entry(entry, content).fields);
}

} // namespace cachelens::cli
