#include "commands.h"
#include "import_report.h"
#include "output.h"
#include "progress_line.h"
#include "serving_output.h"
#include "verify_output.h"

#include <cachelens/bundle/code_verdicts.h>
#include <cachelens/bundle/signed_bundle.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/verify.h>
#include <cachelens/core/format.h>
#include <cachelens/core/mapped_file.h>

#include <cstdio>
#include <filesystem>
#include <optional>

namespace cachelens::cli {

namespace {

struct VerifyOptions {
    std::string path; // a cache dir or a bundle file
    std::string trust;
    bool json = false;
};

struct BundleCheck {
    bool is_signed = false;
    bool verified = false;
    std::optional<std::string> signer;
    std::size_t artifacts = 0;
    std::string what;    // one line on what the file is, when it reads
    std::string problem; // empty when the check passed
    // Each artifact as `import` would judge it (a verified signature lets
    // code with findings in, as `import --require-signature` does).
    std::vector<bundle::ArtifactCheck> artifact_checks;
};

std::vector<bundle::ArtifactCheck> judge_artifacts(const bundle::MegaBundle& mega,
                                                   bool trusted_signer) {
    std::vector<bundle::ArtifactCheck> checks;
    const bundle::ImportRules rules{
        .max_artifact_bytes = bundle::ImportRules{}.max_artifact_bytes,
        .trust = {.allowed_ids = {}, .signed_by_trusted_key = trusted_signer}};
    for (const auto& section : mega.sections) {
        for (const auto& artifact : section.artifacts) {
            checks.push_back(
                bundle::check_artifact(section.type, artifact.key, artifact.content, rules));
        }
    }
    return checks;
}

// `file` keeps `bytes` alive: the decoded contents are slices of it.
BundleCheck check_bundle(std::string_view bytes, const std::shared_ptr<const MappedFile>& file,
                         const std::optional<bundle::PublicKey>& trusted) {
    BundleCheck check;
    check.is_signed = bundle::looks_signed(bytes);
    if (check.is_signed) {
        auto signed_bundle = trusted ? bundle::verify_signed_bundle(bytes, *trusted, file)
                                     : bundle::read_signed_bundle(bytes, file);
        if (!signed_bundle) {
            check.problem = signed_bundle.error().message;
            return check;
        }
        check.verified = signed_bundle->signature_verified;
        check.signer = signed_bundle->manifest.signer_fingerprint;
        check.artifacts = signed_bundle->bundle.artifact_count();
        check.artifact_checks = judge_artifacts(signed_bundle->bundle, check.verified);
        check.what = "signed by " + *check.signer + " on " + signed_bundle->manifest.created +
                     ", " + plural(check.artifacts, "artifact");
        if (!trusted) {
            check.problem = "signed by " + *check.signer +
                            ", and nothing was trusted: give the signer's public key with "
                            "--trust PUBKEY";
        }
        return check;
    }
    auto plain = bundle::decode_mega_cache(bytes, {.check_crc = true, .owner = file});
    if (!plain) {
        check.problem = "not a readable bundle: " + plain.error().message;
        return check;
    }
    check.artifacts = plain->artifact_count();
    check.artifact_checks = judge_artifacts(*plain, false);
    check.what = "unsigned PyTorch mega-cache bundle (" + std::string(to_string(plain->form)) +
                 " form), " + plural(check.artifacts, "artifact");
    if (trusted) {
        check.problem = "not signed: a plain PyTorch bundle carries no signature to check";
    }
    return check;
}

// A .pt2 archive, an OnDiskCache value or an InMemoryCache file on its own:
// the checks its kind allows without its dir, and the verdict of its
// pickles or sources.
int run_verify_standalone(const VerifyOptions& options, const cachedir::StandaloneFile& file) {
    if (!options.trust.empty()) {
        return report("--trust checks a signed bundle file; " + options.path + " is a " +
                      std::string(cachedir::to_string(file.entry.kind)));
    }
    ProgressLine progress("checking " + options.path, options.json);
    auto verified = cachedir::verify_standalone_file(file, progress.callback());
    progress.clear();
    if (!verified) {
        return report_failure(progress, verified.error(), "verify stopped");
    }
    const cachedir::VerifyReport& found = *verified;
    const bundle::ArtifactCheck check = bundle::judge_standalone_file(file);
    const bool clean_code = check.verdict != safety::Verdict::CodeWithFindings;
    if (options.json) {
        Json code = {{"path", text(options.path)}};
        add_check_json(check, code);
        print_json({{"file", text(options.path)},
                    {"kind", cachedir::to_string(file.entry.kind)},
                    {"clean", found.clean()},
                    {"problems", problems_json(found.problems)},
                    {"code_clean", clean_code},
                    {"code", Json::array({std::move(code)})}});
    } else {
        if (!clean_code) {
            std::printf("%s: %s\n", options.path.c_str(),
                        std::string(safety::to_string(check.verdict)).c_str());
            print_check_details(check);
        }
        for (const auto& problem : found.problems) {
            std::printf("%s: %s: %s\n", problem.path.c_str(),
                        std::string(cachedir::to_string(problem.kind)).c_str(),
                        problem.message.c_str());
        }
        std::fprintf(stderr, "%s: %s, %zu problem%s; %s\n", options.path.c_str(),
                     std::string(cachedir::to_string(file.entry.kind)).c_str(),
                     found.problems.size(), found.problems.size() == 1 ? "" : "s",
                     verdict_summary({&check}).c_str());
        if (const auto* archive = std::get_if<pt2::Archive>(&file.content)) {
            std::size_t libraries = 0;
            for (const auto& model : archive->models) {
                libraries += model.library ? 1 : 0;
            }
            std::fprintf(stderr, "%zu members, every crc read%s\n", archive->members.size(),
                         libraries > 0 ? "; the .so files are compiled code no audit reads: "
                                         "only a signature you trust says who made them"
                                       : "");
        }
    }
    return found.clean() && clean_code ? kExitOk : kExitProblems;
}

int run_verify_bundle(const VerifyOptions& options) {
    std::optional<bundle::PublicKey> trusted;
    if (!options.trust.empty()) {
        auto key = bundle::load_public_key(options.trust);
        if (!key) {
            return report(key.error());
        }
        trusted = *key;
    }
    auto file = MappedFile::open(options.path);
    if (!file) {
        return report(file.error());
    }
    const std::string_view bytes = (*file)->bytes();
    // A pickle may be a cache file (an InMemoryCache's dict) rather than a
    // bundle: one that decodes as neither is a bundle that failed its check.
    if (!bundle::looks_signed(bytes) && !bundle::decode_mega_cache(bytes)) {
        auto standalone = cachedir::load_standalone_file(options.path);
        if (standalone) {
            return run_verify_standalone(options, *standalone);
        }
        if (!bundle::looks_like_mega_cache(bytes) || cachedir::looks_like_precompile(bytes)) {
            if (standalone.error().kind != ErrorKind::InvalidArgument) {
                return report(standalone.error()); // a cache file PyTorch would fail on
            }
            // Wrong input, not a bundle that failed its check.
            return report(bundle::decode_mega_cache(bytes).error().at(options.path));
        }
    }
    const BundleCheck check = check_bundle(bytes, *file, trusted);
    std::vector<const bundle::ArtifactCheck*> judged;
    std::size_t refused_code = 0;
    for (const auto& artifact : check.artifact_checks) {
        judged.push_back(&artifact);
        refused_code += artifact.consent == safety::CodeConsent::Refused ? 1 : 0;
    }
    // Code with findings that no trusted signature lets in fails the check.
    const bool ok = check.problem.empty() && refused_code == 0;
    if (options.json) {
        Json verdicts = Json::array();
        for (const auto& artifact : check.artifact_checks) {
            Json json = Json::object();
            add_check_json(artifact, json);
            verdicts.push_back(std::move(json));
        }
        print_json({{"file", text(options.path)},
                    {"ok", ok},
                    {"signed", check.is_signed},
                    {"signature_verified", check.verified},
                    {"signer", check.signer ? Json(*check.signer) : Json(nullptr)},
                    {"trusted", trusted ? Json(trusted->fingerprint()) : Json(nullptr)},
                    {"artifacts", check.artifacts},
                    {"verdicts", verdicts},
                    {"problem", check.problem.empty() ? Json(nullptr) : text(check.problem)}});
    } else {
        if (!check.problem.empty()) {
            std::printf("%s: FAILED: %s\n", options.path.c_str(), check.problem.c_str());
        } else {
            std::printf("%s: %s%s\n", options.path.c_str(),
                        check.verified ? "signature verified, every artifact matches the manifest: "
                                       : "crc and structure ok: ",
                        check.what.c_str());
        }
        for (const auto& artifact : check.artifact_checks) {
            if (artifact.verdict == safety::Verdict::CodeWithFindings) {
                print_check_details(artifact);
            }
        }
        if (!judged.empty()) {
            std::printf("%s%s\n", verdict_summary(judged).c_str(),
                        refused_code > 0 ? " (code with findings fails verify: read them, then "
                                           "import with --allow-code)"
                                         : "");
        }
    }
    return ok ? kExitOk : kExitProblems;
}

int run_verify(const VerifyOptions& options) {
    std::error_code error;
    if (!std::filesystem::is_directory(options.path, error)) {
        return run_verify_bundle(options);
    }
    if (!options.trust.empty()) {
        return report("--trust checks a signed bundle file; " + options.path + " is a directory");
    }
    if (const auto location = serving_location_of(options.path)) {
        return verify_serving(*location, options.json);
    }
    auto scan = cachedir::scan_cache_dir(options.path);
    if (!scan) {
        return report(scan.error());
    }
    const cachedir::VerifyReport report = cachedir::verify_cache_dir(*scan);
    ProgressLine progress("auditing the code in " + options.path, options.json);
    auto verdicts = bundle::judge_cache_dir(*scan, progress.callback());
    progress.clear();
    if (!verdicts) {
        return report_failure(progress, verdicts.error(), "verify stopped");
    }
    // Code with findings fails verify (a file that does not read is already
    // one of the problems above).
    const bool clean_code = code_clean(*verdicts);
    std::vector<const bundle::ArtifactCheck*> checks;
    for (const auto& file : *verdicts) {
        checks.push_back(&file.check);
    }
    if (options.json) {
        print_json({{"root", scan->root.string()},
                    {"clean", report.clean()},
                    {"entries_checked", report.entries_checked},
                    {"names_verified", report.names_verified},
                    {"names_not_content_addressed", report.names_not_content_addressed},
                    {"problems", problems_json(report.problems)},
                    {"warnings", problems_json(report.warnings)},
                    {"code_clean", clean_code},
                    {"code", verdicts_json(*verdicts)}});
    } else {
        print_verify_findings(*verdicts, report);
        std::fprintf(stderr, "%s checked, %s verified, %s",
                     plural(report.entries_checked, "entry").c_str(),
                     plural(report.names_verified, "name").c_str(),
                     plural(report.problems.size(), "problem").c_str());
        if (!report.warnings.empty()) {
            std::fprintf(stderr, ", %s", plural(report.warnings.size(), "warning").c_str());
        }
        std::fprintf(stderr, "\n%s PyTorch would unpickle, import or compile: %s\n",
                     plural(verdicts->size(), "file").c_str(), verdict_summary(checks).c_str());
    }
    return report.clean() && clean_code ? kExitOk : kExitProblems;
}

} // namespace

void add_verify_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<VerifyOptions>();
    auto* command = app.add_subcommand(
        "verify",
        "Check a cache dir: content-addressed names match their bytes, every entry parses, "
        "links resolve (AOT -> fxgraph, best_config -> Triton kernel), no half-written temp "
        "files. Prints one line per problem (path: problem: details) and exits 1 if any. "
        "Warnings (an empty key dir, which PyTorch reads as a miss) are listed too, "
        "marked (warning), and do not fail verify. Every pickle, module and C++ source "
        "PyTorch would unpickle, import or compile also gets the verdict an import would give "
        "it (data only, Inductor code, code with findings, unreadable): code with findings "
        "is listed with each finding's id, file, line and text and fails verify.\n"
        "Or check a bundle file: a signed cachelens bundle against the public key given with "
        "--trust (the signature over its manifest, then every artifact against the manifest: "
        "a failure names the artifact), a plain PyTorch bundle by its crc and structure; its "
        "artifacts get the verdicts `import` would give them. Exit 0 when it checks out, 1 "
        "when it does not (also: a signed bundle without --trust, an unsigned one with it, "
        "code with findings that no verified signature lets in), 2 on an unreadable file or "
        "key.");
    command->add_option("PATH", options->path, "the cache dir, or a bundle file")->required();
    command->add_option("--trust", options->trust,
                        "a bundle file only: the signer's public key (PEM, from cachelens "
                        "keygen); the bundle must be signed by it");
    command->add_flag("--json", options->json,
                      "print {root, clean, entries_checked, names_verified, "
                      "names_not_content_addressed, problems: [{path, problem, message}], "
                      "warnings: [{path, problem, message}], code_clean, code: [{path, "
                      "verdict, consent, code, findings: [{id, rule, file, line, text, why}], "
                      "problems}]}; for a bundle file {file, ok, signed, "
                      "signature_verified, signer, trusted, "
                      "artifacts, verdicts: [{verdict, consent, code, findings}], problem}");
    command->callback([options, &exit_code] { exit_code = run_verify(*options); });
}

} // namespace cachelens::cli
