// The catalog at scale: a full index of a synthetic cache into a fresh
// catalog, no-change re-indexes of it, and search latency for the queries a
// user types. One-shot phases of seconds do not fit Google Benchmark's
// iteration model, so this is a plain timed main printing JSON for
// run-benchmarks.sh (the anchors, `cat` and Python's sqlite3, run there).
//
// Usage: bench_catalog CACHE_DIR SCRATCH_DIR [--reindex-runs N] [--search-runs N]

#include "bench_support.h"

#include <cachelens/catalog/catalog.h>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using namespace cachelens::bench_support;

namespace fs = std::filesystem;
using cachelens::catalog::Catalog;
using cachelens::catalog::SearchQuery;
using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

struct TreeSize {
    std::uint64_t files = 0;
    std::uint64_t bytes = 0;
};

// What `find DIR -type f | xargs cat` reads: the MB/s denominator of both sides.
TreeSize tree_size(const fs::path& dir) {
    TreeSize size;
    for (const auto& item : fs::recursive_directory_iterator(dir)) {
        if (item.is_regular_file() && !item.is_symlink()) {
            ++size.files;
            size.bytes += item.file_size();
        }
    }
    return size;
}

void remove_catalog(const fs::path& path) {
    for (const char* suffix : {"", "-wal", "-shm"}) {
        fs::remove(path.string() + suffix);
    }
}

std::uint64_t catalog_bytes(const fs::path& path) {
    std::uint64_t bytes = 0;
    for (const char* suffix : {"", "-wal"}) {
        std::error_code ec;
        const auto size = fs::file_size(path.string() + suffix, ec);
        bytes += ec ? 0 : size;
    }
    return bytes;
}

Json full_index(const fs::path& cache, const fs::path& catalog_path, const TreeSize& size) {
    remove_catalog(catalog_path);
    const auto start = Clock::now();
    Catalog catalog = checked(Catalog::open(catalog_path), "open the catalog");
    const auto report = checked(catalog.index(cache), "full index");
    const double seconds = seconds_since(start);
    if (report.parsed != report.entries || report.cancelled) {
        die("the full index did not parse every entry");
    }
    return Json{
        {"seconds", seconds},
        {"threads", std::max(1u, std::thread::hardware_concurrency())},
        {"entries", report.entries},
        {"parse_errors", report.parse_errors},
        {"entries_per_s", static_cast<double>(report.entries) / seconds},
        {"mb_per_s", static_cast<double>(size.bytes) / 1e6 / seconds},
        {"catalog_bytes", catalog_bytes(catalog_path)},
    };
}

// Each run opens the catalog as `cachelens index` does, so open is counted.
// The first run after the full index is kept out of the median: it ran up to
// 2.5x slower here, most likely while the kernel wrote the new catalog back.
Json reindex(const fs::path& cache, const fs::path& catalog_path, int runs) {
    std::vector<double> samples;
    std::size_t unchanged = 0;
    for (int run = 0; run <= runs; ++run) {
        const auto start = Clock::now();
        Catalog catalog = checked(Catalog::open(catalog_path), "open the catalog");
        const auto report = checked(catalog.index(cache), "re-index");
        samples.push_back(seconds_since(start));
        if (report.parsed != 0 || report.removed != 0) {
            die("a no-change re-index parsed or removed entries");
        }
        unchanged = report.unchanged;
    }
    const double first = samples.front();
    samples.erase(samples.begin());
    return Json{{"first_s", first},
                {"runs", samples},
                {"median_s", percentile(samples, 0.5)},
                {"min_s", *std::min_element(samples.begin(), samples.end())},
                {"unchanged", unchanged}};
}

struct NamedQuery {
    std::string name;
    SearchQuery query;
};

std::vector<NamedQuery> representative_queries(const Catalog& catalog) {
    using cachelens::cachedir::FileKind;
    // A key prefix as one would paste it from a log: the first FX entry's.
    SearchQuery first_fx;
    first_fx.kinds = {FileKind::FxGraph};
    first_fx.limit = 1;
    const auto first = checked(catalog.search(first_fx), "find an FX key");
    if (first.empty()) {
        die("the catalog holds no FX entry");
    }
    std::vector<NamedQuery> queries(5);
    queries[0].name = "kernel name prefix";
    queries[0].query.text = "triton_poi";
    queries[1].name = "debug-line word";
    queries[1].query.text = "cudagraphs";
    queries[2].name = "key prefix";
    queries[2].query.text = first.front().key.substr(0, 8);
    queries[3].name = "text + kind filter";
    queries[3].query.text = "triton_per";
    queries[3].query.kinds = {FileKind::FxGraph};
    queries[4].name = "filters only";
    queries[4].query.kinds = {FileKind::FxGraph};
    queries[4].query.device = "cuda";
    for (auto& named : queries) {
        named.query.limit = 100; // one page, in the CLI's order (search() sorts)
    }
    return queries;
}

// Milliseconds of each call, after one call to warm the caches: `runs`
// calls, or fewer (never under 5) once they took 15 s, so that a slow query
// on a loaded machine cannot stretch `make bench` without bound.
template <class Call>
std::vector<double> latencies_ms(int runs, Call call) {
    constexpr int kMinimumRuns = 5;
    constexpr double kBudgetSeconds = 15;
    call();
    std::vector<double> samples;
    const auto first = Clock::now();
    for (int run = 0; run < runs; ++run) {
        if (run >= kMinimumRuns && seconds_since(first) > kBudgetSeconds) {
            break;
        }
        const auto start = Clock::now();
        call();
        samples.push_back(seconds_since(start) * 1e3);
    }
    return samples;
}

// Keeps each statement run: its SQL as prepared, and with its values bound in.
int keep_statements(unsigned, void* statements, void* statement, void*) {
    auto* kept = static_cast<std::vector<std::pair<std::string, std::string>>*>(statements);
    auto* prepared = static_cast<sqlite3_stmt*>(statement);
    char* expanded = sqlite3_expanded_sql(prepared);
    kept->emplace_back(sqlite3_sql(prepared), expanded != nullptr ? expanded : "");
    sqlite3_free(expanded);
    return 0;
}

// What the Python anchor needs to run the same steps and check that it found
// the same page: the query that orders the page's ids (values bound in), the
// one that reads each id's columns, and the ids search() returned.
Json page_of(const Catalog& catalog, const SearchQuery& query) {
    std::vector<std::pair<std::string, std::string>> statements;
    sqlite3_trace_v2(catalog.handle(), SQLITE_TRACE_STMT, keep_statements, &statements);
    const auto hits = checked(catalog.search(query), "search");
    sqlite3_trace_v2(catalog.handle(), 0, nullptr, nullptr);
    std::string page_sql, rows_sql;
    for (const auto& [sql, expanded] : statements) {
        if (sql.starts_with("SELECT e.id FROM") && sql.find(" ORDER BY ") != std::string::npos) {
            page_sql = expanded;
        } else if (sql.ends_with("WHERE e.id = ?")) {
            rows_sql = sql;
        }
    }
    Json ids = Json::array();
    for (const auto& hit : hits) {
        ids.push_back(hit.entry_id);
    }
    return Json{{"page_sql", page_sql}, {"rows_sql", rows_sql}, {"hit_ids", ids}};
}

Json search_latency(const fs::path& catalog_path, int runs) {
    const Catalog catalog = checked(Catalog::open(catalog_path), "open the catalog");
    Json out = Json::array();
    for (const auto& [name, query] : representative_queries(catalog)) {
        const Json page = page_of(catalog, query);
        std::size_t hits = 0;
        const auto search_ms =
            latencies_ms(runs, [&] { hits = checked(catalog.search(query), "search").size(); });
        std::size_t total = 0;
        const auto count_ms =
            latencies_ms(runs, [&] { total = checked(catalog.count(query), "count"); });
        // What `cachelens search` calls: the page and the count in one read.
        const auto page_ms =
            latencies_ms(runs, [&] { checked(catalog.search_page(query), "search_page"); });
        Json kinds = Json::array();
        for (auto kind : query.kinds) {
            kinds.push_back(cachelens::cachedir::to_string(kind));
        }
        out.push_back(Json{
            {"name", name},
            {"text", query.text},
            {"kinds", kinds},
            {"device", query.device.value_or("")},
            {"limit", query.limit},
            {"hits", hits},
            {"total", total},
            {"runs", search_ms.size()},
            {"search_median_ms", percentile(search_ms, 0.5)},
            {"search_p95_ms", percentile(search_ms, 0.95)},
            {"count_median_ms", percentile(count_ms, 0.5)},
            {"count_p95_ms", percentile(count_ms, 0.95)},
            {"search_page_median_ms", percentile(page_ms, 0.5)},
            {"search_page_p95_ms", percentile(page_ms, 0.95)},
            {"page_sql", page["page_sql"]},
            {"rows_sql", page["rows_sql"]},
            {"hit_ids", page["hit_ids"]},
        });
    }
    return out;
}

int positive_option(std::string_view value) {
    const int parsed = std::atoi(std::string(value).c_str());
    if (parsed <= 0) {
        die("expected a positive count, got '" + std::string(value) + "'");
    }
    return parsed;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string_view> positional;
    int reindex_runs = 5;
    int search_runs = 20;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--reindex-runs" && i + 1 < argc) {
            reindex_runs = positive_option(argv[++i]);
        } else if (arg == "--search-runs" && i + 1 < argc) {
            search_runs = positive_option(argv[++i]);
        } else {
            positional.push_back(arg);
        }
    }
    if (positional.size() != 2) {
        std::fprintf(stderr, "usage: bench_catalog CACHE_DIR SCRATCH_DIR [--reindex-runs N] "
                             "[--search-runs N]\n");
        return 2;
    }
    const fs::path cache(positional[0]);
    const fs::path scratch(positional[1]);
    fs::create_directories(scratch);
    const fs::path catalog_path = scratch / "catalog.sqlite";

    const TreeSize size = tree_size(cache);
    Json out{{"cache", fs::absolute(cache).string()},
             {"catalog", fs::absolute(catalog_path).string()},
             {"files", size.files},
             {"bytes", size.bytes}};
    out["full_index"] = full_index(cache, catalog_path, size);
    out["reindex"] = reindex(cache, catalog_path, reindex_runs);
    out["search"] = search_latency(catalog_path, search_runs);
    std::printf("%s\n", out.dump(1).c_str());
    return 0;
}
