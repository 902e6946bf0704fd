#pragma once

// The man page and the bash completion of `cachelens`, written from the
// CLI11 command tree it parses with (cli_app.h): every command, positional and
// option --help shows, with its description, so that neither can fall behind
// the program. cachelens-docgen runs these at build time.

#include <cachelens/core/error.h>

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>

namespace cachelens::cli {

struct ManPageFields {
    std::string_view version; // "0.1.0"
    std::string_view date;    // the release date, "2026-11-22"
};

// The man page: `page_template` with @VERSION@, @DATE@, @SYNOPSIS@, @COMMANDS@
// and @OPTIONS@ replaced (each must appear once). The rest of the page
// (NAME, DESCRIPTION, EXIT STATUS, ENVIRONMENT, FILES, SEE ALSO) is the
// template's own roff.
Result<std::string> man_page(const CLI::App& app, std::string_view page_template,
                             const ManPageFields& fields);

// A bash completion script for `app`: command names after the commands that
// take them, each command's options after "-", and readline's file name
// completion for values and positionals. Fails on a name that is not
// [A-Za-z0-9._-].
Result<std::string> bash_completion(const CLI::App& app);

// `text` as roff: backslashes, hyphens, quotes and non-ASCII characters
// escaped, a leading '.' or '\'' made literal. One line; newlines are the
// caller's.
std::string roff_escape(std::string_view text);

} // namespace cachelens::cli
