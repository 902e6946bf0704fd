// `cachelens bench`: re-benchmark cached Triton kernels on this machine's GPU
// (or print their launch plans without one), their history in the catalog,
// and `bench accept` to make another cached candidate the best config.

#include "catalog_option.h"
#include "commands.h"
#include "output.h"
#include "progress_line.h"
#include "protocol_output.h"
#include "write_target.h"

#include <cachelens/bench/accept_config.h>
#include <cachelens/bench/bench_protocol.h>
#include <cachelens/bench/bench_store.h>
#include <cachelens/bench/launch_plan.h>
#include <cachelens/bench/runner.h>
#include <cachelens/core/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

namespace cachelens::cli {

namespace {

namespace fs = std::filesystem;

struct BenchOptions {
    std::string dir;
    std::vector<std::string> kernels;
    bool all_configs = false;
    bool plan = false;
    bool json_lines = false;
    std::string catalog;
    double warmup_ms = 25.0;
    double rep_ms = 100.0;
    bool cuda_graph = false;
    bool no_flush = false;
    int device = 0;
    int rounds = 30; // paired rounds before a challenger is called faster; 0: none
};

struct HistoryOptions {
    std::string kernel;
    std::string catalog;
    bool json = false;
};

struct AcceptOptions {
    std::string kernel;
    std::string config;
    std::string dir;
    std::string catalog;
    bool yes = false;
    bool json = false;
    bool force = false;
    int rounds = 30;
    int device = 0;
};

namespace protocol = bench::protocol;

std::string source_text(const bench::LaunchPlan& plan, const fs::path& cache_dir) {
    if (!plan.source.dir.empty()) {
        return plan.source.dir.lexically_relative(cache_dir).string();
    }
    return plan.source.fx_entry;
}

protocol::Unplannable unplannable_record(const bench::KernelCandidates& kernel,
                                         const std::string& what, const std::string& why) {
    return {kernel.kernel_name, kernel.module_key, what, why};
}

std::string short_hash(const std::string& hash) {
    return hash.substr(0, std::min<std::size_t>(hash.size(), 12));
}

void print_plans_text(const std::vector<bench::KernelCandidates>& kernels,
                      const fs::path& cache_dir) {
    for (const auto& kernel : kernels) {
        std::printf("%s  (%s)\n", kernel.kernel_name.c_str(),
                    kernel.module.lexically_relative(cache_dir).c_str());
        for (const auto& plan : kernel.plans) {
            std::printf("  %s %-12s %s\n", plan.is_current_best ? "*" : " ",
                        short_hash(plan.source.triton_hash).c_str(),
                        plan.config.describe().c_str());
            std::printf("      %s grid %u x %u x %u, %u threads, %u B shared, %zu args, %s "
                        "of buffers, from %s\n",
                        plan.grid_type.c_str(), plan.grid[0], plan.grid[1], plan.grid[2],
                        plan.block_threads, plan.shared_bytes, plan.args.size(),
                        format_bytes(plan.total_buffer_bytes()).c_str(),
                        source_text(plan, cache_dir).c_str());
        }
        for (const auto& [what, why] : kernel.unplannable) {
            std::printf("  ! %s: %s\n", what.c_str(), why.c_str());
        }
    }
    // The count last, so what was not planned is never hidden in a long list.
    std::size_t planned = 0;
    std::size_t unplanned = 0;
    std::size_t kernels_unplanned = 0;
    for (const auto& kernel : kernels) {
        planned += kernel.plans.size();
        unplanned += kernel.unplannable.size();
        kernels_unplanned += kernel.unplannable.empty() ? 0 : 1;
    }
    std::printf("\nPlanned %s of %s", plural(planned, "candidate").c_str(),
                plural(kernels.size(), "kernel").c_str());
    if (unplanned > 0) {
        std::printf("; %s of %s not planned (marked !)", plural(unplanned, "candidate").c_str(),
                    plural(kernels_unplanned, "kernel").c_str());
    }
    std::printf("\n");
}

bool any_planned(const std::vector<bench::KernelCandidates>& kernels) {
    return std::any_of(kernels.begin(), kernels.end(),
                       [](const auto& kernel) { return !kernel.plans.empty(); });
}

int fatal(const BenchOptions& options, const Error& error) {
    if (options.json_lines) {
        print_record(protocol::Failure::of(error));
    }
    return report(error);
}

void print_results_text(const bench::BenchRun& run, const fs::path& cache_dir) {
    std::map<std::pair<std::string, std::string>, std::vector<const bench::CandidateResult*>>
        by_kernel;
    for (const auto& result : run.results) {
        by_kernel[{result.module_key, result.kernel_name}].push_back(&result);
    }
    for (const auto& [kernel, results] : by_kernel) {
        const bench::CandidateResult* fastest = nullptr;
        const bench::CandidateResult* best = nullptr;
        for (const auto* result : results) {
            if (result->status == "ok" &&
                (fastest == nullptr || result->stats.median_ms < fastest->stats.median_ms)) {
                fastest = result;
            }
            if (result->was_best) {
                best = result;
            }
        }
        std::printf("%s  (%s)\n", kernel.second.c_str(), kernel.first.c_str());
        for (const auto* result : results) {
            if (result->status != "ok") {
                std::printf("  %s %-12s %s: %s (%s)\n", result->was_best ? "*" : " ",
                            short_hash(result->triton_hash).c_str(),
                            result->config.describe().c_str(), result->status.c_str(),
                            result->message.c_str());
                continue;
            }
            const std::string registers = bench::describe_registers(*result);
            std::printf("  %s %-12s %9.4f ms  [%.4f-%.4f]  min %.4f  %3zu runs  %s%s%s\n",
                        result->was_best ? "*" : " ", short_hash(result->triton_hash).c_str(),
                        result->stats.median_ms, result->stats.p20_ms, result->stats.p80_ms,
                        result->stats.min_ms, result->samples_ms.size(),
                        result->config.describe().c_str(),
                        registers.empty() ? "" : ("  (" + registers + ")").c_str(),
                        result == fastest ? "  <- fastest" : "");
        }
        if (best != nullptr && fastest != nullptr && best != fastest && best->status == "ok" &&
            fastest->stats.p80_ms < best->stats.p20_ms) {
            std::printf("  the cached best config is %.0f%% slower than %s: `cachelens bench "
                        "accept %s %s --dir %s` makes that the best config\n",
                        100.0 * (best->stats.median_ms / fastest->stats.median_ms - 1.0),
                        short_hash(fastest->triton_hash).c_str(), kernel.second.c_str(),
                        short_hash(fastest->triton_hash).c_str(), cache_dir.c_str());
        }
    }
}

// The device stopped running anything (a candidate ended the CUDA context):
// what ran is kept, the candidate that failed among them, and the message
// names the kernels left untimed and the command that times them in a new
// process.
int device_lost(const BenchOptions& options, catalog::Catalog& catalog, const bench::BenchRun& run,
                const std::vector<bench::KernelCandidates>& kernels, const fs::path& cache_dir,
                Error error) {
    if (!run.results.empty()) {
        (void)bench::record_run(catalog, run);
    }
    std::string names;
    std::string modules;
    for (const auto& kernel : kernels) {
        const bool timed = std::ranges::any_of(run.results, [&](const auto& result) {
            return result.kernel_name == kernel.kernel_name &&
                   result.module_key == kernel.module_key;
        });
        if (!timed && !kernel.plans.empty()) {
            names += (names.empty() ? "" : ", ") + kernel.kernel_name;
            modules += " " + kernel.module_key;
        }
    }
    if (error.kind == ErrorKind::Unsupported && !names.empty()) {
        error.message += "; not timed: " + names + "; to time them: cachelens bench " +
                         cache_dir.string() + modules +
                         (options.all_configs ? " --all-configs" : "");
    }
    return fatal(options, error);
}

int run_bench(const BenchOptions& options) {
    if (options.json_lines) {
        print_protocol_header();
    }
    const fs::path cache_dir = fs::absolute(options.dir).lexically_normal();
    bench::PlanOptions plan_options;
    plan_options.only = options.kernels;
    plan_options.all_configs = options.all_configs || options.plan;
    auto kernels = bench::plan_kernels(cache_dir, plan_options);
    if (!kernels) {
        return fatal(options, kernels.error());
    }
    if (kernels->empty()) {
        return fatal(options, bench::nothing_to_bench(cache_dir, plan_options));
    }
    if (options.plan) {
        if (options.json_lines) {
            for (const auto& kernel : *kernels) {
                for (const auto& plan : kernel.plans) {
                    print_record(protocol::plan_of(kernel, plan, cache_dir));
                }
                for (const auto& [what, why] : kernel.unplannable) {
                    print_record(unplannable_record(kernel, what, why));
                }
            }
        } else {
            print_plans_text(*kernels, cache_dir);
        }
        return any_planned(*kernels) ? kExitOk : kExitProblems;
    }
    if (!any_planned(*kernels)) {
        return fatal(options,
                     Error{ErrorKind::NotFound,
                           options.kernels.empty() ? "no kernel with a benchmark harness to run"
                                                   : "none of the kernels asked for can be run",
                           cache_dir.string()});
    }
    // The catalog first: a run that cannot be recorded is not worth the GPU time.
    auto catalog = open_catalog(options.catalog);
    if (!catalog) {
        return fatal(options, catalog.error());
    }
    auto runner = bench::GpuRunner::open(options.device);
    if (!runner) {
        return fatal(options, runner.error());
    }
    bench::BenchRun run;
    run.started_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    run.device = runner->device();
    run.protocol.warmup_ms = options.warmup_ms;
    run.protocol.rep_ms = options.rep_ms;
    run.protocol.cuda_graph = options.cuda_graph;
    run.protocol.flush_l2 = !options.no_flush;
    std::size_t total = 0;
    for (const auto& kernel : *kernels) {
        total += kernel.plans.size();
    }
    if (options.json_lines) {
        print_record(protocol::Start{cache_dir.string(), run.device, run.protocol.describe(),
                                     kernels->size(), total});
        for (const auto& kernel : *kernels) {
            for (const auto& [what, why] : kernel.unplannable) {
                print_record(unplannable_record(kernel, what, why));
            }
        }
    } else {
        std::fprintf(stderr, "cachelens: %s of %s on %s (%s)\n", plural(total, "candidate").c_str(),
                     plural(kernels->size(), "kernel").c_str(), run.device.name.c_str(),
                     run.protocol.describe().c_str());
    }
    std::size_t failed = 0;
    ProgressLine progress("bench on " + run.device.name, options.json_lines);
    auto timed = bench::run_candidates(
        *kernels,
        [&](const bench::LaunchPlan& plan) { return runner->run(cache_dir, plan, run.protocol); },
        [&](bench::CandidateResult result) {
            failed += result.status == "ok" ? 0 : 1;
            run.results.push_back(std::move(result));
            if (options.json_lines) {
                print_record(protocol::Result{run.results.size(), total, run.results.back()});
            }
        },
        progress.callback());
    progress.clear();
    if (!timed) {
        if (timed.error().kind == ErrorKind::Cancelled) {
            constexpr std::string_view kStopped = "bench stopped; nothing was recorded";
            if (options.json_lines) {
                print_record(protocol::Failure{ErrorKind::Cancelled, std::string(kStopped), {}});
            }
            return report_stopped(progress, kStopped);
        }
        return device_lost(options, *catalog, run, *kernels, cache_dir, timed.error());
    }
    // A challenger that beat the current best in its own timing is re-timed
    // side by side with it before anyone calls it faster.
    std::vector<bench::PairedResult> verdicts;
    if (options.rounds > 0) {
        const bench::PairedProtocol paired{.rounds = options.rounds};
        for (const auto& challenge : bench::find_challenges(*kernels, run.results)) {
            auto pair = runner->run_pair(cache_dir, *challenge.best, *challenge.challenger,
                                         run.protocol, paired);
            if (!pair) {
                return device_lost(options, *catalog, run, *kernels, cache_dir, pair.error());
            }
            if (options.json_lines) {
                print_record(protocol::verdict_of(*pair));
            }
            verdicts.push_back(std::move(*pair));
        }
    }
    auto run_id = bench::record_run(*catalog, run);
    if (!run_id) {
        return fatal(options, run_id.error());
    }
    if (options.json_lines) {
        print_record(protocol::End{*run_id, run.results.size(), failed, verdicts.size()});
    } else {
        print_results_text(run, cache_dir);
        for (const auto& paired : verdicts) {
            std::printf("%s: %s (%s)\n", paired.b.kernel_name.c_str(),
                        bench::describe_pair(paired).c_str(), paired.b.config.describe().c_str());
        }
        std::printf("run %lld recorded in %s\n", static_cast<long long>(*run_id),
                    catalog->path().c_str());
    }
    return failed == 0 ? kExitOk : kExitProblems;
}

// "*" the best config when it ran, "+" a config a tune compiled.
const char* history_mark(const bench::CandidateResult& result) {
    return result.was_best ? "*" : result.origin == "new" ? "+" : " ";
}

int run_history(const HistoryOptions& options) {
    auto catalog = open_catalog(options.catalog);
    if (!catalog) {
        return report(catalog.error());
    }
    auto history = bench::kernel_history(*catalog, options.kernel);
    if (!history) {
        return report(history.error());
    }
    if (options.json) {
        std::vector<protocol::HistoryRowView> rows;
        for (const auto& row : *history) {
            rows.push_back({row.run_id, format_time(row.started_ns), row.device, row.protocol,
                            &row.result, row.kind, row.strategy});
        }
        print_json_text(protocol::history_json(rows) + '\n');
        return kExitOk;
    }
    if (history->empty()) {
        std::printf("no benchmark of %s in %s\n", options.kernel.c_str(), catalog->path().c_str());
        return kExitOk;
    }
    std::int64_t run = -1;
    for (const auto& row : *history) {
        if (row.run_id != run) {
            run = row.run_id;
            std::printf(
                "run %lld%s, %s, %s (sm %s, driver %s): %s\n", static_cast<long long>(row.run_id),
                row.kind.empty() ? "" : (" (" + row.kind + " " + row.strategy + ")").c_str(),
                format_time(row.started_ns).c_str(), row.device.name.c_str(),
                row.device.compute_capability.c_str(), row.device.driver_version.c_str(),
                row.protocol.c_str());
        }
        const auto& result = row.result;
        if (result.status != "ok") {
            std::printf("  %s %-12s %s: %s (%s)\n", history_mark(result),
                        short_hash(result.triton_hash).c_str(), result.config.describe().c_str(),
                        result.status.c_str(), result.message.c_str());
        } else {
            std::printf("  %s %-12s %9.4f ms  [%.4f-%.4f]  %s  %s\n", history_mark(result),
                        short_hash(result.triton_hash).c_str(), result.stats.median_ms,
                        result.stats.p20_ms, result.stats.p80_ms, result.kernel_name.c_str(),
                        result.config.describe().c_str());
        }
    }
    return kExitOk;
}

// The indexed roots whose module entries have that key or define that kernel.
int run_accept(const AcceptOptions& options) {
    bench::AcceptRequest request;
    request.kernel = options.kernel;
    request.config = options.config;
    if (!options.dir.empty()) {
        // A cache is changed only where the user points: --dir, or the one
        // dir the catalog knows the kernel in, confirmed with --yes.
        request.dir = target_path(options.dir);
    }
    request.catalog =
        options.catalog.empty() ? catalog::default_catalog_path() : fs::path(options.catalog);
    request.yes = options.yes;
    request.force = options.force;
    request.rounds = options.rounds;
    request.device = options.device;
    auto report_of = bench::accept_config(request);
    if (!report_of) {
        if (options.json) {
            print_json_text(protocol::to_document(protocol::Failure::of(
                                report_of.error().error, report_of.error().refusal)) +
                            '\n');
        }
        return report(report_of.error().error);
    }
    const bench::AcceptReport& accepted = *report_of;
    if (options.json) {
        print_json_text(protocol::to_document(protocol::accepted_of(accepted)) + '\n');
        return kExitOk;
    }
    print_into(accepted.target.string(), false, false);
    if (accepted.already_best()) {
        std::printf("%s is already the best config of %s; nothing written\n",
                    accepted.new_config.c_str(), options.kernel.c_str());
        return kExitOk;
    }
    std::printf("%s\n  was: %s\n  now: %s\n  backup: %s\n", accepted.best_config.c_str(),
                accepted.old_config.c_str(), accepted.new_config.c_str(), accepted.backup->c_str());
    std::printf("  %s\n", accepted.verdict ? bench::describe_pair(*accepted.verdict).c_str()
                                           : "not re-timed (--force)");
    if (accepted.explored_policy) {
        std::printf("  %s\n", accepted.explored_policy->c_str());
    }
    return kExitOk;
}

} // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<BenchOptions>();
    auto* command = app.add_subcommand(
        "bench",
        "Re-benchmark cached Triton kernels on this machine's GPU, straight from the cache: each "
        "kernel module with a benchmark harness, its cached winner (or, with --all-configs, "
        "every candidate config the FX entries compiled), timed as triton.testing.do_bench "
        "times (an estimate from 5 runs, warmup and rep budgets, L2 flushed before each timed "
        "run, CUDA events, every sample kept). Runs go to the catalog. --plan prints the launch "
        "plans and needs no GPU. Exit code 1 when a candidate failed, 2 when nothing could run "
        "(no CUDA driver, no GPU, no kernel).");
    command->add_option("DIR", options->dir, "the cache dir");
    command->add_option("KERNEL", options->kernels,
                        "kernel names or module keys (c...) to run; default: every kernel with a "
                        "benchmark harness");
    command->add_flag("--all-configs", options->all_configs,
                      "every cached candidate config, not only the current best");
    command->add_flag("--plan", options->plan,
                      "print the launch plans (grid, block, shared memory, arguments) of every "
                      "candidate; needs no GPU");
    command->add_flag("--json-lines", options->json_lines,
                      "one JSON object per line: header (format cachelens-bench, version, "
                      "program: a reader refuses another version), start, unplannable, result "
                      "(samples_ms, median_ms, min_ms, p20_ms, p80_ms, status), verdict (a "
                      "challenger re-timed beside the current best), end, error (kind, refusal, "
                      "message); with --plan: header, then plan lines (the README lists the "
                      "fields)");
    command->add_option("--warmup", options->warmup_ms, "warmup budget in ms (default 25)")
        ->check(CLI::PositiveNumber);
    command->add_option("--rep", options->rep_ms, "timed runs budget in ms (default 100)")
        ->check(CLI::PositiveNumber);
    command->add_flag("--cuda-graph", options->cuda_graph,
                      "time launches replayed from a captured CUDA graph");
    command->add_flag("--no-flush", options->no_flush,
                      "do not flush the L2 cache before each timed run");
    command->add_option("--device", options->device, "the CUDA device (default 0)")
        ->check(CLI::NonNegativeNumber);
    command
        ->add_option("--rounds", options->rounds,
                     "when a candidate's median beats the current best's, re-time the two side "
                     "by side for this many paired rounds and print the verdict (default 30; 0: "
                     "do not)")
        ->check(CLI::NonNegativeNumber);
    add_catalog_option(*command, options->catalog);

    auto history = std::make_shared<HistoryOptions>();
    auto* history_command = command->add_subcommand(
        "history", "Every benchmark of a kernel in the catalog, across runs and GPUs");
    history_command->add_option("KERNEL", history->kernel, "a kernel name or module key (c...)")
        ->required();
    add_catalog_option(*history_command, history->catalog);
    history_command->add_flag("--json", history->json,
                              "print [{run_id, started, device, protocol, kind (tune or null), "
                              "strategy, kernel, module, triton_hash, config, config_text, "
                              "was_best, origin (cached, new; tune runs), status, message, "
                              "samples_ms, median_ms, min_ms, p20_ms, p80_ms}]");
    history_command->callback([history, &exit_code] { exit_code = run_history(*history); });

    auto accept = std::make_shared<AcceptOptions>();
    auto* accept_command = command->add_subcommand(
        "accept",
        "Make a cached candidate the kernel's best config: refuses, writing nothing (exit 2), "
        "unless --force is given, when PyTorch would not launch it as written (a kernel tuned "
        "by coordinate descent: PyTorch 2.11 searches again from the cached config) or when, "
        "re-timed side by side with the current best on the GPU (paired rounds), it is not "
        "faster beyond the noise; then rewrites the .best_config in the cache dir given with "
        "--dir atomically (config kwargs, num_warps, num_stages, triton_cache_hash; "
        "found_by_coordesc as PyTorch would write it; configs_hash and time_taken_ms kept) "
        "after saving a backup beside it. Without --dir, the one indexed "
        "dir holding the kernel is named and nothing is written unless --yes (exit 2; also "
        "when several dirs hold it). The current best config is accepted as it is: nothing "
        "written (exit 0)");
    accept_command->add_option("KERNEL", accept->kernel, "a kernel name or module key (c...)")
        ->required();
    accept_command
        ->add_option("CONFIG", accept->config,
                     "the candidate's Triton hash (at least 6 characters of it, as "
                     "`bench --plan` and `bench` print), or that of a config `cachelens tune` "
                     "compiled (bench history lists them, marked +): written only for a "
                     "coordinate-descent kernel, as the start of PyTorch's search; otherwise "
                     "refused (exit 2) with what to set instead")
        ->required();
    accept_command->add_option("--dir", accept->dir, "the cache dir to write in");
    accept_command->add_flag("--force", accept->force,
                             "write even where PyTorch would not launch the candidate as written, "
                             "and without confirming on the GPU that it is faster than the "
                             "current best beyond the noise");
    accept_command->add_flag("--json", accept->json,
                             "print {event: accepted, target, best_config, backup, old_config, "
                             "new_config, verdict, format, version}; a refusal as {event: error, "
                             "kind, refusal (set when --force would write it), message, format, "
                             "version}, exit 2");
    accept_command
        ->add_option("--rounds", accept->rounds, "paired rounds of the confirmation (default 30)")
        ->check(CLI::PositiveNumber);
    accept_command->add_option("--device", accept->device, "the CUDA device (default 0)")
        ->check(CLI::NonNegativeNumber);
    accept_command->add_flag("--yes", accept->yes,
                             "without --dir: write in the one indexed dir holding the kernel");
    add_catalog_option(*accept_command, accept->catalog);
    accept_command->callback([accept, &exit_code] { exit_code = run_accept(*accept); });

    command->callback([command, options, &exit_code] {
        if (!command->get_subcommands().empty()) {
            return;
        }
        if (options->dir.empty()) {
            exit_code = report("bench needs a cache dir (or: bench history, bench accept)");
            return;
        }
        exit_code = run_bench(*options);
    });
}

} // namespace cachelens::cli
