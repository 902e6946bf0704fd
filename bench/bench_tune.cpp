// What `cachelens tune` spends on the CPU per config, apart from compiling
// and timing it: the request to the compile server and the parse of its
// answer, planning the launch from the Triton dir the compile made (its
// metadata JSON and PTX .entry read, the grid, the arguments checked), and
// the search's bookkeeping (the config's key). The anchor (anchor_tune.py)
// does the same reading and bookkeeping the Python way: json.dumps/json.loads
// of the request and answer, json.load of the metadata, the PTX parameters
// by regex, and triton_config_to_hashable's sorted tuple.
//
// Usage: bench_tune [benchmark flags] -- CACHE_DIR KERNEL

#include "bench_main.h"

#include <cachelens/bench/compile_server.h>
#include <cachelens/bench/tune.h>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>

namespace {

namespace tune = cachelens::bench::tune;
namespace fs = std::filesystem;

std::optional<tune::TunePlan> g_plan;
fs::path g_triton_dir;

[[noreturn]] void die(const std::string& message) {
    std::fprintf(stderr, "bench_tune: %s\n", message.c_str());
    std::exit(2);
}

void load(const std::vector<const char*>& args) {
    if (args.size() != 2) {
        die("give CACHE_DIR KERNEL");
    }
    tune::TuneRequest request;
    request.cache_dir = args[0];
    request.kernel = args[1];
    auto plan = tune::plan_tune(request);
    if (!plan) {
        die(plan.error().describe());
    }
    g_plan = std::move(*plan);
    for (const auto& launch : g_plan->kernel.plans) {
        if (launch.is_current_best && !launch.source.dir.empty()) {
            g_triton_dir = launch.source.dir;
        }
    }
    if (g_triton_dir.empty()) {
        die("the kernel's current best has no Triton dir");
    }
}

void BM_TuneOverheadPerConfig(benchmark::State& state) {
    const auto& config = g_plan->start;
    const std::string answer =
        "cachelens-tune: {\"event\":\"compiled\",\"id\":1,\"triton_dir\":\"" +
        g_triton_dir.string() + "\",\"triton_hash\":\"6e72e71da2c9\",\"seconds\":1.25}";
    for (auto _ : state) {
        const std::string request = cachelens::bench::compile_request(1, config);
        benchmark::DoNotOptimize(request);
        auto reply = cachelens::bench::parse_compile_reply(answer);
        const auto& compiled = std::get<cachelens::bench::CompileReply>(reply);
        auto launch = tune::plan_compiled(*g_plan, config, compiled.triton_dir);
        if (!launch) {
            state.SkipWithError(launch.error().describe().c_str());
            break;
        }
        benchmark::DoNotOptimize(tune::config_key(config));
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TuneOverheadPerConfig)->Unit(benchmark::kMicrosecond);

} // namespace

int main(int argc, char** argv) {
    return cachelens::bench::run_benchmarks(argc, argv, "bench_tune [flags] -- CACHE_DIR KERNEL",
                                            load);
}
