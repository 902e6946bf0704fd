// Mega-cache bundles: decode, import and export throughput. The anchor
// (anchor_bundle.py) does the same work in CPython with PyTorch's format
// logic, on the same inputs and in the same scratch dir (one filesystem).
//
// - decode: decode_mega_cache of the bundle's bytes in memory, as the mapped
//   file (crc32, every length, base64 types and keys; contents are views
//   into the bytes, as open_bundle_file gives them).
// - import: what `cachelens import FILE --into DIR` does from the bytes in
//   memory: decode, plan_import (destinations, the safety checks, which
//   unpickle every FX and AOT entry) and run_import (temp files, one syncfs,
//   renames, one syncfs: durable, a batch at a time). Into a fresh, empty
//   directory every iteration, made and removed untimed.
// - export: export_bundle of a whole cache dir (read every file, check the
//   content-addressed names, read the FX entries' best_config links) and
//   encode_mega_cache. The files are in the page cache after the first run.
//
// Usage: bench_bundle [benchmark flags] -- SCRATCH_DIR INPUT...
// A file INPUT is a bundle (decode and import), a directory a cache dir
// (export). Figures are bytes/s of the bundle: its size for decode and
// import, the encoded size for export.

#include "bench_main.h"
#include "bench_support.h"

#include <cachelens/bundle/export.h>
#include <cachelens/bundle/import.h>
#include <cachelens/bundle/mega_cache.h>
#include <cachelens/core/mapped_file.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using cachelens::bench_support::checked;
using cachelens::bench_support::die;

fs::path g_scratch;

std::string input_name(const fs::path& path) {
    const auto name = path.filename().string();
    return name.empty() ? path.parent_path().filename().string() : name;
}

using Bytes = std::shared_ptr<const std::string>;

void decode(benchmark::State& state, const Bytes& bytes, std::size_t artifacts) {
    for (auto _ : state) {
        auto bundle =
            cachelens::bundle::decode_mega_cache(*bytes, {.check_crc = true, .owner = bytes});
        if (!bundle || bundle->artifact_count() != artifacts) {
            state.SkipWithError(bundle ? "artifacts lost" : bundle.error().describe().c_str());
            return;
        }
        benchmark::DoNotOptimize(bundle->sections.data());
    }
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes->size()));
    state.counters["artifacts"] = static_cast<double>(artifacts);
    state.counters["bytes"] = static_cast<double>(bytes->size());
}

void import(benchmark::State& state, const Bytes& bytes, std::size_t artifacts) {
    const fs::path target = g_scratch / "cachelens-import";
    // The write phase apart (run_import: temp files, flushes, renames), to
    // set beside the disk's own durable bandwidth.
    double write_seconds = 0;
    for (auto _ : state) {
        std::error_code error;
        fs::remove_all(target, error);
        if (error || !fs::create_directories(target, error)) {
            state.SkipWithError(
                ("cannot make " + target.string() + ": " + error.message()).c_str());
            return;
        }
        const auto start = std::chrono::steady_clock::now();
        auto bundle =
            cachelens::bundle::decode_mega_cache(*bytes, {.check_crc = true, .owner = bytes});
        if (!bundle) {
            state.SkipWithError(bundle.error().describe().c_str());
            return;
        }
        auto plan = cachelens::bundle::plan_import(*bundle, target);
        if (!plan) {
            state.SkipWithError(plan.error().describe().c_str());
            return;
        }
        const auto planned = std::chrono::steady_clock::now();
        const auto done = cachelens::bundle::run_import(std::move(*plan), *bundle);
        const auto end = std::chrono::steady_clock::now();
        state.SetIterationTime(std::chrono::duration<double>(end - start).count());
        write_seconds += std::chrono::duration<double>(end - planned).count();
        if (done.count(cachelens::bundle::ImportAction::Written) != artifacts) {
            state.SkipWithError("not every artifact was written");
            return;
        }
    }
    std::error_code error;
    fs::remove_all(target, error);
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes->size()));
    state.counters["artifacts"] = static_cast<double>(artifacts);
    state.counters["bytes"] = static_cast<double>(bytes->size());
    state.counters["write_ms"] =
        benchmark::Counter(write_seconds * 1000, benchmark::Counter::kAvgIterations);
}

void export_dir(benchmark::State& state, const fs::path& cache_dir) {
    std::size_t size = 0;
    std::size_t artifacts = 0;
    for (auto _ : state) {
        auto exported = cachelens::bundle::export_bundle(cache_dir);
        if (!exported) {
            state.SkipWithError(exported.error().describe().c_str());
            return;
        }
        const std::string encoded = cachelens::bundle::encode_mega_cache(exported->bundle);
        benchmark::DoNotOptimize(encoded.data());
        size = encoded.size();
        artifacts = exported->bundle.artifact_count();
    }
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(size));
    state.counters["artifacts"] = static_cast<double>(artifacts);
    state.counters["bytes"] = static_cast<double>(size);
}

void load_inputs(const std::vector<const char*>& paths) {
    if (paths.size() < 2) {
        die("usage: bench_bundle [benchmark flags] -- SCRATCH_DIR INPUT...");
    }
    g_scratch = paths[0];
    std::error_code error;
    fs::create_directories(g_scratch, error);
    for (std::size_t i = 1; i < paths.size(); ++i) {
        const fs::path path = paths[i];
        const std::string name = input_name(path);
        if (fs::is_directory(path, error)) {
            benchmark::RegisterBenchmark(
                ("export/" + name).c_str(),
                [path](benchmark::State& state) { export_dir(state, path); })
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime()
                ->MinTime(1.0);
            continue;
        }
        auto mapped = checked(cachelens::MappedFile::open(path), "bundle");
        // Shared by the benchmarks of this file, which outlive this function.
        const Bytes bytes = std::make_shared<const std::string>(mapped->bytes());
        const auto artifacts =
            checked(cachelens::bundle::decode_mega_cache(*bytes), path.c_str()).artifact_count();
        benchmark::RegisterBenchmark(
            ("decode/" + name).c_str(),
            [bytes, artifacts](benchmark::State& state) { decode(state, bytes, artifacts); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->MinTime(1.0);
        benchmark::RegisterBenchmark(
            ("import/" + name).c_str(),
            [bytes, artifacts](benchmark::State& state) { import(state, bytes, artifacts); })
            ->Unit(benchmark::kMillisecond)
            ->UseManualTime()
            ->MinTime(1.0);
    }
}

} // namespace

int main(int argc, char** argv) {
    return cachelens::bench::run_benchmarks(
        argc, argv, "bench_bundle [benchmark flags] -- SCRATCH_DIR BUNDLE_OR_CACHE_DIR...",
        load_inputs);
}
