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

// The Triton kernel dirs of a root grouped by `group` (a column of the join).
Result<std::vector<TritonGroupStats>> triton_groups(const sql::Database& db,
                                                    const std::string& group, std::int64_t root_id,
                                                    std::int64_t limit) {
    auto statement = sql::Statement::prepare(
        db, "SELECT COALESCE(" + group +
                ", ''), COUNT(*), SUM(e.size), MIN(e.mtime_ns), MAX(e.mtime_ns) FROM entries e "
                "LEFT JOIN triton_kernels t ON t.entry_id = e.id WHERE e.root_id = ? AND e.kind = "
                "'triton' GROUP BY 1 ORDER BY 3 DESC, 1 LIMIT ?");
    if (!statement) {
        return std::unexpected(statement.error());
    }
    statement->bind(1, root_id).bind(2, limit);
    std::vector<TritonGroupStats> out;
    auto done = statement->for_each_row([&](const sql::Statement& row) {
        out.push_back({row.text(0), static_cast<std::uint64_t>(row.integer(1)),
                       static_cast<std::uint64_t>(row.integer(2)), row.integer(3), row.integer(4)});
    });
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
        auto by_name = triton_groups(db, "e.name", root.id, static_cast<std::int64_t>(largest));
        auto by_arch =
            by_name ? triton_groups(db, "t.arch", root.id, 1000) : std::unexpected(by_name.error());
        if (!by_arch) {
            return std::unexpected(by_arch.error());
        }
        stats.triton_by_name = std::move(*by_name);
        stats.triton_by_arch = std::move(*by_arch);
        auto errors =
            summaries(db,
                      "SELECT kind, key, path, size, mtime_ns, parse_error FROM entries "
                      "WHERE root_id = ? AND parse_status = 'error' ORDER BY path LIMIT ?",
                      root.id, 1000);
        if (!errors) {
            return std::unexpected(errors.error());
        }
        stats.parse_errors = std::move(*errors);
        auto unknown = summaries(db,
                                 "SELECT kind, key, path, size, mtime_ns, NULL FROM entries "
                                 "WHERE root_id = ? AND kind = 'unknown' "
                                 "ORDER BY size DESC, path LIMIT ?",
                                 root.id, static_cast<std::int64_t>(largest));
        if (!unknown) {
            return std::unexpected(unknown.error());
        }
        stats.unknown = std::move(*unknown);
        out.push_back(std::move(stats));
    }
    return out;
}

} // namespace cachelens::catalog
