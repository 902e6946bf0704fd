#include "entry_text.h"

#include <cctype>
#include <cstdio>

namespace cachelens::cli {

namespace {

using namespace cachedir;

// Text as printf's %s prints it: up to the first NUL.
std::string_view c_text(std::string_view text) {
    return text.substr(0, text.find('\0'));
}

// "Compile time" -> "compile time"; an acronym ("PTX") stays.
std::string text_label(std::string_view label) {
    std::string out(c_text(label));
    if (!out.empty() && (out.size() < 2 || !std::isupper(static_cast<unsigned char>(out[1])))) {
        out[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(out[0])));
    }
    return out;
}

bool asked_for(TextDetail detail, const TextOptions& options) {
    switch (detail) {
    case TextDetail::Always:
        return true;
    case TextDetail::Source:
        return options.source;
    case TextDetail::DebugLines:
        return options.debug_lines;
    case TextDetail::NoDebugLines:
        return !options.debug_lines;
    }
    return true;
}

void append_field(std::string& out, const Field& field, const TextOptions& options,
                  std::size_t depth) {
    if (!field.is_for(kText) || !asked_for(field.detail, options)) {
        return;
    }
    const std::string_view value = c_text(field.brief.empty() ? field.text : field.brief);
    const std::string indent(2 + 2 * depth, ' ');
    switch (field.layout) {
    case TextLayout::Row: {
        // "  %-22s %s": the name indented by its depth, padded to 22.
        std::string name = std::string(2 * depth, ' ') + text_label(field.label);
        if (name.size() < 22) {
            name.append(22 - name.size(), ' ');
        }
        out += "  " + name + " ";
        out += value;
        out += '\n';
        break;
    }
    case TextLayout::Section:
        out += "\n" + indent + text_label(field.label) + ":\n";
        break;
    case TextLayout::Heading:
        out += "\n" + indent;
        out += value;
        out += '\n';
        break;
    case TextLayout::Line:
        out += indent;
        out += value;
        out += '\n';
        break;
    case TextLayout::Block:
        out += "\n" + text_label(field.label) + ":\n";
        out += c_text(field.value_text());
        out += '\n';
        break;
    }
    for (const auto& child : field.children) {
        append_field(out, child, options, depth + 1);
    }
}

} // namespace

std::string fields_text(const std::vector<Field>& fields, const TextOptions& options) {
    std::string out;
    for (const auto& field : fields) {
        append_field(out, field, options, 0);
    }
    return out;
}

void print_entry(const Entry& entry, const EntryContent& content, const TextOptions& options) {
    std::printf("%s %s\n", std::string(to_string(entry.kind)).c_str(), entry.key.c_str());
    const std::string text = fields_text(describe_entry(entry, content).fields, options);
    std::fwrite(text.data(), 1, text.size(), stdout);
}

} // namespace cachelens::cli
