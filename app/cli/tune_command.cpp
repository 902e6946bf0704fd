// `cachelens tune DIR KERNEL`: explore Triton configs of one cached kernel
// beyond the ones Inductor compiled (engine: bench/tune.h). --plan needs no
// GPU and no Python; a run needs both.

#include "catalog_option.h"
#include "commands.h"
#include "output.h"
#include "progress_line.h"
#include "protocol_output.h"

#include <cachelens/bench/bench_protocol.h>
#include <cachelens/bench/compile_server.h>
#include <cachelens/bench/runner.h>
#include <cachelens/bench/tune.h>
#include <cachelens/core/format.h>

#include <algorithm>
#include <cstdio>

namespace cachelens::cli {

namespace {

namespace fs = std::filesystem;
namespace protocol = bench::protocol;
namespace tune = bench::tune;

struct TuneOptions {
    std::string dir;
    std::string kernel;
    std::string strategy = "coordesc";
    std::string space;
    std::string budget;
    std::string python = "python3";
    std::string catalog;
    bool plan = false;
    bool json_lines = false;
    bool print_script = false;
    double warmup_ms = 25.0;
    double rep_ms = 100.0;
    int device = 0;
    int rounds = 30;
    int confirm = 3;
    unsigned workers = 0;
    int compile_timeout_s = 180;
    std::uint64_t seed = 0;
};

int fatal(const TuneOptions& options, const Error& error) {
    if (options.json_lines) {
        print_record(protocol::Failure::of(error));
    }
    return report(error);
}

void print_plan_text(const tune::TunePlan& plan, const std::string& strategy) {
    std::printf("%s  (%s)\n", plan.kernel.kernel_name.c_str(),
                plan.kernel.module.lexically_relative(plan.cache_dir).c_str());
    std::printf("  start: %s (%s)\n", plan.start.describe().c_str(),
                plan.start_is_current_best ? "the current best" : "a cached config");
    std::printf("  %s; budget %s\n", plan.rules.generation.c_str(), plan.budget.describe().c_str());
    std::printf("  fields: %s\n", tune::describe_fields(plan.rules).c_str());
    if (plan.space) {
        std::printf("  space: %s\n", plan.space->describe().c_str());
    }
    std::size_t fresh = 0;
    std::string phase;
    for (const auto& candidate : plan.candidates) {
        if (candidate.phase != phase) {
            phase = candidate.phase;
            std::printf("  %s:\n", phase.c_str());
        }
        fresh += candidate.origin == "new" ? 1 : 0;
        std::printf("    %s %-6s %s\n", candidate.is_current_best ? "*" : " ",
                    candidate.origin.c_str(), candidate.config.describe().c_str());
    }
    for (const auto& note : plan.notes) {
        std::printf("  note: %s\n", note.c_str());
    }
    std::printf("\n%s listed (%zu cached, %zu to compile)%s\n",
                plural(plan.candidates.size(), "config").c_str(), plan.candidates.size() - fresh,
                fresh,
                strategy == "coordesc"
                    ? "; coordinate descent goes on from whichever is faster, so later steps "
                      "depend on the times"
                    : "");
}

void print_results_text(const std::vector<bench::CandidateResult>& results) {
    std::vector<const bench::CandidateResult*> sorted;
    for (const auto& result : results) {
        sorted.push_back(&result);
    }
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
        if ((a->status == "ok") != (b->status == "ok")) {
            return a->status == "ok";
        }
        return a->status == "ok" && a->stats.median_ms < b->stats.median_ms;
    });
    for (const auto* result : sorted) {
        const char* mark = result->was_best ? "*" : result->origin == "new" ? "+" : " ";
        if (result->status == "ok") {
            std::printf("  %s %9.4f ms  [%.4f-%.4f]  %-6s %s%s\n", mark, result->stats.median_ms,
                        result->stats.p20_ms, result->stats.p80_ms, result->origin.c_str(),
                        result->config.describe().c_str(),
                        result->registers
                            ? ("  (" + bench::describe_registers(*result) + ")").c_str()
                            : "");
        } else {
            std::printf("  %s %-12s %-6s %s: %s\n", mark, result->status.c_str(),
                        result->origin.c_str(), result->config.describe().c_str(),
                        result->message.c_str());
        }
    }
}

int run_tune_command(const TuneOptions& options) {
    if (options.print_script) {
        print_json_text(std::string(bench::compile_server_script()));
        return kExitOk;
    }
    if (options.json_lines) {
        print_protocol_header();
    }
    const auto strategy = tune::strategy_from(options.strategy);
    if (!strategy) {
        return fatal(options,
                     Error{ErrorKind::InvalidArgument,
                           "--strategy " + options.strategy + ": not coordesc, grid or random",
                           {}});
    }
    tune::TuneRequest request;
    request.cache_dir = fs::absolute(options.dir).lexically_normal();
    request.kernel = options.kernel;
    request.strategy = *strategy;
    request.space = options.space;
    request.budget = options.budget;
    request.seed = options.seed;
    auto plan = tune::plan_tune(request);
    if (!plan) {
        return fatal(options, plan.error());
    }
    if (options.plan) {
        if (options.json_lines) {
            print_record(protocol::TuneStart{request.cache_dir.string(),
                                             plan->kernel.kernel_name,
                                             plan->kernel.module_key,
                                             options.strategy,
                                             plan->space ? plan->space->describe() : "",
                                             plan->budget.describe(),
                                             plan->rules.generation,
                                             plan->start,
                                             plan->candidates.size(),
                                             {},
                                             {}});
            for (const auto& candidate : plan->candidates) {
                print_record(candidate);
            }
        } else {
            print_plan_text(*plan, options.strategy);
        }
        return kExitOk;
    }
    // Before any GPU time: the catalog that records it, the audit that lets
    // the module go to Python, the device, then Python with torch and Triton.
    auto catalog = open_catalog(options.catalog);
    if (!catalog) {
        return fatal(options, catalog.error());
    }
    if (auto audited = tune::check_module_for_python(*plan); !audited) {
        return fatal(options, audited.error());
    }
    auto runner = bench::GpuRunner::open(options.device);
    if (!runner) {
        return fatal(options, runner.error());
    }
    ProgressLine progress("tune " + plan->kernel.kernel_name, options.json_lines);
    auto scratch_dir = tune::scratch_dir_for(catalog->path(), plan->kernel.module_key);
    if (!scratch_dir) {
        return fatal(options, scratch_dir.error());
    }
    const fs::path& scratch = *scratch_dir;
    std::error_code ec;
    fs::create_directory(scratch, ec);
    if (ec) {
        return fatal(options,
                     Error{ErrorKind::Io, "cannot make the compile scratch dir: " + ec.message(),
                           scratch.string()});
    }
    progress.set_label("tune " + plan->kernel.kernel_name + ": starting " + options.python);
    bench::CompileServerOptions server_options;
    server_options.python = options.python;
    server_options.module = plan->kernel.module;
    server_options.kernel = plan->kernel.kernel_name;
    server_options.scratch = scratch;
    server_options.workers = options.workers;
    server_options.per_config_timeout = std::chrono::seconds(options.compile_timeout_s);
    server_options.keep_going = [&] {
        return !progress.interrupted();
    };
    auto server = bench::CompileServer::start(server_options);
    if (!server) {
        if (server.error().kind == ErrorKind::Cancelled) {
            return report_stopped(progress, "tune stopped before it began; nothing was recorded");
        }
        return fatal(options, server.error());
    }
    progress.set_label("tune " + plan->kernel.kernel_name + " on " + runner->device().name);

    bench::TimingProtocol timing;
    timing.warmup_ms = options.warmup_ms;
    timing.rep_ms = options.rep_ms;
    tune::TuneBackend backend;
    backend.device = runner->device();
    backend.timing = timing;
    const bench::PairedProtocol paired{.rounds = std::max(options.rounds, 1)};
    backend.time = [&](const bench::LaunchPlan& launch) {
        return runner->run(request.cache_dir, launch, timing);
    };
    backend.pair = [&](const bench::LaunchPlan& best, const bench::LaunchPlan& challenger) {
        return runner->run_pair(request.cache_dir, best, challenger, timing, paired);
    };
    backend.compile = [&](std::size_t id, const cachedir::KernelConfig& config) {
        return server->submit(id, config);
    };
    backend.next_compiled = [&](std::chrono::milliseconds wait) {
        return server->next(wait);
    };
    backend.compile_workers = server->ready().workers;

    std::vector<bench::CandidateResult> results;
    tune::TuneRunOptions run_options;
    run_options.confirm = options.rounds > 0 ? static_cast<std::size_t>(options.confirm) : 0;
    run_options.paired = paired;
    run_options.catalog = &*catalog;
    run_options.progress = progress.callback();
    run_options.keep_going = [&] {
        return !progress.interrupted();
    };
    run_options.on_record = [&](const protocol::Record& record) {
        if (const auto* result = std::get_if<protocol::Result>(&record)) {
            results.push_back(result->result);
        }
        if (options.json_lines) {
            print_record(record);
        }
    };
    if (!options.json_lines) {
        std::fprintf(stderr,
                     "cachelens: tuning %s (%s) on %s with %s: torch %s, Triton %s, %u "
                     "compile workers\n",
                     plan->kernel.kernel_name.c_str(), options.strategy.c_str(),
                     runner->device().name.c_str(), options.python.c_str(),
                     server->ready().torch.c_str(), server->ready().triton.c_str(),
                     server->ready().workers);
    }
    auto end = tune::run_tune(*plan, backend, run_options);
    server->stop();
    progress.clear();
    if (!end) {
        if (end.error().kind == ErrorKind::Cancelled) {
            if (options.json_lines) {
                print_record(protocol::Failure::of(end.error()));
            }
            return report_stopped(progress, "tune stopped before a config was timed");
        }
        return fatal(options, end.error());
    }
    if (!options.json_lines) {
        std::printf("%s\n", end->answer.c_str());
        print_results_text(results);
        std::printf("run %lld recorded in %s (cachelens bench history %s)\n",
                    static_cast<long long>(end->run_id), catalog->path().c_str(),
                    end->kernel.c_str());
        const auto winner = std::ranges::find_if(results, [&](const auto& result) {
            return result.status == "ok" && cachedir::same_config(result.config, end->best_config);
        });
        if (end->faster && winner != results.end() && !winner->triton_hash.empty()) {
            std::printf("to keep it: cachelens bench accept %s %s --dir %s\n", end->kernel.c_str(),
                        winner->triton_hash.substr(0, 12).c_str(), request.cache_dir.c_str());
        }
    }
    return end->ended == "stopped" ? kExitInterrupted : kExitOk;
}

} // namespace

void add_tune_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<TuneOptions>();
    auto* command = app.add_subcommand(
        "tune",
        "Explore Triton configs of one cached kernel beyond the ones Inductor compiled: "
        "coordinate descent by Inductor's own rules from the current best (x2 and /2 of each "
        "block size and of num_warps, within the size hints and TRITON_MAX_BLOCK, then every "
        "direction at radius 2), or a grid or random sample of --space. New configs are "
        "compiled by your Python's torch and Triton (the script: --print-script) into "
        "<data dir>/cachelens/tune/, never into the cache, after the kernel module passed the "
        "code audit; they are timed on the GPU as bench times, the fastest re-timed side by "
        "side with the current best, and every try goes to the catalog (bench history). The "
        "first line answers. --plan lists the candidates and needs no GPU and no Python. Exit "
        "code 2 when it cannot run (no GPU, no Python with torch and Triton, an audit finding, "
        "no such kernel).");
    command->add_option("DIR", options->dir, "the cache dir");
    command->add_option("KERNEL", options->kernel,
                        "a kernel name, a module key (c...), or a unique prefix of either");
    command->add_option("--strategy", options->strategy, "coordesc (default), grid or random");
    command->add_option("--space", options->space,
                        "grid and random: the values per field, 'XBLOCK=256..4096,num_warps=2..16' "
                        "(LOW..HIGH steps x2, +1 for stages) or 'R0_BLOCK=8|64'; fields the space "
                        "does not name keep the current best's value");
    command->add_option("--budget", options->budget,
                        "stop after this time or this many configs: 90s, 5m, 40, or both "
                        "(default 10m,200)");
    command->add_option("--python", options->python,
                        "the Python with torch and Triton that compiles (default python3)");
    command->add_flag("--plan", options->plan,
                      "list the candidates (origin cached or new, the current best marked) and "
                      "the rules; needs no GPU and no Python");
    command->add_flag("--json-lines", options->json_lines,
                      "one JSON object per line (format cachelens-bench): header, tune_start, "
                      "then compiled, result (with origin) and verdict as they happen, tune_end "
                      "(answer first) or error; with --plan: header, tune_start, candidate "
                      "records (config, origin, is_current_best, phase)");
    command->add_flag("--print-script", options->print_script,
                      "print the compile server's Python source, as cachelens runs it, and exit");
    command->add_option("--workers", options->workers, "parallel compiles (default: one per core)");
    command
        ->add_option("--compile-timeout", options->compile_timeout_s,
                     "seconds one config may take to compile (default 180)")
        ->check(CLI::PositiveNumber);
    command->add_option("--seed", options->seed, "random: the sample's seed (default 0)");
    command->add_option("--warmup", options->warmup_ms, "warmup budget in ms (default 25)")
        ->check(CLI::PositiveNumber);
    command->add_option("--rep", options->rep_ms, "timed runs budget in ms (default 100)")
        ->check(CLI::PositiveNumber);
    command
        ->add_option("--rounds", options->rounds,
                     "paired rounds when a config is re-timed beside the start (default 30)")
        ->check(CLI::PositiveNumber);
    command
        ->add_option("--confirm", options->confirm,
                     "how many of the fastest configs to re-time side by side (default 3)")
        ->check(CLI::NonNegativeNumber);
    command->add_option("--device", options->device, "the CUDA device (default 0)")
        ->check(CLI::NonNegativeNumber);
    add_catalog_option(*command, options->catalog);
    command->callback([options, &exit_code] {
        if (!options->print_script && (options->dir.empty() || options->kernel.empty())) {
            exit_code = report("tune needs a cache dir and a kernel (name, module key or prefix)");
            return;
        }
        exit_code = run_tune_command(*options);
    });
}

} // namespace cachelens::cli
