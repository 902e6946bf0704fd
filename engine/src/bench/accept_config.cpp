#include <cachelens/bench/accept.h>
#include <cachelens/bench/accept_config.h>
#include <cachelens/bench/bench_store.h>
#include <cachelens/bench/launch_plan.h>
#include <cachelens/bench/runner.h>
#include <cachelens/bench/tune.h>
#include <cachelens/cachedir/triton_kernel.h>
#include <cachelens/catalog/catalog.h>
#include <cachelens/policy/root_policy.h>

#include <algorithm>

namespace cachelens::bench {

namespace {

namespace fs = std::filesystem;

std::unexpected<AcceptFailure> refuse(Error error,
                                      std::optional<AcceptRefusal> refusal = std::nullopt) {
    return std::unexpected(AcceptFailure{std::move(error), refusal});
}

std::unexpected<AcceptFailure> refuse(ErrorKind kind, std::string message, const fs::path& target,
                                      std::optional<AcceptRefusal> refusal = std::nullopt) {
    return refuse(Error{kind, std::move(message), target.string()}, refusal);
}

// Re-times the kernel's current best and `candidate` side by side on the GPU;
// the candidate passes only when faster beyond the noise.
std::expected<PairedResult, AcceptFailure> confirm_faster(const AcceptRequest& request,
                                                          const fs::path& target,
                                                          const KernelCandidates& kernel,
                                                          const LaunchPlan& candidate) {
    const auto best =
        std::ranges::find_if(kernel.plans, [](const auto& plan) { return plan.is_current_best; });
    if (best == kernel.plans.end()) {
        return refuse(ErrorKind::InvalidArgument,
                      "the current best config of " + kernel.kernel_name +
                          " has no cubin in the cache to compare the candidate with: nothing "
                          "written; --force accepts it without a comparison",
                      target, AcceptRefusal::NoBestToCompare);
    }
    auto runner = GpuRunner::open(request.device);
    if (!runner) {
        return refuse(runner.error().kind,
                      "cannot confirm the candidate is faster: " + runner.error().describe() +
                          ": nothing written; --force accepts it without a comparison",
                      target, AcceptRefusal::CannotConfirm);
    }
    auto paired = runner->run_pair(target, *best, candidate, TimingProtocol{},
                                   PairedProtocol{.rounds = request.rounds});
    if (!paired) {
        return refuse(std::move(paired.error()));
    }
    if (!paired->ok() || !paired->verdict.b_faster()) {
        return refuse(ErrorKind::InvalidArgument,
                      "not accepted: " + describe_pair(*paired) +
                          "; nothing written; --force accepts it anyway",
                      target, AcceptRefusal::NotFaster);
    }
    return std::move(*paired);
}

// The end of every accept: timings move ~15% between runs, so the candidate
// must beat the current best side by side, here and now, unless the user
// says otherwise (--force); then the .best_config is rewritten. `explored`:
// a config cachelens tune compiled, with what PyTorch will do with it.
// time_taken_ms keeps the old value: PyTorch records how long autotuning
// took there (popped when it reads the file), not a kernel's time.
std::expected<AcceptReport, AcceptFailure> confirm_and_write(const AcceptRequest& request,
                                                             const fs::path& target,
                                                             const KernelCandidates& kernel,
                                                             const LaunchPlan& candidate,
                                                             std::optional<std::string> explored) {
    std::optional<PairedResult> confirmed;
    if (!request.force) {
        auto checked = confirm_faster(request, target, kernel, candidate);
        if (!checked) {
            return std::unexpected(std::move(checked.error()));
        }
        confirmed = std::move(*checked);
    }
    auto outcome = accept_candidate(kernel, candidate, std::nullopt, explored.has_value());
    if (!outcome) {
        return refuse(std::move(outcome.error()));
    }
    return AcceptReport{target,
                        outcome->best_config,
                        outcome->backup,
                        outcome->old_config,
                        outcome->new_config,
                        std::move(confirmed),
                        std::move(explored)};
}

// What PyTorch does with a .best_config naming a config outside the
// kernel's compiled candidates, per version (docs/PERFORMANCE.md, "The
// explorer"): with coordinate descent off it is never read.
std::string explored_policy(const KernelCandidates& kernel) {
    if (kernel.coordinate_descent_tuning) {
        return "PyTorch 2.11 (and every release since coordinate descent came, 2.1) with "
               "coordinate_descent_tuning starts its search here: it compiles this config when "
               "it loads the kernel and launches whichever neighbour wins in that process; "
               "releases with pytorch/pytorch#181292 (found_by_coordesc kept through the compile "
               "workers) launch it as written";
    }
    return kernel.kernel_name +
           " was compiled with coordinate_descent_tuning off, and PyTorch then takes a "
           ".best_config only when it names one of the kernel's compiled configs: it would "
           "ignore this one and autotune again. To use it, compile with coordinate descent on "
           "(torch._inductor.config.coordinate_descent_tuning = True, or "
           "TORCHINDUCTOR_COORDINATE_DESCENT_TUNING=1): the kernel gets a new cache entry whose "
           "own search starts from its best config; tune and accept that kernel";
}

// The Triton dir cachelens tune compiled `hash` into, under the module's
// scratch dir (which must be the user's own: its cubin goes into the cache).
std::optional<fs::path> explored_dir(const fs::path& scratch, const std::string& hash) {
    const fs::path triton = scratch / "triton";
    std::error_code ec;
    for (fs::recursive_directory_iterator it(triton, ec), end; !ec && it != end; it.increment(ec)) {
        if (it.depth() > 2 || !it->is_regular_file(ec) || it->path().extension() != ".json" ||
            cachedir::is_triton_group_file_name(it->path().filename().string())) {
            continue;
        }
        auto dir = cachedir::read_triton_kernel_dir(it->path().parent_path());
        if (dir && dir->metadata && dir->metadata->hash == hash) {
            return it->path().parent_path();
        }
    }
    return std::nullopt;
}

// A config `cachelens tune` compiled: found by its hash in the catalog's tune
// results, written only where PyTorch will read it.
std::expected<AcceptReport, AcceptFailure> accept_explored(const AcceptRequest& request,
                                                           const fs::path& target,
                                                           const KernelCandidates& kernel) {
    const auto not_found = [&] {
        return refuse(ErrorKind::NotFound,
                      "no candidate of " + request.kernel + " has Triton hash " + request.config +
                          ", and no config cachelens tune compiled for it has",
                      target);
    };
    auto catalog = catalog::Catalog::open(request.catalog);
    if (!catalog) {
        return not_found();
    }
    auto history = kernel_history(*catalog, kernel.kernel_name);
    if (!history) {
        return refuse(std::move(history.error()));
    }
    std::vector<const CandidateResult*> explored;
    for (const auto& row : *history) {
        const CandidateResult& result = row.result;
        if (result.origin == "new" && result.status == "ok" &&
            result.module_key == kernel.module_key &&
            result.triton_hash.starts_with(request.config) &&
            std::ranges::none_of(explored, [&](const CandidateResult* seen) {
                return seen->triton_hash == result.triton_hash;
            })) {
            explored.push_back(&result);
        }
    }
    if (explored.empty()) {
        return not_found();
    }
    if (explored.size() > 1) {
        return refuse(ErrorKind::NotFound,
                      request.config + " names " + std::to_string(explored.size()) +
                          " explored configs: give more of the hash",
                      target);
    }
    const CandidateResult& chosen = *explored.front();
    if (!kernel.coordinate_descent_tuning) {
        return refuse(ErrorKind::InvalidArgument,
                      "not accepted: " + chosen.config.describe() +
                          " is a config cachelens tune compiled, not one of the kernel's own; " +
                          explored_policy(kernel) + "; nothing written",
                      target);
    }
    auto module = cachedir::read_kernel_module(kernel.module);
    if (!module) {
        return refuse(std::move(module.error()));
    }
    const auto definition = std::ranges::find_if(
        module->kernels, [&](const auto& def) { return def.name == kernel.kernel_name; });
    auto scratch = tune::scratch_dir_for(request.catalog, kernel.module_key);
    if (!scratch) {
        return refuse(std::move(scratch.error()));
    }
    const auto dir = explored_dir(*scratch, chosen.triton_hash);
    if (definition == module->kernels.end() || !dir) {
        return refuse(ErrorKind::NotFound,
                      "the cubin cachelens tune compiled for " + chosen.config.describe() +
                          " is no longer in " + scratch->string() + ": tune again",
                      target);
    }
    auto plan = plan_config_in_dir(kernel, *definition, chosen.config, *dir);
    if (!plan) {
        return refuse(std::move(plan.error()));
    }
    plan->source.triton_hash = chosen.triton_hash;
    return confirm_and_write(request, target, kernel, *plan, explored_policy(kernel));
}

} // namespace

std::string describe_registers(const CandidateResult& result) {
    if (!result.registers) {
        return {};
    }
    const std::int64_t spilled = result.local_bytes.value_or(0);
    return std::to_string(*result.registers) + " registers per thread, " +
           (spilled > 0 ? std::to_string(spilled) + " B spilled per thread" : "no spills");
}

std::string describe_pair(const PairedResult& paired) {
    if (!paired.ok()) {
        const CandidateResult& failed = paired.a.status != "ok" ? paired.a : paired.b;
        return std::string(&failed == &paired.a ? "the current best" : "the candidate") +
               " could not be re-timed: " + failed.status + ": " + failed.message;
    }
    return paired.verdict.describe();
}

std::string_view to_string(AcceptRefusal refusal) {
    switch (refusal) {
    case AcceptRefusal::NotLaunchedAsWritten:
        return "not_launched_as_written";
    case AcceptRefusal::NoBestToCompare:
        return "no_best_to_compare";
    case AcceptRefusal::CannotConfirm:
        return "cannot_confirm";
    case AcceptRefusal::NotFaster:
        break;
    }
    return "not_faster";
}

std::expected<AcceptReport, AcceptFailure> accept_config(const AcceptRequest& request) {
    if (request.config.size() < 6) {
        return refuse(ErrorKind::InvalidArgument,
                      "CONFIG is a Triton hash of one of the kernel's candidates or of a config "
                      "cachelens tune compiled (at least 6 characters of it); `cachelens bench "
                      "--plan` and `cachelens bench history` list them",
                      {});
    }
    fs::path target;
    if (request.dir) {
        target = *request.dir;
    } else {
        auto catalog = catalog::Catalog::open(request.catalog);
        if (!catalog) {
            return refuse(std::move(catalog.error()));
        }
        auto found = kernel_dir(*catalog, request.kernel);
        if (!found) {
            return refuse(std::move(found.error()));
        }
        target = std::move(*found);
    }
    if (auto allowed = policy::allow_write(target, policy::RootWrite::BestConfig); !allowed) {
        return refuse(std::move(allowed.error()));
    }
    PlanOptions plan_options;
    plan_options.only = {request.kernel};
    auto kernels = plan_kernels(target, plan_options);
    if (!kernels) {
        return refuse(std::move(kernels.error()));
    }
    const KernelCandidates* found_kernel = nullptr;
    const LaunchPlan* found_plan = nullptr;
    std::size_t matches = 0;
    for (const auto& kernel : *kernels) {
        for (const auto& plan : kernel.plans) {
            if (plan.source.triton_hash.starts_with(request.config)) {
                found_kernel = &kernel;
                found_plan = &plan;
                ++matches;
            }
        }
    }
    if (matches == 0 && kernels->size() == 1) {
        return accept_explored(request, target, kernels->front());
    }
    if (matches != 1) {
        return refuse(ErrorKind::NotFound,
                      matches == 0 ? "no candidate of " + request.kernel + " has Triton hash " +
                                         request.config
                                   : request.config + " names " + std::to_string(matches) +
                                         " candidates: give more of the hash",
                      target);
    }
    const fs::path file = found_kernel->best_config_path ? *found_kernel->best_config_path : target;
    if (!request.dir && !request.yes) {
        return refuse(ErrorKind::InvalidArgument,
                      "would write " +
                          (found_kernel->best_config_path
                               ? found_kernel->best_config_path->string()
                               : "the .best_config of " + request.kernel) +
                          " in " + target.string() + "; give --dir DIR or --yes",
                      {});
    }
    // Nothing to do, whatever else would be said about the kernel.
    if (found_plan->is_current_best) {
        const std::string config = found_plan->config.describe();
        return AcceptReport{target, file, std::nullopt, config, config, std::nullopt, std::nullopt};
    }
    // A config PyTorch would only start a search from is not worth writing
    // as "the best" unless the user wants exactly that.
    if (const auto reason = why_not_launched_as_written(*found_kernel); reason && !request.force) {
        return refuse(ErrorKind::InvalidArgument,
                      "not accepted: " + *reason +
                          "; nothing written; --force writes it as the starting point",
                      target, AcceptRefusal::NotLaunchedAsWritten);
    }
    return confirm_and_write(request, target, *found_kernel, *found_plan, std::nullopt);
}

Result<fs::path> kernel_dir(catalog::Catalog& catalog, const std::string& kernel) {
    catalog::SearchQuery query;
    query.kinds = {cachedir::FileKind::Module};
    query.text = kernel;
    query.limit = 1000;
    auto hits = catalog.search(query);
    if (!hits) {
        return std::unexpected(hits.error());
    }
    std::vector<std::string> roots;
    for (const auto& hit : *hits) {
        if (hit.key == kernel || hit.name.find(kernel) != std::string::npos ||
            std::ranges::find(hit.matched, "name") != hit.matched.end()) {
            if (std::ranges::find(roots, hit.root) == roots.end()) {
                roots.push_back(hit.root);
            }
        }
    }
    if (roots.empty()) {
        return fail(ErrorKind::NotFound,
                    "no indexed cache dir has kernel " + kernel + ": name it with --dir",
                    catalog.path().string());
    }
    if (roots.size() > 1) {
        std::string listed;
        for (const auto& root : roots) {
            listed += "\n  " + root;
        }
        return fail(ErrorKind::InvalidArgument,
                    kernel + " is in " + std::to_string(roots.size()) +
                        " indexed cache dirs; name one with --dir:" + listed);
    }
    return fs::path(roots.front());
}

} // namespace cachelens::bench
