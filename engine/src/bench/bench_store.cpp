// Re-benchmark runs in the catalog's bench_* tables (schema v3). A result's
// config is stored as JSON that reads back into the same KernelConfig
// (kwargs in order with their types, then the launch options); whether the
// .best_config named it when it ran goes into that JSON too ("was_best"),
// since schema v3 has no column for it and has shipped.

#include "../catalog/sqlite.h"
#include "config_json.h"

#include <cachelens/bench/bench_store.h>

#include <nlohmann/json.hpp>

namespace cachelens::bench {

namespace {

using Json = nlohmann::ordered_json;
using cachedir::ConfigValue;
using cachedir::KernelConfig;
using catalog::sql::Database;
using catalog::sql::Statement;
using catalog::sql::Transaction;

Json config_json(const KernelConfig& config, bool was_best) {
    Json json = Json::object();
    json["kwargs"] = detail::kwargs_json<Json>(config);
    detail::add_launch_options(json, config);
    json["was_best"] = was_best;
    return json;
}

std::optional<std::int64_t> optional_int(const Json& json, const char* key) {
    auto it = json.find(key);
    if (it == json.end() || !it->is_number_integer()) {
        return std::nullopt;
    }
    return it->get<std::int64_t>();
}

// The inverse of config_json(); false when the text is not such a JSON.
bool read_config(std::string_view text, KernelConfig& config, bool& was_best) {
    const Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_object()) {
        return false;
    }
    auto kwargs = json.find("kwargs");
    if (kwargs == json.end() || !kwargs->is_object()) {
        return false;
    }
    for (const auto& [name, value] : kwargs->items()) {
        if (value.is_boolean()) {
            config.kwargs.emplace_back(name, ConfigValue(value.get<bool>()));
        } else if (value.is_number_integer()) {
            config.kwargs.emplace_back(name, ConfigValue(value.get<std::int64_t>()));
        } else if (value.is_number()) {
            config.kwargs.emplace_back(name, ConfigValue(value.get<double>()));
        } else if (value.is_string()) {
            config.kwargs.emplace_back(name, ConfigValue(value.get<std::string>()));
        } else {
            return false;
        }
    }
    config.num_warps = optional_int(json, "num_warps");
    config.num_stages = optional_int(json, "num_stages");
    config.num_ctas = optional_int(json, "num_ctas");
    config.maxnreg = optional_int(json, "maxnreg");
    auto best = json.find("was_best");
    was_best = best != json.end() && best->is_boolean() && best->get<bool>();
    return true;
}

Result<void> insert_result(Database& db, Statement& insert, Statement& insert_sample,
                           std::int64_t run_id, const CandidateResult& result) {
    insert.bind(1, run_id)
        .bind(2, std::string_view(result.kernel_name))
        .bind(3, std::string_view(result.module_key))
        .bind(4, std::string_view(result.triton_hash))
        .bind(5, std::string_view(config_json(result.config, result.was_best).dump()))
        .bind(6, std::string_view(result.status))
        .bind(7, std::string_view(result.message));
    if (result.origin.empty()) {
        insert.bind_null(12);
    } else {
        insert.bind(12, std::string_view(result.origin));
    }
    // No samples, no statistics: NULL rather than zeros that look measured.
    if (result.samples_ms.empty()) {
        insert.bind_null(8).bind_null(9).bind_null(10).bind_null(11);
    } else {
        insert.bind(8, result.stats.median_ms)
            .bind(9, result.stats.min_ms)
            .bind(10, result.stats.p20_ms)
            .bind(11, result.stats.p80_ms);
    }
    if (auto ok = insert.run(); !ok) {
        return ok;
    }
    const std::int64_t result_id = sqlite3_last_insert_rowid(db.handle());
    for (const double ms : result.samples_ms) {
        if (auto ok = insert_sample.bind(1, result_id).bind(2, ms).run(); !ok) {
            return ok;
        }
    }
    return {};
}

} // namespace

Result<std::int64_t> record_run(catalog::Catalog& catalog, const BenchRun& run) {
    Database db = Database::borrow(catalog.handle(), catalog.path().string());
    auto transaction = Transaction::begin(db);
    if (!transaction) {
        return std::unexpected(transaction.error());
    }
    auto insert_run = Statement::prepare(
        db, "INSERT INTO bench_runs (started_ns, device_name, compute_capability, driver_version, "
            "sm_clock_mhz, l2_bytes, protocol, kind, strategy) "
            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    auto insert_result_row = Statement::prepare(
        db, "INSERT INTO bench_results (run_id, kernel_name, module_key, triton_hash, config, "
            "status, message, median_ms, min_ms, p20_ms, p80_ms, origin) "
            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
    auto insert_sample =
        Statement::prepare(db, "INSERT INTO bench_samples (result_id, ms) VALUES (?1, ?2)");
    for (const auto* statement : {&insert_run, &insert_result_row, &insert_sample}) {
        if (!*statement) {
            return std::unexpected(statement->error());
        }
    }
    const DeviceFacts& device = run.device;
    insert_run->bind(1, run.started_ns)
        .bind(2, std::string_view(device.name))
        .bind(3, std::string_view(device.compute_capability))
        .bind(4, std::string_view(device.driver_version))
        .bind(5, device.sm_clock_mhz)
        .bind(6, device.l2_bytes)
        .bind(7, std::string_view(run.protocol.describe()));
    for (const auto& [index, text] : {std::pair{8, &run.kind}, std::pair{9, &run.strategy}}) {
        if (text->empty()) {
            insert_run->bind_null(index);
        } else {
            insert_run->bind(index, std::string_view(*text));
        }
    }
    if (auto ok = insert_run->run(); !ok) {
        return std::unexpected(ok.error());
    }
    const std::int64_t run_id = sqlite3_last_insert_rowid(db.handle());
    for (const auto& result : run.results) {
        if (auto ok = insert_result(db, *insert_result_row, *insert_sample, run_id, result); !ok) {
            return std::unexpected(ok.error());
        }
    }
    if (auto ok = transaction->commit(); !ok) {
        return std::unexpected(ok.error());
    }
    return run_id;
}

Result<std::vector<HistoryRow>> kernel_history(const catalog::Catalog& catalog,
                                               const std::string& kernel_or_module) {
    Database db = Database::borrow(catalog.handle(), catalog.path().string());
    // One statement, so one consistent snapshot even while a run is being
    // recorded; a result without samples comes once, with a NULL sample.
    auto query = Statement::prepare(
        db, "SELECT r.id, r.started_ns, r.device_name, r.compute_capability, r.driver_version, "
            "r.sm_clock_mhz, r.l2_bytes, r.protocol, b.id, b.kernel_name, b.module_key, "
            "b.triton_hash, b.config, b.status, b.message, b.median_ms, b.min_ms, b.p20_ms, "
            "b.p80_ms, s.ms, r.kind, r.strategy, b.origin "
            "FROM bench_results b JOIN bench_runs r ON r.id = b.run_id "
            "LEFT JOIN bench_samples s ON s.result_id = b.id "
            "WHERE b.kernel_name = ?1 OR b.module_key = ?1 "
            "ORDER BY r.started_ns, r.id, b.id, s.rowid");
    if (!query) {
        return std::unexpected(query.error());
    }
    query->bind(1, std::string_view(kernel_or_module));
    std::vector<HistoryRow> rows;
    std::int64_t current_result = -1;
    std::optional<Error> bad_row;
    auto done = query->for_each_row([&](const Statement& row) {
        const std::int64_t result_id = row.integer(8);
        if (result_id != current_result) {
            current_result = result_id;
            HistoryRow history;
            history.run_id = row.integer(0);
            history.started_ns = row.integer(1);
            history.device.name = row.text(2);
            history.device.compute_capability = row.text(3);
            history.device.driver_version = row.text(4);
            history.device.sm_clock_mhz = row.optional_integer(5);
            history.device.l2_bytes = row.integer(6);
            history.protocol = row.text(7);
            history.kind = row.is_null(20) ? std::string() : row.text(20);
            history.strategy = row.is_null(21) ? std::string() : row.text(21);
            CandidateResult& result = history.result;
            result.kernel_name = row.text(9);
            result.module_key = row.text(10);
            result.triton_hash = row.text(11);
            if (!read_config(row.text_view(12), result.config, result.was_best) && !bad_row) {
                bad_row = Error{ErrorKind::Corrupt,
                                "catalog: bench result " + std::to_string(result_id) +
                                    " has a config that is not cachelens's JSON",
                                catalog.path().string()};
            }
            result.status = row.text(13);
            result.message = row.text(14);
            result.origin = row.is_null(22) ? std::string() : row.text(22);
            result.stats.median_ms = row.real(15);
            result.stats.min_ms = row.real(16);
            result.stats.p20_ms = row.real(17);
            result.stats.p80_ms = row.real(18);
            rows.push_back(std::move(history));
        }
        if (!row.is_null(19)) {
            rows.back().result.samples_ms.push_back(row.real(19));
        }
    });
    if (!done) {
        return std::unexpected(done.error());
    }
    if (bad_row) {
        return std::unexpected(*bad_row);
    }
    // The mean is not a column: it comes from the samples, in their order.
    for (auto& row : rows) {
        const auto& samples = row.result.samples_ms;
        double sum = 0;
        for (const double ms : samples) {
            sum += ms;
        }
        row.result.stats.mean_ms =
            samples.empty() ? 0.0 : sum / static_cast<double>(samples.size());
    }
    return rows;
}

} // namespace cachelens::bench
