// `cachelens bundle ls FILE`: what a PyTorch mega-cache bundle
// (torch.compiler.save_cache_artifacts()) holds, read without unpickling it;
// for a signed cachelens bundle, also who signed it and where it was made.

#include "bundle_json.h"
#include "commands.h"
#include "import_report.h"
#include "output.h"

#include <cachelens/bundle/bundle_file.h>
#include <cachelens/bundle/import.h>
#include <cachelens/bundle/mega_cache.h>
#include <cachelens/bundle/signed_bundle.h>
#include <cachelens/hash/sha256.h>

#include <cstdio>
#include <optional>

namespace cachelens::cli {

Json artifacts_json(const bundle::MegaBundle& bundle) {
    Json artifacts = Json::array();
    for (const auto& section : bundle.sections) {
        for (const auto& artifact : section.artifacts) {
            artifacts.push_back({{"type", text(section.type)},
                                 {"key", text(artifact.key)},
                                 {"size", artifact.content.size()},
                                 {"sha256", hash::sha256_hex(artifact.content)}});
        }
    }
    return artifacts;
}

namespace {

struct BundleLsOptions {
    std::string file;
    bool json = false;
};

// "NVIDIA H100 80GB HBM3 (cuda 90), CUDA 13.0, Triton 3.6.0, torch build bhbxfhox, torch
// 2.11.0+cu130; graphs for cuda"
std::string source_line(const bundle::SourceFacts& source) {
    std::string devices;
    for (const auto& device : source.device_types) {
        devices += (devices.empty() ? "" : ", ") + device;
    }
    return source.fingerprint().describe() + (devices.empty() ? "" : "; graphs for " + devices);
}

int run_bundle_ls(const BundleLsOptions& options) {
    // The signature is not checked here (that needs the signer's key: cachelens
    // verify --trust); the payload is still checked against the manifest.
    auto file = bundle::open_bundle_file(options.file);
    if (!file) {
        return report(file.error());
    }
    const std::optional<bundle::Manifest>& manifest = file->manifest;
    const bundle::MegaBundle* bundle = &file->bundle;
    // Every artifact's verdict, as `import` would judge it (with no code allowed).
    std::vector<bundle::ArtifactCheck> checks;
    for (const auto& section : bundle->sections) {
        for (const auto& artifact : section.artifacts) {
            checks.push_back(bundle::check_artifact(section.type, artifact.key, artifact.content));
        }
    }
    if (options.json) {
        Json artifacts = artifacts_json(*bundle);
        for (std::size_t i = 0; i < checks.size(); ++i) {
            add_check_json(checks[i], artifacts[i]);
        }
        print_json(artifacts);
        return kExitOk;
    }
    if (manifest) {
        std::printf("%s: signed cachelens bundle, signer %s (signature not checked: cachelens "
                    "verify FILE --trust PUBKEY)\n",
                    options.file.c_str(), manifest->signer_fingerprint.c_str());
        std::printf("created %s\n", manifest->created.c_str());
    }

    std::printf("%s: mega-cache bundle (%s form, version %llu), %zu artifacts, %s\n",
                options.file.c_str(), std::string(to_string(bundle->form)).c_str(),
                static_cast<unsigned long long>(bundle->version), bundle->artifact_count(),
                format_bytes(file->size).c_str());
    // Signed: what the signer recorded; else read from the graphs themselves.
    std::printf("compiled for %s\n",
                source_line(manifest ? manifest->source : bundle::source_facts(*bundle)).c_str());
    std::vector<const bundle::ArtifactCheck*> judged;
    std::size_t index = 0;
    for (const auto& section : bundle->sections) {
        for (const auto& artifact : section.artifacts) {
            const auto& check = checks[index++];
            judged.push_back(&check);
            std::printf("%-13s %10s  %.12s  %s\n", section.type.c_str(),
                        format_bytes(artifact.content.size()).c_str(),
                        hash::sha256_hex(artifact.content).c_str(), artifact.key.c_str());
            print_check_details(check);
        }
    }
    std::printf("%s\n", verdict_summary(judged).c_str());
    return kExitOk;
}

} // namespace

void add_bundle_command(CLI::App& app, int& exit_code) {
    auto* command = app.add_subcommand(
        "bundle", "PyTorch mega-cache bundles (torch.compiler.save_cache_artifacts())");
    command->require_subcommand(1);
    auto options = std::make_shared<BundleLsOptions>();
    auto* ls = command->add_subcommand(
        "ls", "List a bundle's artifacts: type, size, sha256 of the content, key. The bundle is "
              "read as data: its crc and every length are checked, nothing is unpickled. A "
              "signed cachelens bundle also shows its signer, when and where it was made, and "
              "its artifacts are checked against its manifest (the signature is not: cachelens "
              "verify --trust does that). Each artifact shows the verdict `import` would give "
              "it (data only, Inductor code, code with findings, unreadable), the code PyTorch "
              "would run from it and every finding with its id, file, line and text");
    ls->add_option("FILE", options->file, "the bundle file")->required();
    ls->add_flag("--json", options->json,
                 "print [{type, key, size, sha256, verdict, consent, code, findings: [{id, rule, "
                 "file, line, text, why}]}]");
    ls->callback([options, &exit_code] { exit_code = run_bundle_ls(*options); });
}

} // namespace cachelens::cli
