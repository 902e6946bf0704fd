#pragma once

// The `cachelens` command tree: its description, --version and every
// subcommand with its options. main.cpp parses the command line with it;
// cachelens-docgen writes the man page and the bash completion from it, so
// they name exactly the commands and options --help does.

#include <CLI/CLI.hpp>

namespace cachelens::cli {

// Names and describes `app` and adds every subcommand to it; the command that
// runs stores its exit status in `exit_code`, which must outlive `app`.
void build_cli(CLI::App& app, int& exit_code);

} // namespace cachelens::cli
