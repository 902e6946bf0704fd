// Catalog::stats: what `ccache -s` gives compiler users, per root and kind.

#include "queries.h"

namespace cachelens::catalog {

namespace {

Result<std::vector<Root>> roots_matching(const sql::Database& db,
                                         const std::optional<std::string>& location) {
    std::string sql = std::string("SELECT ") + kRootColumns + " FROM roots";
    if (location) {
        sql += " WHERE location = ?";
    }
    sql += " ORDER BY location";
    auto statement = sql::Statement::prepare(db, sql);
    if (!statement) {
        return std::unexpected(statement.error());
    }
    if (location) {
        statement->bind(1, *location);
    }
    std::vector<Root> roots;
    auto done =
        statement->for_each_row([&](const sql::Statement& row) { roots.push_back(root_of(row)); });
    if (!done) {
        return std::unexpected(done.error());
    }
    return roots;
}

EntrySummary summary_of(const sql::Statement& row) {
    return EntrySummary{
        cachedir::file_kind_from_string(row.text_view(0)).value_or(cachedir::FileKind::Unknown),
        row.text(1),
        row.text(2),
        static_cast<std::uint64_t>(row.integer(3)),
        row.integer(4),
        row.is_null(5) ? std::string() : row.text(5)};
}

Result<std::vector<EntrySummary>> summaries(const sql::Database& db, const std::string& sql,
                                            std::int64_t root_id, std::int64_t limit) {
    auto statement = sql::Statement::prepare(db, sql);
    if (!statement) {
        return std::unexpected(statement.error());
    }
    statement->bind(1, root_id).bind(2, limit);
    std::vector<EntrySummary> out;
    auto done =
        statement->for_each_row([&](const sql::Statement& row) { out.push_back(summary_of(row)); });
    if (!done) {
        return std::unexpected(done.error());
    }
    return out;
}

} // namespace

Result<std::vector<RootStats>> root_stats(const sql::Database& db,
                                          const std::optional<std::string>& location,
                                          std::size_t largest) {
    auto roots = roots_matching(db, location);
    if (!roots) {
        return std::unexpected(roots.error());
    }
    auto kinds = sql::Statement::prepare(
        db, "SELECT kind, COUNT(*), SUM(file_count), SUM(size), MIN(mtime_ns), MAX(mtime_ns), "
            "SUM(parse_status = 'error') FROM entries WHERE root_id = ? GROUP BY kind");
    if (!kinds) {
        return std::unexpected(kinds.error());
    }
    std::vector<RootStats> out;
    for (const Root& root : *roots) {
        RootStats stats;
        stats.root = root;
        kinds->bind(1, root.id);
        auto done = kinds->for_each_row([&](const sql::Statement& row) {
            const auto kind = cachedir::file_kind_from_string(row.text_view(0))
                                  .value_or(cachedir::FileKind::Unknown);
            stats.kinds[kind] = KindStats{static_cast<std::uint64_t>(row.integer(1)),
                                          static_cast<std::uint64_t>(row.integer(2)),
                                          static_cast<std::uint64_t>(row.integer(3)),
                                          row.integer(4),
                                          row.integer(5),
                                          static_cast<std::uint64_t>(row.integer(6))};
        });
        if (!done) {
            return std::unexpected(done.error());
        }
        kinds->reset();
        auto big = summaries(db,
                             "SELECT kind, key, path, size, mtime_ns, NULL FROM entries "
                             "WHERE root_id = ? ORDER BY size DESC, path LIMIT ?",
                             root.id, static_cast<std::int64_t>(largest));
        if (!big) {
            return std::unexpected(big.error());
        }
        stats.largest = std::move(*big);
        auto errors =
            summaries(db,
                      "SELECT kind, key, path, size, mtime_ns, parse_error FROM entries "
                      "WHERE root_id = ? AND parse_status = 'error' ORDER BY path LIMIT ?",
                      root.id, 1000);
        if (!errors) {
            return std::unexpected(errors.error());
        }
        stats.parse_errors = std::move(*errors);
        out.push_back(std::move(stats));
    }
    return out;
}

} // namespace cachelens::catalog
