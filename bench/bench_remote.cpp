// PyTorch's Redis remote cache: push and pull throughput against a real
// redis-server (run-remote-benchmark.sh starts one on a free loopback port).
// The anchor (anchor_remote.py) does the same GETs and SETs of the same
// values from CPython, on the same server and the same scratch dir.
//
// - push: what `cachelens remote push DIR URL` does: push_local of the whole
//   cache dir (read and check every file as export does, time_taken_ms from
//   each FX and AOT pickle, the JSON values, one pipelined GET of every key,
//   a pipelined SET NX), the server emptied untimed before each iteration.
// - pull: what `cachelens remote pull URL --into DIR` does: pull_remote of
//   everything the server holds (the dir pushed once, untimed) into a fresh
//   directory each iteration, removed untimed: SCAN, one pipelined GET,
//   decode, the import's safety checks, each file written atomically and
//   fsynced, its directory fsynced.
//
// Each benchmark runs three repetitions of at least 1 s (at least one
// iteration: a pull of the synthetic cache takes about 3 s), as the anchor
// runs at least three times.
//
// Usage: bench_remote [benchmark flags] -- REDIS_URL SCRATCH_DIR CACHE_DIR...
// Figures are bytes/s of the entries' pickles (the local files' bytes), the
// same count the anchor gives; "value_bytes" is what the server holds.

#include "bench_main.h"
#include "bench_support.h"

#include <cachelens/remote/redis_client.h>
#include <cachelens/remote/redis_endpoint.h>
#include <cachelens/remote/remote_ops.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using cachelens::bench_support::checked;
using cachelens::bench_support::die;
using cachelens::remote::PushAction;
using cachelens::remote::RedisClient;

cachelens::remote::RedisEndpoint g_endpoint;
fs::path g_scratch;

// The process's CPU seconds (every thread), as Python's time.process_time().
double process_cpu_seconds() {
    timespec now{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

std::string input_name(const fs::path& path) {
    const auto name = path.filename().string();
    return name.empty() ? path.parent_path().filename().string() : name;
}

// Deletes every key: the bench server holds nothing else.
cachelens::Result<void> clear(RedisClient& client) {
    auto keys = client.scan_all("");
    if (!keys) {
        return std::unexpected(keys.error());
    }
    for (const auto& key : *keys) {
        if (auto removed = client.del(key); !removed) {
            return removed;
        }
    }
    return {};
}

void checked_void(const cachelens::Result<void>& result, const char* what) {
    if (!result) {
        die(std::string(what) + ": " + result.error().describe());
    }
}

void push(benchmark::State& state, const fs::path& cache_dir) {
    auto client = checked(RedisClient::connect(g_endpoint), "connect");
    std::size_t entries = 0;
    std::uint64_t bytes = 0;
    std::uint64_t value_bytes = 0;
    double cpu = 0;
    for (auto _ : state) {
        if (auto cleared = clear(client); !cleared) {
            state.SkipWithError(cleared.error().describe().c_str());
            return;
        }
        const auto start = std::chrono::steady_clock::now();
        const double start_cpu = process_cpu_seconds();
        auto pushed = cachelens::remote::push_local(client, cache_dir, {});
        cpu += process_cpu_seconds() - start_cpu;
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        state.SetIterationTime(took.count());
        if (!pushed) {
            state.SkipWithError(pushed.error().describe().c_str());
            return;
        }
        if (pushed->items.empty() || pushed->count(PushAction::Set) != pushed->items.size()) {
            state.SkipWithError("not every entry was set");
            return;
        }
        entries = pushed->items.size();
        bytes = value_bytes = 0;
        for (const auto& item : pushed->items) {
            bytes += item.size;
            value_bytes += item.value.size();
        }
    }
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
    // CPU of the timed part only, per iteration (not the untimed clearing).
    state.counters["cpu_ms"] = benchmark::Counter(cpu * 1e3, benchmark::Counter::kAvgIterations);
    state.counters["entries"] = static_cast<double>(entries);
    state.counters["bytes"] = static_cast<double>(bytes);
    state.counters["value_bytes"] = static_cast<double>(value_bytes);
}

void pull(benchmark::State& state, const fs::path& cache_dir) {
    auto client = checked(RedisClient::connect(g_endpoint), "connect");
    checked_void(clear(client), "clear the server");
    const auto pushed = checked(cachelens::remote::push_local(client, cache_dir, {}), "push");
    const std::size_t entries = pushed.items.size();
    const fs::path target = g_scratch / "cachelens-pull";
    std::uint64_t bytes = 0;
    double cpu = 0;
    for (auto _ : state) {
        std::error_code error;
        fs::remove_all(target, error);
        if (error) {
            state.SkipWithError(
                ("cannot remove " + target.string() + ": " + error.message()).c_str());
            return;
        }
        const auto start = std::chrono::steady_clock::now();
        const double start_cpu = process_cpu_seconds();
        auto pulled = cachelens::remote::pull_remote(client, target, {});
        cpu += process_cpu_seconds() - start_cpu;
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        state.SetIterationTime(took.count());
        if (!pulled) {
            state.SkipWithError(pulled.error().describe().c_str());
            return;
        }
        if (pulled->plan.count(cachelens::bundle::ImportAction::Written) != entries) {
            state.SkipWithError("not every entry was written");
            return;
        }
        bytes = 0;
        for (const auto& artifact : pulled->plan.artifacts) {
            bytes += artifact.size;
        }
    }
    std::error_code error;
    fs::remove_all(target, error);
    checked_void(clear(client), "clear the server");
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
    // CPU of the timed part only, per iteration (not the untimed clearing).
    state.counters["cpu_ms"] = benchmark::Counter(cpu * 1e3, benchmark::Counter::kAvgIterations);
    state.counters["entries"] = static_cast<double>(entries);
    state.counters["bytes"] = static_cast<double>(bytes);
}

void load_inputs(const std::vector<const char*>& paths) {
    if (paths.size() < 3) {
        die("usage: bench_remote [benchmark flags] -- REDIS_URL SCRATCH_DIR CACHE_DIR...");
    }
    g_endpoint = checked(cachelens::remote::parse_redis_endpoint(paths[0]), "REDIS_URL");
    checked(RedisClient::connect(g_endpoint), paths[0]);
    g_scratch = paths[1];
    std::error_code error;
    fs::create_directories(g_scratch, error);
    for (std::size_t i = 2; i < paths.size(); ++i) {
        const fs::path cache_dir = paths[i];
        if (!fs::is_directory(cache_dir, error)) {
            die(cache_dir.string() + ": not a directory");
        }
        const std::string name = input_name(cache_dir);
        for (const auto& [op, run] : {std::pair{"push", &push}, std::pair{"pull", &pull}}) {
            benchmark::RegisterBenchmark(
                (std::string(op) + "/" + name).c_str(),
                [cache_dir, run](benchmark::State& state) { run(state, cache_dir); })
                ->Unit(benchmark::kMillisecond)
                ->UseManualTime()
                ->MinTime(1.0)
                ->Repetitions(3);
        }
    }
}

} // namespace

int main(int argc, char** argv) {
    return cachelens::bench::run_benchmarks(
        argc, argv, "bench_remote [benchmark flags] -- REDIS_URL SCRATCH_DIR CACHE_DIR...",
        load_inputs);
}
