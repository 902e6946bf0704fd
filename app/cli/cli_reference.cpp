#include "cli_reference.h"

#include <cstdint>
#include <cstdio>
#include <vector>

namespace cachelens::cli {

namespace {

// A command and the words that reach it ("bench history").
struct Command {
    const CLI::App* app = nullptr;
    std::string path;
};

std::vector<const CLI::App*> subcommands_of(const CLI::App& app) {
    return app.get_subcommands([](const CLI::App* sub) {
        return !sub->get_name().empty() && !sub->get_disabled() && !sub->get_group().empty();
    });
}

// Every command under `app`, depth first in the order they were added.
void collect(const CLI::App& app, const std::string& path, std::vector<Command>& out) {
    for (const CLI::App* sub : subcommands_of(app)) {
        const std::string sub_path = path.empty() ? sub->get_name() : path + " " + sub->get_name();
        out.push_back({sub, sub_path});
        collect(*sub, sub_path, out);
    }
}

// The options --help lists: named, in a shown group, not the help flag.
std::vector<const CLI::Option*> named_options(const CLI::App& app) {
    return app.get_options([&app](const CLI::Option* option) {
        return option->nonpositional() && !option->get_group().empty() &&
               option != app.get_help_ptr() && option != app.get_help_all_ptr();
    });
}

std::vector<const CLI::Option*> positionals(const CLI::App& app) {
    return app.get_options([](const CLI::Option* option) {
        return option->get_positional() && !option->get_group().empty();
    });
}

std::vector<std::string> option_names(const CLI::Option& option) {
    std::vector<std::string> names;
    for (const auto& name : option.get_snames()) {
        names.push_back("-" + name);
    }
    for (const auto& name : option.get_lnames()) {
        names.push_back("--" + name);
    }
    return names;
}

// A flag expects no value.
bool takes_value(const CLI::Option& option) {
    return option.get_expected_max() > 0;
}

bool repeats(const CLI::Option& option) {
    return option.get_expected_max() >= CLI::detail::expected_max_vector_size;
}

// One code point from UTF-8 at `i`, advancing `i`; U+FFFD for a bad sequence.
std::uint32_t next_code_point(std::string_view text, std::size_t& i) {
    const auto lead = static_cast<unsigned char>(text[i++]);
    int length = 0;
    std::uint32_t code = 0;
    if (lead >= 0xF0 && lead <= 0xF4) {
        length = 3;
        code = lead & 0x07u;
    } else if (lead >= 0xE0) {
        length = 2;
        code = lead & 0x0Fu;
    } else if (lead >= 0xC2 && lead < 0xE0) {
        length = 1;
        code = lead & 0x1Fu;
    } else {
        return 0xFFFD;
    }
    for (int k = 0; k < length; ++k) {
        if (i >= text.size() || (static_cast<unsigned char>(text[i]) & 0xC0u) != 0x80u) {
            return 0xFFFD;
        }
        code = (code << 6) | (static_cast<unsigned char>(text[i++]) & 0x3Fu);
    }
    return code;
}

// Lines of roff for a description: one text line per line of `text`, a
// paragraph break for an empty line (`paragraph` is .PP under a heading and
// .IP inside a tagged paragraph, to keep the indent).
std::string roff_paragraphs(std::string_view text, std::string_view paragraph) {
    std::string out;
    bool break_pending = false;
    bool paragraph_pending = false;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        const std::string_view line = text.substr(start, end - start);
        start = end + 1;
        if (line.find_first_not_of(' ') == std::string_view::npos) {
            paragraph_pending = !out.empty();
            continue;
        }
        if (paragraph_pending) {
            out += std::string(paragraph) + "\n";
        } else if (break_pending) {
            out += ".br\n";
        }
        out += roff_escape(line) + "\n";
        break_pending = true;
        paragraph_pending = false;
    }
    return out;
}

std::string bold(std::string_view text) {
    return "\\fB" + roff_escape(text) + "\\fR";
}

std::string italic(std::string_view text) {
    return "\\fI" + roff_escape(text) + "\\fR";
}

// "scan [OPTIONS] DIR", as roff.
std::string usage(const Command& command) {
    std::string out = bold("cachelens " + command.path);
    if (!named_options(*command.app).empty()) {
        out += " [" + italic("OPTIONS") + "]";
    }
    for (const CLI::Option* positional : positionals(*command.app)) {
        std::string name = italic(positional->get_name(true, false));
        if (repeats(*positional)) {
            name += " ...";
        }
        out += " " + (positional->get_required() ? name : "[" + name + "]");
    }
    if (!subcommands_of(*command.app).empty()) {
        const bool required = command.app->get_require_subcommand_min() > 0;
        out += " " + std::string(required ? "" : "[") + italic("COMMAND") + (required ? "" : "]");
    }
    return out;
}

// What --help adds after an option's name, in words.
std::string option_notes(const CLI::Option& option) {
    std::vector<std::string> notes;
    if (!option.get_default_str().empty()) {
        notes.push_back("default: " + option.get_default_str());
    }
    if (option.get_required() && !option.get_positional()) {
        notes.push_back("required");
    }
    if (!option.get_envname().empty()) {
        notes.push_back("environment: " + option.get_envname());
    }
    for (const CLI::Option* needed : option.get_needs()) {
        notes.push_back("needs " + needed->get_name());
    }
    for (const CLI::Option* excluded : option.get_excludes()) {
        notes.push_back("not with " + excluded->get_name());
    }
    if (notes.empty()) {
        return {};
    }
    std::string out = "(";
    for (std::size_t i = 0; i < notes.size(); ++i) {
        out += (i == 0 ? "" : "; ") + notes[i];
    }
    return out + ")";
}

std::string tagged_paragraph(std::string_view tag, std::string_view description) {
    std::string out = ".TP\n" + std::string(tag) + "\n";
    out += description.empty() ? "\\&\n" : roff_paragraphs(description, ".IP");
    return out;
}

std::string option_entry(const CLI::Option& option) {
    std::string tag;
    for (const auto& name : option_names(option)) {
        tag += (tag.empty() ? "" : ", ") + bold(name);
    }
    if (takes_value(option)) {
        tag += " " + italic(option.get_type_name().empty() ? "VALUE" : option.get_type_name());
        if (repeats(option)) {
            tag += " ...";
        }
    }
    std::string description = option.get_description();
    if (const std::string notes = option_notes(option); !notes.empty()) {
        description += (description.empty() ? "" : " ") + notes;
    }
    return tagged_paragraph(tag, description);
}

std::string command_section(const Command& command) {
    const CLI::App& app = *command.app;
    std::string out = ".SS \"cachelens " + roff_escape(command.path) + "\"\n";
    out += usage(command) + "\n.PP\n";
    out += roff_paragraphs(app.get_description(), ".PP");
    for (const CLI::Option* positional : positionals(app)) {
        out += tagged_paragraph(italic(positional->get_name(true, false)),
                                positional->get_description());
    }
    for (const CLI::Option* option : named_options(app)) {
        out += option_entry(*option);
    }
    if (const auto subs = subcommands_of(app); !subs.empty()) {
        std::string names;
        for (const CLI::App* sub : subs) {
            names += (names.empty() ? "" : ", ") + bold(sub->get_name());
        }
        out += ".PP\nCommands: " + names + " (below).\n";
    }
    return out;
}

bool replace_once(std::string& text, std::string_view placeholder, std::string_view value,
                  std::string& missing) {
    const std::size_t at = text.find(placeholder);
    if (at == std::string::npos || text.find(placeholder, at + 1) != std::string::npos) {
        missing = placeholder;
        return false;
    }
    text.replace(at, placeholder.size(), value);
    return true;
}

bool shell_word(std::string_view name) {
    if (name.empty()) {
        return false;
    }
    for (const char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        if (!ok) {
            return false;
        }
    }
    return true;
}

} // namespace

std::string roff_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    if (!text.empty() && (text.front() == '.' || text.front() == '\'')) {
        out += "\\&";
    }
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (static_cast<unsigned char>(c) >= 0x80) {
            char escape[16];
            std::snprintf(escape, sizeof escape, "\\[u%04X]", next_code_point(text, i));
            out += escape;
            continue;
        }
        ++i;
        switch (c) {
        case '\\':
            out += "\\e";
            break;
        case '-':
            out += "\\-";
            break;
        case '\'':
            out += "\\(aq";
            break;
        case '`':
            out += "\\(ga";
            break;
        case '"':
            out += "\\(dq";
            break;
        case '\t':
        case '\n':
        case '\r':
            out += ' ';
            break;
        default:
            out += c;
        }
    }
    return out;
}

Result<std::string> man_page(const CLI::App& app, std::string_view page_template,
                             const ManPageFields& fields) {
    std::vector<Command> commands;
    collect(app, "", commands);

    std::string synopsis = bold("cachelens") + " " + italic("COMMAND") + " [" + italic("OPTIONS") +
                           "] [" + italic("ARGUMENTS") + "]\n";
    auto root_options = named_options(app);
    if (const CLI::Option* help = app.get_help_ptr()) {
        root_options.insert(root_options.begin(), help);
    }
    for (const CLI::Option* option : root_options) {
        synopsis += ".br\n" + bold("cachelens") + " " + bold(option_names(*option).back()) + "\n";
    }
    synopsis += ".PP\nThe commands:\n.PP\n.nf\n";
    for (const Command& command : commands) {
        synopsis += usage(command) + "\n";
    }
    synopsis += ".fi";

    std::string sections;
    for (const Command& command : commands) {
        sections += command_section(command);
    }
    if (!sections.empty() && sections.back() == '\n') {
        sections.pop_back();
    }

    std::string options;
    if (const CLI::Option* help = app.get_help_ptr()) {
        options += tagged_paragraph(
            bold(option_names(*help).front()) + ", " + bold(option_names(*help).back()),
            help->get_description() + "; after a command, that command's help.");
    }
    for (const CLI::Option* option : named_options(app)) {
        options += option_entry(*option);
    }
    if (!options.empty() && options.back() == '\n') {
        options.pop_back();
    }

    std::string page(page_template);
    std::string missing;
    if (!replace_once(page, "@VERSION@", roff_escape(fields.version), missing) ||
        !replace_once(page, "@DATE@", roff_escape(fields.date), missing) ||
        !replace_once(page, "@SYNOPSIS@", synopsis, missing) ||
        !replace_once(page, "@COMMANDS@", sections, missing) ||
        !replace_once(page, "@OPTIONS@", options, missing)) {
        return fail(ErrorKind::InvalidArgument,
                    "the man page template must hold " + missing + " exactly once");
    }
    return page;
}

Result<std::string> bash_completion(const CLI::App& app) {
    // Keyed by the words from "cachelens" on: bash has no empty array subscript.
    std::vector<Command> commands{{&app, ""}};
    collect(app, "", commands);
    const auto key = [](const Command& command) {
        return command.path.empty() ? std::string("cachelens") : "cachelens " + command.path;
    };

    std::string names_table, options_table, values_table, positionals_table;
    for (const Command& command : commands) {
        std::string names;
        for (const CLI::App* sub : subcommands_of(*command.app)) {
            if (!shell_word(sub->get_name())) {
                return fail(ErrorKind::InvalidArgument,
                            "command name '" + sub->get_name() + "' is not a shell word");
            }
            names += (names.empty() ? "" : " ") + sub->get_name();
        }
        if (!names.empty()) {
            names_table += "        [\"" + key(command) + "\"]=\"" + names + "\"\n";
        }
        std::string words;
        auto options = named_options(*command.app);
        if (const CLI::Option* help = command.app->get_help_ptr()) {
            options.insert(options.begin(), help);
        }
        for (const CLI::Option* option : options) {
            for (const auto& name : option_names(*option)) {
                if (!shell_word(name)) {
                    return fail(ErrorKind::InvalidArgument,
                                "option name '" + name + "' is not a shell word");
                }
                words += (words.empty() ? "" : " ") + name;
                if (takes_value(*option)) {
                    values_table += "        [\"" + key(command) + "|" + name + "\"]=1\n";
                }
            }
        }
        options_table += "        [\"" + key(command) + "\"]=\"" + words + "\"\n";
        if (!positionals(*command.app).empty()) {
            positionals_table += "        [\"" + key(command) + "\"]=1\n";
        }
    }

    std::string script =
        "# bash completion for cachelens. Written by cachelens-docgen from the\n"
        "# command tree cachelens parses with (app/cli/cli_app.cpp): do not edit.\n"
        "\n"
        "_cachelens() {\n"
        "    # The command words each command takes, by the words that reach it.\n"
        "    local -A commands=(\n" +
        names_table +
        "    )\n"
        "    local -A options=(\n" +
        options_table +
        "    )\n"
        "    # \"COMMAND|OPTION\" for the options that take a value.\n"
        "    local -A takes_value=(\n" +
        values_table +
        "    )\n"
        "    # The commands that take file or other arguments.\n"
        "    local -A takes_arguments=(\n" +
        positionals_table +
        "    )\n"
        "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" path=cachelens word i\n"
        "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
        "        word=\"${COMP_WORDS[i]}\"\n"
        "        if [[ -n \"${takes_value[\"$path|$word\"]-}\" ]]; then\n"
        "            # Its value: the next word, or the two after it in --option=value.\n"
        "            ((i++))\n"
        "            [[ \"${COMP_WORDS[i]-}\" == \"=\" ]] && ((i++))\n"
        "        elif [[ \"$word\" != -* && \" ${commands[\"$path\"]-} \" == *\" $word \"* ]]; "
        "then\n"
        "            path=\"$path $word\"\n"
        "        fi\n"
        "    done\n"
        "    local prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
        "    [[ \"$prev\" == \"=\" && COMP_CWORD -ge 2 ]] && "
        "prev=\"${COMP_WORDS[COMP_CWORD-2]}\"\n"
        "    [[ \"$cur\" == \"=\" ]] && cur=\"\"\n"
        "    COMPREPLY=()\n"
        "    if [[ -n \"${takes_value[\"$path|$prev\"]-}\" ]]; then\n"
        "        return 0 # a value: readline's file names (complete -o default)\n"
        "    fi\n"
        "    if [[ \"$cur\" == -* ]]; then\n"
        "        COMPREPLY=($(compgen -W \"${options[\"$path\"]-}\" -- \"$cur\"))\n"
        "    elif [[ -n \"${commands[\"$path\"]-}\" ]]; then\n"
        "        COMPREPLY=($(compgen -W \"${commands[\"$path\"]-}\" -- \"$cur\"))\n"
        "        if [[ -n \"${takes_arguments[\"$path\"]-}\" ]]; then\n"
        "            compopt -o filenames 2>/dev/null\n"
        "            mapfile -t -O \"${#COMPREPLY[@]}\" COMPREPLY < <(compgen -f -- \"$cur\")\n"
        "        fi\n"
        "    fi\n"
        "    return 0\n"
        "}\n"
        "complete -o default -F _cachelens cachelens\n";
    return script;
}

} // namespace cachelens::cli
