#pragma once

// The --catalog option every catalog command takes, and opening it.

#include <cachelens/catalog/catalog.h>
#include <cachelens/core/format.h>

#include <CLI/CLI.hpp>

#include <string>

namespace cachelens::cli {

void add_catalog_option(CLI::App& command, std::string& path);
// Opens `path`, or the default catalog when it is empty.
Result<catalog::Catalog> open_catalog(const std::string& path);

} // namespace cachelens::cli
