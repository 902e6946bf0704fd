#include <cachelens/bench/bench_store.h>
#include <cachelens/bench/tune.h>
#include <cachelens/core/dir_handle.h>
#include <cachelens/core/format.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/core/user_dirs.h>
#include <cachelens/safety/code_audit.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <set>

namespace cachelens::bench::tune {

namespace {

namespace fs = std::filesystem;
using cachedir::KernelConfig;
using Clock = std::chrono::steady_clock;

// The kernel REQUEST names: exactly by name or module key, else by a prefix
// of either that only one kernel has.
Result<KernelCandidates> find_kernel(std::vector<KernelCandidates> kernels,
                                     const TuneRequest& request) {
    const std::string& wanted = request.kernel;
    if (wanted.empty()) {
        return fail(ErrorKind::InvalidArgument, "no kernel named: give its name or module key");
    }
    const auto pick = [&](auto&& matches) -> std::vector<std::size_t> {
        std::vector<std::size_t> found;
        for (std::size_t i = 0; i < kernels.size(); ++i) {
            if (matches(kernels[i])) {
                found.push_back(i);
            }
        }
        return found;
    };
    auto found = pick([&](const KernelCandidates& k) {
        return k.kernel_name == wanted || k.module_key == wanted;
    });
    if (found.empty()) {
        found = pick([&](const KernelCandidates& k) {
            return k.kernel_name.starts_with(wanted) || k.module_key.starts_with(wanted);
        });
    }
    const auto names = [&](const std::vector<std::size_t>& indices) {
        std::string out;
        const std::size_t shown = std::min<std::size_t>(indices.size(), 8);
        for (std::size_t i = 0; i < shown; ++i) {
            const auto& k = kernels[indices[i]];
            out += (i == 0 ? "" : ", ") + k.kernel_name + " (" + k.module_key + ")";
        }
        if (indices.size() > shown) {
            out += fmt::format(" and {} more", indices.size() - shown);
        }
        return out;
    };
    if (found.size() == 1) {
        return std::move(kernels[found.front()]);
    }
    if (found.size() > 1) {
        return fail(ErrorKind::InvalidArgument,
                    fmt::format("'{}' names {}: {}; give more of the name or the module key",
                                wanted, plural(found.size(), "kernel"), names(found)),
                    request.cache_dir.string());
    }
    if (kernels.empty()) {
        return std::unexpected(nothing_to_bench(request.cache_dir));
    }
    std::vector<std::size_t> all(kernels.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        all[i] = i;
    }
    return fail(ErrorKind::NotFound,
                fmt::format("no kernel named or keyed '{}' with a benchmark harness; there are: {}",
                            wanted, names(all)),
                request.cache_dir.string());
}

Result<cachedir::KernelDefinition> definition_of(const KernelCandidates& kernel) {
    auto module = cachedir::read_kernel_module(kernel.module);
    if (!module) {
        return std::unexpected(std::move(module.error()));
    }
    for (auto& def : module->kernels) {
        if (def.name == kernel.kernel_name) {
            return std::move(def);
        }
    }
    return fail(ErrorKind::NotFound, "the module no longer defines " + kernel.kernel_name,
                kernel.module.string());
}

const LaunchPlan* cached_plan_of(const KernelCandidates& kernel, const KernelConfig& config) {
    for (const auto& plan : kernel.plans) {
        if (cachedir::same_config(plan.config, config)) {
            return &plan;
        }
    }
    return nullptr;
}

std::vector<protocol::TuneCandidate> candidates_of(const TunePlan& plan) {
    std::vector<protocol::TuneCandidate> out;
    const auto add = [&](const KernelConfig& config, std::string phase, bool best) {
        const bool cached = cached_plan_of(plan.kernel, config) != nullptr;
        out.push_back({plan.kernel.kernel_name, plan.kernel.module_key, config,
                       cached ? "cached" : "new", best, std::move(phase)});
    };
    std::set<std::string> seen;
    for (const auto& cached : plan.kernel.plans) {
        if (seen.insert(config_key(cached.config)).second) {
            add(cached.config, "cached", cached.is_current_best);
        }
    }
    std::vector<std::pair<KernelConfig, std::string>> tries;
    switch (plan.strategy) {
    case Strategy::Coordesc:
        for (auto& planned :
             coordesc_first_tries(plan.rules, plan.start, plan.all_directions_radius)) {
            tries.emplace_back(std::move(planned.config), std::move(planned.phase));
        }
        break;
    case Strategy::Grid:
        for (auto& config : grid_configs(plan.rules, *plan.space, plan.start)) {
            tries.emplace_back(std::move(config), "grid");
        }
        break;
    case Strategy::Random:
        for (auto& config : random_configs(plan.rules, *plan.space, plan.start,
                                           plan.budget.configs.value_or(40), plan.seed)) {
            tries.emplace_back(std::move(config), "random");
        }
        break;
    }
    for (auto& [config, phase] : tries) {
        if (seen.insert(config_key(config)).second) {
            add(config, std::move(phase), false);
        }
    }
    return out;
}

// A failure's words in the answer: "out of shared memory", "compile error".
std::string failure_words(const CandidateResult& result) {
    const std::string lowered = [&] {
        std::string text = result.message;
        std::transform(text.begin(), text.end(), text.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return text;
    }();
    if (result.status == "resources" || lowered.find("out of resource") != std::string::npos) {
        if (lowered.find("shared") != std::string::npos) {
            return "out of shared memory";
        }
        if (lowered.find("register") != std::string::npos) {
            return "out of registers";
        }
        return "out of resources";
    }
    if (result.status == "compile") {
        return "compile error";
    }
    if (result.status == "timeout") {
        return "compile timed out";
    }
    if (result.status == "crashed") {
        return "compiler crashed";
    }
    if (result.status == "invalid") {
        return "refused by the compile server";
    }
    return result.status + " failed";
}

std::string plural(std::size_t count, std::string_view one, std::string_view many) {
    return fmt::format("{} {}", count, count == 1 ? one : many);
}

// The state of one run: every try, the compiles in flight, the budget.
class Run {
public:
    Run(const TunePlan& plan, const TuneBackend& backend, const TuneRunOptions& options)
        : plan_(plan)
        , backend_(backend)
        , options_(options)
        , started_(Clock::now()) {}

    void emit(const protocol::Record& record) const {
        if (options_.on_record) {
            options_.on_record(record);
        }
    }

    bool within_budget() const {
        if (plan_.budget.time && Clock::now() - started_ >= *plan_.budget.time) {
            return false;
        }
        return !plan_.budget.configs || results_.size() < *plan_.budget.configs;
    }

    bool keep_going() {
        if (error_ || stopped_by_user_) {
            return false;
        }
        if (options_.keep_going && !options_.keep_going()) {
            stopped_by_user_ = true;
            return false;
        }
        if (!within_budget()) {
            budget_spent_ = true;
            return false;
        }
        return true;
    }

    // Times a cached candidate (the first part of every run).
    std::optional<double> time_cached(const LaunchPlan& launch) {
        auto result = backend_.time(launch);
        if (!result) {
            error_ = std::move(result.error());
            return std::nullopt;
        }
        result->origin = "cached";
        result->was_best = launch.is_current_best;
        return take(std::move(*result), launch);
    }

    // A config of the search: cached ones from their cubin, new ones compiled.
    std::optional<double> measure(const KernelConfig& config) {
        const std::string key = config_key(config);
        if (const auto it = times_.find(key); it != times_.end()) {
            return it->second;
        }
        if (const LaunchPlan* cached = cached_plan_of(plan_.kernel, config)) {
            return time_cached(*cached);
        }
        auto reply = compiled(config);
        if (!reply) {
            return std::nullopt;
        }
        CandidateResult result;
        result.kernel_name = plan_.kernel.kernel_name;
        result.module_key = plan_.kernel.module_key;
        result.config = config;
        result.origin = "new";
        if (reply->kind == CompileReply::Kind::Failed) {
            ++compile_failed_;
            result.status = reply->reason;
            result.message = reply->message;
            emit(protocol::Compiled{plan_.kernel.kernel_name,
                                    config,
                                    reply->reason,
                                    reply->message,
                                    {},
                                    reply->seconds});
            take(std::move(result), std::nullopt);
            return std::nullopt;
        }
        ++compiled_;
        emit(protocol::Compiled{
            plan_.kernel.kernel_name, config, "ok", {}, reply->triton_hash, reply->seconds});
        result.triton_hash = reply->triton_hash;
        auto launch = plan_compiled(plan_, config, reply->triton_dir);
        if (!launch) {
            result.status = "plan";
            result.message = launch.error().describe();
            take(std::move(result), std::nullopt);
            return std::nullopt;
        }
        auto timed = backend_.time(*launch);
        if (!timed) {
            error_ = std::move(timed.error());
            return std::nullopt;
        }
        timed->origin = "new";
        timed->config = config;
        return take(std::move(*timed), std::move(*launch));
    }

    void prefetch(const std::vector<KernelConfig>& configs) {
        for (const auto& config : configs) {
            const std::string key = config_key(config);
            if (cached_plan_of(plan_.kernel, config) != nullptr || times_.contains(key) ||
                ids_.contains(key)) {
                continue;
            }
            queued_.push_back(config);
            ids_.emplace(key, std::nullopt);
        }
        pump();
    }

    void stop_on_error(Error error) {
        if (!error_) {
            error_ = std::move(error);
        }
    }

    const std::optional<Error>& error() const { return error_; }
    bool stopped_by_user() const { return stopped_by_user_; }
    bool budget_spent() const { return budget_spent_; }
    double seconds() const {
        return std::chrono::duration<double>(Clock::now() - started_).count();
    }
    std::vector<CandidateResult>& results() { return results_; }
    std::size_t compiled_count() const { return compiled_; }
    std::size_t compile_failed_count() const { return compile_failed_; }
    const LaunchPlan* launch_of(const KernelConfig& config) const {
        if (const LaunchPlan* cached = cached_plan_of(plan_.kernel, config)) {
            return cached;
        }
        const auto it = launches_.find(config_key(config));
        return it == launches_.end() ? nullptr : &it->second;
    }

private:
    std::optional<double> take(CandidateResult result, std::optional<LaunchPlan> launch) {
        const std::string key = config_key(result.config);
        const bool ok = result.status == "ok";
        const std::optional<double> ms = ok ? std::optional(result.stats.median_ms) : std::nullopt;
        times_[key] = ms;
        if (launch) {
            launches_.insert_or_assign(key, std::move(*launch));
        }
        results_.push_back(std::move(result));
        emit(protocol::Result{results_.size(), std::max(plan_.candidates.size(), results_.size()),
                              results_.back()});
        Progress progress;
        progress.stage = ProgressStage::Benchmarking;
        progress.unit = ProgressUnit::Candidates;
        progress.done = results_.size();
        progress.total = std::max(plan_.candidates.size(), results_.size());
        const std::string item = results_.back().config.describe();
        progress.item = item;
        if (!report_progress(options_.progress, progress)) {
            stopped_by_user_ = true;
        }
        return ms;
    }

    // Sends queued configs while fewer than the workers are compiling.
    void pump() {
        const std::size_t limit = std::max(1U, backend_.compile_workers);
        while (!error_ && in_flight_ < limit && !queued_.empty()) {
            submit(queued_.front());
            queued_.pop_front();
        }
    }

    void submit(const KernelConfig& config) {
        const std::size_t id = next_id_++;
        ids_[config_key(config)] = id;
        if (auto sent = backend_.compile(id, config); !sent) {
            stop_on_error(std::move(sent.error()));
            return;
        }
        ++in_flight_;
    }

    // Waits for `config`'s compile, sending it first if it is not yet out.
    std::optional<CompileReply> compiled(const KernelConfig& config) {
        const std::string key = config_key(config);
        auto id = ids_.find(key);
        if (id == ids_.end() || !id->second) {
            // Needed now: ahead of anything queued.
            std::erase_if(queued_, [&](const KernelConfig& q) { return config_key(q) == key; });
            submit(config);
            id = ids_.find(key);
        }
        while (!error_) {
            if (const auto got = replies_.find(*id->second); got != replies_.end()) {
                CompileReply reply = std::move(got->second);
                replies_.erase(got);
                return reply;
            }
            if (options_.keep_going && !options_.keep_going()) {
                stopped_by_user_ = true;
                return std::nullopt;
            }
            auto next = backend_.next_compiled(std::chrono::milliseconds(100));
            if (!next) {
                stop_on_error(std::move(next.error()));
                return std::nullopt;
            }
            if (*next) {
                --in_flight_;
                replies_.emplace((*next)->id, std::move(**next));
                pump();
            }
        }
        return std::nullopt;
    }

    const TunePlan& plan_;
    const TuneBackend& backend_;
    const TuneRunOptions& options_;
    Clock::time_point started_;
    std::vector<CandidateResult> results_;
    std::map<std::string, std::optional<double>> times_;
    std::map<std::string, LaunchPlan> launches_;
    std::map<std::string, std::optional<std::size_t>> ids_; // nullopt: queued, not sent
    std::deque<KernelConfig> queued_;
    std::map<std::size_t, CompileReply> replies_;
    std::size_t next_id_ = 1;
    std::size_t in_flight_ = 0;
    std::size_t compiled_ = 0;
    std::size_t compile_failed_ = 0;
    std::optional<Error> error_;
    bool stopped_by_user_ = false;
    bool budget_spent_ = false;
};

} // namespace

Result<TunePlan> plan_tune(const TuneRequest& request) {
    auto budget = parse_budget(request.budget.empty() ? kDefaultBudget : request.budget);
    if (!budget) {
        return std::unexpected(std::move(budget.error()));
    }
    if (request.strategy == Strategy::Coordesc && !request.space.empty()) {
        return fail(ErrorKind::InvalidArgument,
                    "--space is for --strategy grid or random: coordesc follows Inductor's "
                    "neighbours of the current best");
    }
    auto kernels = plan_kernels(request.cache_dir);
    if (!kernels) {
        return std::unexpected(std::move(kernels.error()));
    }
    auto kernel = find_kernel(std::move(*kernels), request);
    if (!kernel) {
        return std::unexpected(std::move(kernel.error()));
    }
    TunePlan plan;
    plan.cache_dir = request.cache_dir;
    plan.strategy = request.strategy;
    plan.seed = request.seed;
    plan.all_directions_radius = request.all_directions_radius;
    plan.kernel = std::move(*kernel);
    plan.budget = *budget;
    auto definition = definition_of(plan.kernel);
    if (!definition) {
        return std::unexpected(std::move(definition.error()));
    }
    plan.definition = std::move(*definition);
    const auto current = std::find_if(plan.kernel.plans.begin(), plan.kernel.plans.end(),
                                      [](const LaunchPlan& p) { return p.is_current_best; });
    if (current != plan.kernel.plans.end()) {
        plan.start = current->config;
        plan.start_is_current_best = true;
    } else if (!plan.kernel.plans.empty()) {
        plan.start = plan.kernel.plans.front().config;
        plan.notes.push_back(
            "no .best_config names one of its cached configs: the search starts from the fastest "
            "cached one once they are timed");
    } else {
        std::string why;
        for (const auto& [what, reason] : plan.kernel.unplannable) {
            why += (why.empty() ? "" : "; ") + what + ": " + reason;
        }
        return fail(ErrorKind::Unsupported,
                    fmt::format("no cached config of {} can be launched to start from{}",
                                plan.kernel.kernel_name, why.empty() ? "" : " (" + why + ")"),
                    request.cache_dir.string());
    }
    auto rules = rules_for(plan.definition, plan.start);
    if (!rules) {
        return std::unexpected(std::move(rules.error()));
    }
    plan.rules = std::move(*rules);
    plan.notes.insert(plan.notes.end(), plan.rules.notes.begin(), plan.rules.notes.end());
    if (request.strategy != Strategy::Coordesc) {
        if (request.space.empty()) {
            return fail(ErrorKind::InvalidArgument,
                        fmt::format("--strategy {} needs --space; this kernel's fields: {}",
                                    to_string(request.strategy), describe_fields(plan.rules)));
        }
        auto space = parse_space(request.space, plan.rules);
        if (!space) {
            return std::unexpected(std::move(space.error()));
        }
        plan.notes.insert(plan.notes.end(), space->dropped.begin(), space->dropped.end());
        plan.space = std::move(*space);
    }
    plan.candidates = candidates_of(plan);
    return plan;
}

Result<void> check_module_for_python(const TunePlan& plan) {
    auto text = read_text_file(plan.kernel.module);
    if (!text) {
        return std::unexpected(std::move(text.error()));
    }
    auto findings = safety::audit_python(*text, plan.kernel.module.filename().string(),
                                         safety::PythonCode::TritonKernel);
    if (!findings) {
        return std::unexpected(std::move(findings.error()));
    }
    if (!findings->empty()) {
        const auto& first = findings->front();
        return fail(ErrorKind::Unsupported,
                    fmt::format("refusing to hand this module to Python: the code audit found {} "
                                "({}{}){}",
                                first.rule, safety::location(first),
                                first.why.empty() ? "" : ": " + first.why,
                                findings->size() > 1
                                    ? fmt::format(" and {} more", findings->size() - 1)
                                    : std::string()),
                    plan.kernel.module.string());
    }
    return {};
}

Result<LaunchPlan> plan_compiled(const TunePlan& plan, const KernelConfig& config,
                                 const fs::path& triton_dir) {
    return plan_config_in_dir(plan.kernel, plan.definition, config, triton_dir);
}

Result<fs::path> scratch_dir_for(const fs::path& catalog_path, const std::string& module_key) {
    if (!is_plain_name(module_key)) {
        return fail(ErrorKind::InvalidArgument, "not a module key: '" + module_key + "'",
                    catalog_path.string());
    }
    const fs::path tune_dir = catalog_path.parent_path() / "tune";
    if (auto mine = ensure_private_dir(tune_dir); !mine) {
        return std::unexpected(mine.error());
    }
    return tune_dir / module_key;
}

Result<protocol::TuneEnd> run_tune(const TunePlan& plan, const TuneBackend& backend,
                                   const TuneRunOptions& options) {
    Run run(plan, backend, options);
    const auto started_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count();
    const Strategy strategy = plan.strategy;
    run.emit(protocol::TuneStart{
        plan.cache_dir.string(), plan.kernel.kernel_name, plan.kernel.module_key,
        std::string(to_string(strategy)), plan.space ? plan.space->describe() : std::string(),
        plan.budget.describe(), plan.rules.generation, plan.start, plan.candidates.size(),
        backend.device, backend.timing.describe()});

    // The cached configs first, as Inductor's autotuner benchmarks its own.
    for (const auto& launch : plan.kernel.plans) {
        if (!run.keep_going()) {
            break;
        }
        run.time_cached(launch);
    }
    if (run.error()) {
        return std::unexpected(*run.error());
    }
    // The start: the current best when it ran, else the fastest cached config.
    const CandidateResult* start = nullptr;
    for (const auto& result : run.results()) {
        if (result.status != "ok") {
            continue;
        }
        if (result.was_best) {
            start = &result;
            break;
        }
        if (start == nullptr || result.stats.median_ms < start->stats.median_ms) {
            start = &result;
        }
    }
    if (start == nullptr) {
        if (run.stopped_by_user()) {
            return fail(ErrorKind::Cancelled, "stopped before a cached config was timed");
        }
        std::string why;
        for (const auto& result : run.results()) {
            why += (why.empty() ? "" : "; ") + result.config.describe() + ": " + result.status +
                   (result.message.empty() ? "" : " (" + result.message + ")");
        }
        return fail(ErrorKind::Unsupported,
                    fmt::format("none of {}'s cached configs ran, so there is no time to beat: {}",
                                plan.kernel.kernel_name, why),
                    plan.kernel.module.string());
    }
    const KernelConfig start_config = start->config;
    const double start_ms = start->stats.median_ms;
    const bool start_is_best = start->was_best;

    auto rules = rules_for(plan.definition, start_config);
    if (!rules) {
        return std::unexpected(std::move(rules.error()));
    }
    const Measure measure = [&](const KernelConfig& config) {
        return run.measure(config);
    };
    const Prefetch prefetch = [&](const std::vector<KernelConfig>& configs) {
        run.prefetch(configs);
    };
    const KeepGoing keep_going = [&] {
        return run.keep_going();
    };
    if (strategy == Strategy::Coordesc) {
        coordinate_descent(*rules, start_config, start_ms, measure, prefetch, keep_going,
                           plan.all_directions_radius);
    } else {
        // The plan's order, unless the start moved (no .best_config): the
        // fields the space does not name then keep the new start's values.
        std::vector<KernelConfig> configs;
        if (cachedir::same_config(start_config, plan.start)) {
            for (const auto& candidate : plan.candidates) {
                if (candidate.phase != "cached") {
                    configs.push_back(candidate.config);
                }
            }
        } else {
            configs = strategy == Strategy::Grid
                          ? grid_configs(*rules, *plan.space, start_config)
                          : random_configs(*rules, *plan.space, start_config,
                                           plan.budget.configs.value_or(40), plan.seed);
        }
        measure_each(configs, start_config, start_ms, measure, prefetch, keep_going,
                     std::max(1U, backend.compile_workers));
    }
    if (run.error()) {
        return std::unexpected(*run.error());
    }

    // The fastest that beat the start, re-timed side by side with it.
    std::vector<const CandidateResult*> challengers;
    for (const auto& result : run.results()) {
        if (result.status == "ok" && !cachedir::same_config(result.config, start_config) &&
            has_improvement(start_ms, result.stats.median_ms)) {
            challengers.push_back(&result);
        }
    }
    std::sort(challengers.begin(), challengers.end(),
              [](const auto* a, const auto* b) { return a->stats.median_ms < b->stats.median_ms; });
    challengers.resize(std::min(challengers.size(), options.confirm));
    const LaunchPlan* start_launch = run.launch_of(start_config);
    std::optional<protocol::Verdict> winner;
    KernelConfig winner_config = start_config;
    for (const auto* challenger : challengers) {
        if (run.stopped_by_user() || start_launch == nullptr) {
            break;
        }
        const LaunchPlan* launch = run.launch_of(challenger->config);
        if (launch == nullptr) {
            continue;
        }
        auto paired = backend.pair(*start_launch, *launch);
        if (!paired) {
            return std::unexpected(std::move(paired.error()));
        }
        protocol::Verdict verdict = protocol::verdict_of(*paired);
        run.emit(verdict);
        if (verdict.candidate_faster() &&
            (!winner || verdict.difference_percent > winner->difference_percent)) {
            winner = verdict;
            winner_config = challenger->config;
        }
    }

    // Recorded, then answered.
    BenchRun record;
    record.started_ns = started_ns;
    record.device = backend.device;
    record.protocol = backend.timing;
    record.kind = "tune";
    record.strategy = std::string(to_string(strategy));
    record.results = run.results();
    std::int64_t run_id = 0;
    if (options.catalog != nullptr) {
        auto stored = record_run(*options.catalog, record);
        if (!stored) {
            return std::unexpected(std::move(stored.error()));
        }
        run_id = *stored;
    }

    protocol::TuneEnd end;
    end.run_id = run_id;
    end.kernel = plan.kernel.kernel_name;
    end.module = plan.kernel.module_key;
    end.best_config = winner_config;
    end.faster = winner.has_value();
    end.difference_percent = winner ? winner->difference_percent : 0;
    end.tried = run.results().size();
    end.compiled = run.compiled_count();
    end.compile_failed = run.compile_failed_count();
    std::map<std::string, std::size_t> failures;
    std::size_t not_ok = 0;
    for (const auto& result : run.results()) {
        if (result.status != "ok") {
            ++not_ok;
            ++failures[failure_words(result)];
        }
    }
    end.failed = not_ok - std::min(not_ok, end.compile_failed);
    end.seconds = run.seconds();
    end.ended = run.stopped_by_user()            ? "stopped"
                : run.budget_spent()             ? "budget"
                : strategy == Strategy::Coordesc ? "converged"
                                                 : "all tried";
    const std::string baseline = start_is_best ? "the cached best" : "the fastest cached config";
    std::string first;
    if (winner) {
        const int agreeing = static_cast<int>(std::lround(winner->agreement * winner->rounds));
        first = fmt::format("{}: {} is {:.1f}% faster than {} ({} of {} paired rounds agree)",
                            end.kernel, winner_config.describe(), winner->difference_percent,
                            baseline, agreeing, winner->rounds);
    } else if (!challengers.empty()) {
        first = fmt::format("{}: no config is faster than {} ({}) when re-timed side by side; "
                            "the fastest on its own was {}",
                            end.kernel, baseline, start_config.describe(),
                            challengers.front()->config.describe());
    } else {
        first = fmt::format("{}: no config is faster than {} ({}) beyond noise", end.kernel,
                            baseline, start_config.describe());
    }
    std::string failed_words;
    std::size_t failed_total = 0;
    for (const auto& [words, count] : failures) {
        failed_total += count;
        failed_words += (failed_words.empty() ? "" : ", ") +
                        (failures.size() == 1 ? words : fmt::format("{} {}", count, words));
    }
    end.answer = fmt::format(
        "{}; {} tried in {:.0f} s ({} compiled{}){}", first, plural(end.tried, "config", "configs"),
        end.seconds, end.compiled,
        failed_total == 0 ? std::string()
                          : fmt::format(", {} failed: {}", failed_total, failed_words),
        end.ended == "stopped"  ? "; stopped before the search ended"
        : end.ended == "budget" ? "; the budget (" + plan.budget.describe() + ") ended the search"
                                : "");
    run.emit(end);
    return end;
}

} // namespace cachelens::bench::tune
