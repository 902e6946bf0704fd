#pragma once

// Bringing a root's rows up to date with its dir (Catalog::index).

#include "sqlite.h"

#include <cachelens/catalog/catalog.h>

namespace cachelens::catalog {

Result<IndexReport> index_root(sql::Database& db, const std::filesystem::path& dir,
                               const std::string& location, const IndexOptions& options);

// Brings the rows of the entries `paths` belong to up to date
// (Catalog::index_paths).
Result<IndexReport> index_root_paths(sql::Database& db, const std::filesystem::path& dir,
                                     const std::string& location,
                                     std::span<const std::string> paths,
                                     const IndexOptions& options);

// Deletes the debug lines no FX entry refers to any more.
Result<void> collect_unused_debug_lines(sql::Database& db);

} // namespace cachelens::catalog
