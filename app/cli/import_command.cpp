// `cachelens import FILE --into DIR`: a bundle's artifacts written where
// PyTorch's load_cache_artifacts() would put them, after a safety report,
// without unpickling anything.

#include "commands.h"
#include "import_report.h"
#include "output.h"
#include "preflight_output.h"
#include "progress_line.h"
#include "write_target.h"

#include <cachelens/bundle/bundle_file.h>
#include <cachelens/bundle/import.h>
#include <cachelens/bundle/signing.h>
#include <cachelens/core/format.h>
#include <cachelens/explain/preflight.h>
#include <cachelens/policy/root_policy.h>

#include <cstdio>

namespace cachelens::cli {

namespace {

struct ImportOptions {
    std::string file;
    std::string into;
    bool dry_run = false;
    std::string require_signature;
    std::string max_artifact_size = "1GiB";
    std::vector<std::string> allow_code; // finding ids
    std::string target;                  // --dry-run's preflight: a fingerprint or a dir
    bool json = false;
};

// Will the bundle's graphs hit on the machine the cache dir belongs to? The
// machine is known from a fingerprint (--target) or from the FX entries of
// the dir it goes into; otherwise it is unknown, and said so.
struct DryRunPreflight {
    std::string target;
    Result<explain::TargetCheck> check;
};

DryRunPreflight preflight_of_import(const bundle::BundleFile& file, const ImportOptions& options) {
    const std::string target = options.target.empty() ? options.into : options.target;
    const auto source = explain::preflight_source(file.bundle, file.path.string());
    return {target, explain::preflight_against(source, target)};
}

std::string unknown_machine_text(const DryRunPreflight& preflight) {
    return "environment unknown (" + preflight.check.error().describe() +
           "): run `cachelens env --output env.json` on the machine, then `import --dry-run "
           "--target env.json`";
}

Json dry_run_preflight_json(const DryRunPreflight& preflight) {
    if (!preflight.check) {
        return {{"target", text(preflight.target)},
                {"unknown", text(unknown_machine_text(preflight))}};
    }
    Json json = {{"target", text(preflight.target)},
                 {"fingerprint", Json::parse(cachedir::to_json(preflight.check->target))}};
    json.update(preflight_json(preflight.check->report));
    return json;
}

void print_dry_run_preflight(const DryRunPreflight& preflight) {
    if (!preflight.check) {
        std::printf("\nwill it hit there? %s\n", unknown_machine_text(preflight).c_str());
        return;
    }
    std::printf(
        "\nwill it hit there? %s (%s, learnt from %s)\n", preflight.check->report.answer().c_str(),
        preflight.check->target.describe().c_str(), preflight.check->target.learnt_from.c_str());
    print_preflight_details(preflight.check->report);
}

Json manifest_json(const bundle::BundleFile& file) {
    if (!file.manifest) {
        return nullptr;
    }
    const auto& manifest = *file.manifest;
    auto optional = [](const std::optional<std::string>& value) -> Json {
        return value ? text(*value) : Json(nullptr);
    };
    return {{"signer", manifest.signer_fingerprint},
            {"verified", file.signature_verified},
            {"created", manifest.created},
            {"gpu", optional(manifest.source.gpu)},
            {"torch_version", optional(manifest.source.torch_version)},
            {"triton_version", optional(manifest.source.triton_version)},
            {"cuda_version", optional(manifest.source.cuda_version)}};
}

Json plan_json(const bundle::BundleFile& file, const bundle::ImportPlan& plan, bool dry_run) {
    Json counts = Json::object();
    for (auto action : {bundle::ImportAction::Write, bundle::ImportAction::Written,
                        bundle::ImportAction::AlreadyPresent, bundle::ImportAction::Conflict,
                        bundle::ImportAction::Refused, bundle::ImportAction::Failed}) {
        counts[std::string(to_string(action))] = plan.count(action);
    }
    return {{"file", text(file.path.string())},
            {"into", text(plan.cache_dir.string())},
            {"target", text(target_path(plan.cache_dir))},
            {"dry_run", dry_run},
            {"creates_cache_dir", plan.creates_cache_dir},
            {"signed", manifest_json(file)},
            {"clean", plan.clean()},
            {"counts", counts},
            {"artifacts", plan_artifacts_json(plan)}};
}

void print_plan(const bundle::BundleFile& file, const bundle::ImportPlan& plan, bool dry_run) {
    std::printf("%s: %s, %s", file.path.c_str(),
                plural(file.bundle.artifact_count(), "artifact").c_str(),
                format_bytes(file.size).c_str());
    if (file.manifest) {
        std::printf(", signed by %s (%s)", file.manifest->signer_fingerprint.c_str(),
                    file.signature_verified ? "verified"
                                            : "not verified: no --require-signature given");
    } else {
        std::printf(", unsigned");
    }
    std::printf("\n");
    print_into(target_path(plan.cache_dir), plan.creates_cache_dir, dry_run);
    print_plan_artifacts(plan, dry_run);
    std::printf("%s\n", verdict_summary(plan).c_str());
    std::printf("%s: %zu %s, %zu already present, %zu conflicts, %zu refused",
                plural(plan.artifacts.size(), "artifact").c_str(),
                plan.count(dry_run ? bundle::ImportAction::Write : bundle::ImportAction::Written),
                dry_run ? "to write" : "written", plan.count(bundle::ImportAction::AlreadyPresent),
                plan.count(bundle::ImportAction::Conflict),
                plan.count(bundle::ImportAction::Refused));
    if (const auto failed = plan.count(bundle::ImportAction::Failed)) {
        std::printf(", %zu failed", failed);
    }
    std::printf("\n");
}

int run_import(const ImportOptions& options) {
    if (auto allowed = policy::allow_write(options.into, policy::RootWrite::Import); !allowed) {
        return report(allowed.error());
    }
    auto limit = parse_size(options.max_artifact_size);
    if (!limit) {
        return report("--max-artifact-size: " + limit.error().message);
    }
    std::optional<bundle::PublicKey> signer;
    if (!options.require_signature.empty()) {
        auto key = bundle::load_public_key(options.require_signature);
        if (!key) {
            return report(key.error());
        }
        signer = std::move(*key);
    }
    auto file = bundle::open_bundle_file(options.file, signer ? &*signer : nullptr);
    if (!file) {
        return report(file.error());
    }
    // A signature verified against the key the user gave stands in for
    // --allow-code: who made the bundle is known and trusted.
    const bundle::ImportRules rules{
        .max_artifact_bytes = *limit,
        .trust = {.allowed_ids = options.allow_code,
                  .signed_by_trusted_key = signer.has_value() && file->signature_verified}};
    ProgressLine progress("importing into " + options.into, options.json);
    auto plan = bundle::plan_import(file->bundle, options.into, rules, progress.callback());
    progress.clear();
    if (!plan) {
        return report_failure(progress, plan.error(), "import stopped before writing anything");
    }
    if (const auto unknown = bundle::unknown_finding_ids(*plan, rules); !unknown.empty()) {
        return report(Error{.kind = ErrorKind::InvalidArgument,
                            .message = "--allow-code " + unknown.front() +
                                       ": no finding of this bundle has that id (nothing was "
                                       "written; `import --dry-run` lists the ids)",
                            .path = options.file});
    }
    if (!options.dry_run) {
        *plan = bundle::run_import(std::move(*plan), file->bundle, progress.callback());
    }
    progress.clear();
    if (plan->cancelled) {
        return report_stopped(
            progress, "import stopped; " +
                          std::to_string(plan->count(bundle::ImportAction::Written)) +
                          " files written, each whole, none half; run import again to finish");
    }
    if (options.json) {
        Json json = plan_json(*file, *plan, options.dry_run);
        if (options.dry_run) {
            json["preflight"] = dry_run_preflight_json(preflight_of_import(*file, options));
        }
        print_json(json);
    } else {
        print_plan(*file, *plan, options.dry_run);
        if (options.dry_run) {
            print_dry_run_preflight(preflight_of_import(*file, options));
        }
    }
    return plan->clean() ? kExitOk : kExitProblems;
}

} // namespace

void add_import_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<ImportOptions>();
    auto* command = app.add_subcommand(
        "import",
        "Write a bundle's artifacts into a cache dir where PyTorch's load_cache_artifacts() "
        "would, without unpickling anything. Each artifact first gets a verdict: data only; "
        "Inductor code (code PyTorch will run, all of it in the vocabulary Inductor "
        "generates); code with findings (a pickle call outside PyTorch's policy, or code "
        "outside Inductor's vocabulary: each finding with its id, file, line and text); or "
        "unreadable (a key that would leave DIR or does not look like PyTorch's, a symlinked "
        "directory on the way, content that does not parse, a size over the limit). Code with "
        "findings is refused unless every finding is allowed with --allow-code or the bundle "
        "is signed by the key given with --require-signature; unreadable artifacts are always "
        "refused. Refused artifacts are never written. Files already there with the same bytes "
        "are left alone; different bytes are a conflict, left alone too. Writes are atomic. "
        "Exit 0 when everything was imported or present, 1 when something was refused or "
        "conflicts, 2 when the bundle cannot be read or an --allow-code id is not one of its "
        "findings. docs/SECURITY.md says what is checked and what is not.");
    command->add_option("FILE", options->file, "a PyTorch mega-cache bundle or a signed bundle")
        ->required();
    command->add_option("--into", options->into, "the cache dir (created when missing)")
        ->required();
    command->add_flag("--dry-run", options->dry_run,
                      "show the plan and the report, and whether the bundle's graphs will hit "
                      "on the machine (preflight); write nothing");
    command->add_option("--target", options->target,
                        "--dry-run's preflight against this fingerprint (cachelens env "
                        "--output) or cache dir, rather than the --into dir's own FX entries");
    command->add_option("--require-signature", options->require_signature,
                        "a public key (cachelens keygen): refuse anything but a bundle signed "
                        "with it; code with findings in such a bundle is let in (shown, not "
                        "refused)");
    command->add_option("--allow-code", options->allow_code,
                        "finding ids (F + 12 hex digits, as the report prints them) to let in "
                        "after reading them; an artifact is imported when all of its findings "
                        "are allowed");
    command->add_option("--max-artifact-size", options->max_artifact_size,
                        "refuse artifacts larger than this (default 1GiB)");
    command->add_flag(
        "--json", options->json,
        "print {file, into, target (into, absolute), dry_run, creates_cache_dir, signed, "
        "clean, counts, preflight (--dry-run: {target, fingerprint, entries, incomplete, notes, "
        "config_compared} as preflight prints them, or {target, unknown}), "
        "artifacts: [{type, key, size, sha256, destination, parses_to, action, verdict "
        "(data-only, inductor-code, code-with-findings, unreadable), consent, code, "
        "findings: [{id, rule, file, line, text, why}], problems, notes}]}");
    command->callback([options, &exit_code] { exit_code = run_import(*options); });
}

} // namespace cachelens::cli
