#pragma once

// Reading the catalog back: search, count, stats. Catalog's methods call these.

#include "sqlite.h"

#include <cachelens/catalog/catalog.h>
#include <cachelens/catalog/entry_index.h>

namespace cachelens::catalog {

Result<std::vector<SearchHit>> search_entries(const sql::Database& db, const SearchQuery& query);
Result<std::size_t> count_entries(const sql::Database& db, const SearchQuery& query);
// A page and, with `with_total`, the count of every match, read at once.
Result<SearchPage> search_page_of(const sql::Database& db, const SearchQuery& query,
                                  bool with_total);
Result<std::vector<std::int64_t>> search_entry_ids(const sql::Database& db,
                                                   const SearchQuery& query);
Result<std::optional<std::vector<std::int64_t>>> text_match_ids(const sql::Database& db,
                                                                std::string_view text);
Result<EntryIndex> load_entry_index(const sql::Database& db);
Result<std::vector<SearchHit>> entries_with_ids(const sql::Database& db,
                                                std::span<const std::int64_t> ids);
// The columns of `roots` a Root is read from, in root_of()'s order.
inline constexpr const char* kRootColumns = "id, location, added_ns, index_completed_ns, kind";
Root root_of(const sql::Statement& row);
// What roots.kind holds for a layout: 'dir' (the column's default, from before
// Triton roots) for an Inductor cache, 'triton' for a Triton cache.
std::string_view root_kind_of(cachedir::RootLayout layout);

Result<std::vector<RootStats>> root_stats(const sql::Database& db,
                                          const std::optional<std::string>& location,
                                          std::size_t largest);

} // namespace cachelens::catalog
