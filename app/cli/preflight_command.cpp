#include "commands.h"
#include "output.h"
#include "preflight_output.h"
#include "progress_line.h"

#include <cachelens/bundle/bundle_file.h>
#include <cachelens/cachedir/fingerprint.h>
#include <cachelens/core/format.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/explain/preflight.h>
#include <cachelens/pt2/pt2_archive.h>
#include <cachelens/serving/piecewise.h>

#include <cstdio>
#include <filesystem>
#include <optional>

namespace cachelens::cli {

namespace {

struct PreflightOptions {
    std::string source;
    std::string target;
    bool json = false;
};

// What SOURCE names: a cache dir, or a bundle file read in place.
struct LoadedSource {
    std::optional<bundle::BundleFile> bundle;
    explain::PreflightSource graphs;
};

Result<LoadedSource> load_source(const std::string& source) {
    LoadedSource loaded;
    std::error_code error;
    if (std::filesystem::is_regular_file(source, error)) {
        auto file = bundle::open_bundle_file(source);
        if (!file) {
            return std::unexpected(file.error());
        }
        loaded.bundle = std::move(*file);
        loaded.graphs = explain::preflight_source(loaded.bundle->bundle, source);
        return loaded;
    }
    auto scan = cachedir::scan_cache_dir(source);
    if (!scan) {
        return std::unexpected(scan.error());
    }
    loaded.graphs = explain::preflight_source(*scan);
    return loaded;
}

// An AOTInductor package: will each model load there, and its kernels run?
int run_preflight_pt2(const PreflightOptions& options, const cachedir::Fingerprint& target) {
    auto archive = pt2::read_archive(options.source);
    if (!archive) {
        return report(archive.error());
    }
    const auto checked = explain::preflight_pt2(*archive, target);
    const int exit_code = checked.all_load() ? kExitOk : kExitProblems;
    if (options.json) {
        Json models = Json::array();
        for (const auto& model : checked.models) {
            Json reasons = Json::array();
            for (const auto& reason : model.reasons) {
                reasons.push_back({{"category", reason.category},
                                   {"text", text(reason.text)},
                                   {"effect", explain::to_string(reason.effect)}});
            }
            models.push_back(
                {{"model", text(model.model)},
                 {"outcome", model.outcome == explain::PreflightOutcome::CanHit ? "can_load"
                             : model.outcome == explain::PreflightOutcome::WillMiss
                                 ? "will_not_load"
                                 : "cannot_tell"},
                 {"reasons", std::move(reasons)}});
        }
        Json notes = Json::array();
        for (const auto& note : checked.notes) {
            notes.push_back(text(note));
        }
        print_json({{"source", text(options.source)},
                    {"source_kind", "pt2"},
                    {"target",
                     {{"path", text(options.target)},
                      {"fingerprint", Json::parse(cachedir::to_json(target))}}},
                    {"answer", checked.answer()},
                    {"models", std::move(models)},
                    {"notes", std::move(notes)}});
        return exit_code;
    }
    std::printf("%s\n", checked.answer().c_str());
    std::printf("target: %s (%s)\n\n", options.target.c_str(), target.describe().c_str());
    for (const auto& model : checked.models) {
        std::printf("%-14s model %s\n",
                    model.outcome == explain::PreflightOutcome::CanHit     ? "can_load"
                    : model.outcome == explain::PreflightOutcome::WillMiss ? "will_not_load"
                                                                           : "cannot_tell",
                    model.model.c_str());
        for (const auto& reason : model.reasons) {
            std::printf("    %s: %s\n", reason.category.c_str(), reason.text.c_str());
        }
    }
    for (const auto& note : checked.notes) {
        std::printf("note: %s\n", note.c_str());
    }
    return exit_code;
}

// A precompiled function: will PyTorch's SystemInfo check let it load there?
int run_preflight_precompile(const PreflightOptions& options, const cachedir::Fingerprint& target) {
    auto file = cachedir::read_precompile_file(options.source);
    if (!file) {
        return report(file.error());
    }
    const auto checked = explain::preflight_precompile(*file, target);
    const int exit_code =
        checked.outcome == explain::PreflightOutcome::CanHit ? kExitOk : kExitProblems;
    const char* outcome = checked.outcome == explain::PreflightOutcome::CanHit     ? "can_load"
                          : checked.outcome == explain::PreflightOutcome::WillMiss ? "will_not_load"
                                                                                   : "cannot_tell";
    if (options.json) {
        Json reasons = Json::array();
        for (const auto& reason : checked.reasons) {
            reasons.push_back({{"category", reason.category},
                               {"text", text(reason.text)},
                               {"effect", explain::to_string(reason.effect)}});
        }
        Json notes = Json::array();
        for (const auto& note : checked.notes) {
            notes.push_back(text(note));
        }
        print_json({{"source", text(options.source)},
                    {"source_kind", "precompile"},
                    {"target",
                     {{"path", text(options.target)},
                      {"fingerprint", Json::parse(cachedir::to_json(target))}}},
                    {"answer", checked.answer()},
                    {"outcome", outcome},
                    {"reasons", std::move(reasons)},
                    {"notes", std::move(notes)}});
        return exit_code;
    }
    std::printf("%s\n", checked.answer().c_str());
    std::printf("target: %s (%s)\n", options.target.c_str(), target.describe().c_str());
    for (const auto& reason : checked.reasons) {
        std::printf("    %s: %s\n", reason.category.c_str(), reason.text.c_str());
    }
    for (const auto& note : checked.notes) {
        std::printf("note: %s\n", note.c_str());
    }
    return exit_code;
}

bool is_precompile_file(const std::string& path) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) {
        return false;
    }
    auto file = MappedFile::open(path);
    return file && cachedir::looks_like_precompile((*file)->bytes());
}

bool is_pt2_file(const std::string& path) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) {
        return false;
    }
    auto file = MappedFile::open(path);
    return file && pt2::looks_like_zip((*file)->bytes());
}

int run_preflight(const PreflightOptions& options) {
    ProgressLine progress("reading the target " + options.target, options.json);
    auto target = cachedir::fingerprint_of_target(options.target, progress.callback());
    if (!target) {
        return report_failure(progress, target.error(), "stopped: nothing was compared");
    }
    if (is_pt2_file(options.source)) {
        progress.clear();
        return run_preflight_pt2(options, *target);
    }
    if (is_precompile_file(options.source)) {
        progress.clear();
        return run_preflight_precompile(options, *target);
    }
    progress.set_label("reading " + options.source);
    auto source = load_source(options.source);
    if (!source) {
        progress.clear();
        return report(source.error());
    }
    progress.set_label("checking " + options.source);
    auto checked = explain::preflight(source->graphs, *target, progress.callback());
    if (!checked) {
        return report_failure(progress, checked.error(), "stopped: nothing was compared");
    }
    progress.clear();
    // A vLLM or SGLang hash dir against one made on the target: the server's factors.
    const auto factors = serving::preflight_factors(options.source, options.target);
    const bool factors_differ = factors && !factors->changes.empty();
    const int exit_code = checked->all_can_hit() && !factors_differ ? kExitOk : kExitProblems;
    if (options.json) {
        Json json = {{"source", text(options.source)},
                     {"source_kind", source->bundle ? "bundle" : "dir"},
                     {"target",
                      {{"path", text(options.target)},
                       {"fingerprint", Json::parse(cachedir::to_json(*target))}}}};
        json.update(preflight_json(*checked));
        if (factors) {
            Json changes = Json::array();
            for (const auto& change : factors->changes) {
                changes.push_back({{"factor", change.factor},
                                   {"name", change.name},
                                   {"from", change.from},
                                   {"to", change.to}});
            }
            json["serving_factors"] = {{"answer", factors->answer},
                                       {"recorded", factors->factors_recorded},
                                       {"changes", std::move(changes)}};
        }
        print_json(json);
        return exit_code;
    }
    // The answer first, in one line: the server's own hash comes before any entry.
    if (factors && !factors->changes.empty()) {
        std::printf("%s\n", factors->answer.c_str());
    }
    print_preflight_answer(*checked);
    if (factors && factors->changes.empty()) {
        std::printf("%s\n", factors->answer.c_str());
    }
    if (factors) {
        for (const auto& change : factors->changes) {
            std::printf("    %s\n", serving::describe(change).c_str());
        }
    }
    std::printf(
        "target: %s (%s; graphs for %s; learnt from %s", options.target.c_str(),
        target->describe().c_str(),
        [&] {
            std::string devices;
            for (const auto& device : target->device_types) {
                devices += (devices.empty() ? "" : " ") + device;
            }
            return devices;
        }()
            .c_str(),
        target->learnt_from.c_str());
    if (const std::string agreement = target->agreement(); !agreement.empty()) {
        std::printf(", %s", agreement.c_str());
    }
    std::printf(")\n\n");
    print_preflight_details(*checked);
    return exit_code;
}

} // namespace

void add_preflight_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<PreflightOptions>();
    auto* command = app.add_subcommand(
        "preflight",
        "Will this cache hit on another machine? Each FX graph and AOTAutograd entry of SOURCE "
        "(a cache dir or a bundle, read in place) against the target machine's fingerprint (a "
        "file `cachelens env --output` wrote there, or a cache dir made there): the GPU, CUDA "
        "or HIP, Triton, the torch build, the devices, and, from a cache dir, the Inductor "
        "config its compiles used. Each entry can_hit, will_miss with what differs "
        "(\"GPU: NVIDIA H100 80GB HBM3 -> NVIDIA A100-SXM4-80GB\"), or cannot_tell (a device "
        "the target's cache never used: a cache dir does not list the machine's devices, a "
        "fingerprint from `cachelens env` does). Config keys chosen per torch.compile call "
        "(mode's max_autotune, coordinate_descent_tuning, triton.cudagraphs, and any key not "
        "read from a TORCHINDUCTOR_ variable) are said as differing from the target's other "
        "compiles, never as a miss. Also what SOURCE lacks: an "
        "AOTAutograd entry's missing graph (it can never hit), a kernel's missing .best_config "
        "(autotuning runs again), a PGO profile for graphs with dynamic shapes (a note). Exit 0 "
        "when every entry can hit and nothing is missing, 1 otherwise, 2 on an error (a target "
        "with no FX entry to learn from, a file that is no fingerprint). SOURCE may also be an "
        "AOTInductor package (.pt2): will each model load there (its device, its kernels' GPU "
        "architecture against the target's), said can_load, will_not_load or cannot_tell. "
        "SOURCE a hash dir of a vLLM or SGLang tree and --target one made on the target: also "
        "the factors vLLM hashed each dir's name from (cache_key_factors.json), since vLLM "
        "there never reads a dir of other factors (exit 1 when they differ)");
    command
        ->add_option("SOURCE", options->source,
                     "the cache dir, bundle, .pt2 or precompiled function (save_compiled_function "
                     "file) to ship")
        ->required();
    command
        ->add_option("--target", options->target,
                     "the target machine: a fingerprint file (cachelens env --output) or a "
                     "cache dir made there")
        ->required();
    command->add_flag(
        "--json", options->json,
        "print {source, source_kind: dir|bundle, target: {path, fingerprint: "
        "(cachelens env --json)}, entries: [{kind, key, path, outcome, reasons: "
        "[{category, text, effect: will_miss|cannot_tell|can_hit (a remark)}]}], incomplete: "
        "[{kind, key, text}], notes: [text], "
        "config_compared}; for a .pt2: {source, source_kind: pt2, target, answer, "
        "models: [{model, outcome: can_load|will_not_load|cannot_tell, reasons}], "
        "notes}; for a precompiled function: {source, source_kind: precompile, "
        "target, answer, outcome, reasons, notes}");
    command->callback([options, &exit_code] { exit_code = run_preflight(*options); });
}

} // namespace cachelens::cli
