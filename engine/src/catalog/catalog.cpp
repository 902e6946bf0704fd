#include "indexer.h"
#include "prune_steps.h"
#include "queries.h"
#include "sqlite.h"

#include <cachelens/catalog/catalog.h>
#include <cachelens/catalog/schema.h>
#include <cachelens/core/user_dirs.h>

#include <chrono>
#include <system_error>

namespace cachelens::catalog {

namespace fs = std::filesystem;

struct Catalog::Impl {
    fs::path path;
    sql::Database db;
};

fs::path default_catalog_path() {
    return default_data_dir() / "catalog.sqlite";
}

std::string root_location(const fs::path& dir) {
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(fs::absolute(dir, ec), ec);
    std::string text = (ec ? fs::absolute(dir) : canonical).lexically_normal().string();
    while (text.size() > 1 && text.ends_with('/')) {
        text.pop_back();
    }
    return text;
}

Catalog::Catalog(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
Catalog::Catalog(Catalog&&) noexcept = default;
Catalog& Catalog::operator=(Catalog&&) noexcept = default;
Catalog::~Catalog() = default;

Result<Catalog> Catalog::open(const fs::path& path) {
    std::error_code ec;
    if (path.has_parent_path() && path.parent_path() == default_data_dir()) {
        // The user's own data dir: made private, and refused when another
        // user made or owns it.
        if (auto mine = ensure_private_dir(path.parent_path()); !mine) {
            return std::unexpected(mine.error());
        }
    } else if (path.has_parent_path()) {
        fs::create_directories(path.parent_path(), ec);
        if (ec) {
            return fail(ErrorKind::Io, "cannot create the catalog's dir: " + ec.message(),
                        path.parent_path().string());
        }
    }
    auto db = sql::Database::open(path);
    if (!db) {
        return std::unexpected(db.error());
    }
    // WAL: readers (the GUI) never block the indexer; NORMAL sync keeps every
    // committed batch consistent across a crash, at most losing the last ones.
    for (const char* pragma : {"PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL",
                               "PRAGMA foreign_keys = ON", "PRAGMA temp_store = MEMORY"}) {
        if (auto ok = db->exec(pragma); !ok) {
            return std::unexpected(ok.error());
        }
    }
    if (auto ok = migrate(db->handle(), kSchemaVersion); !ok) {
        return std::unexpected(std::move(ok.error()).at(path.string()));
    }
    return Catalog(std::make_unique<Impl>(Impl{path, std::move(*db)}));
}

const fs::path& Catalog::path() const {
    return impl_->path;
}

sqlite3* Catalog::handle() const {
    return impl_->db.handle();
}

Result<IndexReport> Catalog::index(const fs::path& dir, const IndexOptions& options) {
    return index_root(impl_->db, dir, root_location(dir), options);
}

Result<IndexReport> Catalog::index_paths(const fs::path& dir, std::span<const std::string> paths,
                                         const IndexOptions& options) {
    return index_root_paths(impl_->db, dir, root_location(dir), paths, options);
}

std::string_view root_kind_of(cachedir::RootLayout layout) {
    // An Inductor cache has been "dir" since the first schema.
    return layout == cachedir::RootLayout::Inductor ? "dir" : cachedir::to_string(layout);
}

Root root_of(const sql::Statement& row) {
    const std::string_view kind = row.text_view(4);
    const auto layout =
        kind == "dir"
            ? cachedir::RootLayout::Inductor
            : cachedir::root_layout_from_string(kind).value_or(cachedir::RootLayout::Inductor);
    return Root{row.integer(0), row.text(1), row.integer(2), row.optional_integer(3), layout};
}

Result<std::vector<Root>> Catalog::roots() const {
    auto statement = sql::Statement::prepare(impl_->db, std::string("SELECT ") + kRootColumns +
                                                            " FROM roots ORDER BY location");
    if (!statement) {
        return std::unexpected(statement.error());
    }
    std::vector<Root> out;
    auto done =
        statement->for_each_row([&](const sql::Statement& row) { out.push_back(root_of(row)); });
    if (!done) {
        return std::unexpected(done.error());
    }
    return out;
}

Result<std::optional<Root>> Catalog::find_root(const fs::path& dir) const {
    auto statement = sql::Statement::prepare(impl_->db, std::string("SELECT ") + kRootColumns +
                                                            " FROM roots WHERE location = ?");
    if (!statement) {
        return std::unexpected(statement.error());
    }
    statement->bind(1, root_location(dir));
    auto row = statement->step();
    if (!row) {
        return std::unexpected(row.error());
    }
    if (!*row) {
        return std::optional<Root>();
    }
    return std::optional<Root>(root_of(*statement));
}

Result<void> Catalog::forget_root(const fs::path& dir) {
    // One transaction: a kill between the two would leave lines no root uses.
    auto transaction = sql::Transaction::begin(impl_->db);
    if (!transaction) {
        return std::unexpected(transaction.error());
    }
    auto statement = sql::Statement::prepare(impl_->db, "DELETE FROM roots WHERE location = ?");
    if (!statement) {
        return std::unexpected(statement.error());
    }
    statement->bind(1, root_location(dir));
    if (auto ok = statement->run(); !ok) {
        return ok;
    }
    if (auto ok = collect_unused_debug_lines(impl_->db); !ok) {
        return ok;
    }
    return transaction->commit();
}

} // namespace cachelens::catalog

namespace cachelens::catalog {

Result<std::vector<SearchHit>> Catalog::search(const SearchQuery& query) const {
    return search_entries(impl_->db, query);
}

Result<std::size_t> Catalog::count(const SearchQuery& query) const {
    return count_entries(impl_->db, query);
}

Result<SearchPage> Catalog::search_page(const SearchQuery& query) const {
    return search_page_of(impl_->db, query, true);
}

Result<std::vector<std::int64_t>> Catalog::search_ids(const SearchQuery& query) const {
    return search_entry_ids(impl_->db, query);
}

Result<std::vector<SearchHit>> Catalog::entries_by_id(std::span<const std::int64_t> ids) const {
    return entries_with_ids(impl_->db, ids);
}

Result<std::optional<std::vector<std::int64_t>>>
Catalog::text_match_ids(std::string_view text) const {
    return catalog::text_match_ids(impl_->db, text);
}

Result<EntryIndex> Catalog::load_index() const {
    return load_entry_index(impl_->db);
}

Result<std::vector<RootStats>> Catalog::stats(const std::optional<fs::path>& dir,
                                              std::size_t largest) const {
    return root_stats(impl_->db, dir ? std::optional(root_location(*dir)) : std::nullopt, largest);
}

} // namespace cachelens::catalog

namespace cachelens::catalog {

Result<PrunePlan> Catalog::plan_prune(const fs::path& dir, const PruneOptions& options) const {
    return catalog::plan_prune(impl_->db, root_location(dir), options);
}

Result<std::optional<PrunePlan>> Catalog::index_and_plan_prune(const fs::path& dir,
                                                               PruneOptions options,
                                                               const IndexOptions& indexing) {
    if (!options.now_ns) {
        options.now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
    }
    auto indexed = index(dir, indexing);
    if (!indexed) {
        return std::unexpected(indexed.error());
    }
    if (indexed->cancelled) {
        return std::optional<PrunePlan>();
    }
    auto plan = plan_prune(dir, options);
    if (!plan) {
        return std::unexpected(plan.error());
    }
    return std::optional<PrunePlan>(std::move(*plan));
}

Result<PruneOutcome> Catalog::prune(const PrunePlan& plan, const IndexOptions& options) {
    return run_prune(impl_->db, plan, options);
}

} // namespace cachelens::catalog
