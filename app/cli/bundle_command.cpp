// `cachelens bundle ls FILE`: what a PyTorch mega-cache bundle
// (torch.compiler.save_cache_artifacts()) holds, read without unpickling it;
// for a signed cachelens bundle, also who signed it and where it was made.

#include "bundle_json.h"
#include "commands.h"
#include "import_report.h"
#include "output.h"

#include <cachelens/bundle/bundle_file.h>
#include <cachelens/bundle/code_verdicts.h>
#include <cachelens/bundle/import.h>
#include <cachelens/bundle/mega_cache.h>
#include <cachelens/bundle/signed_bundle.h>
#include <cachelens/core/format.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/hash/sha256.h>
#include <cachelens/pt2/pt2_archive.h>

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

// "NVIDIA H100 80GB HBM3 (sm90), CUDA 13.0, Triton 3.6.0, torch build bhbxfhox, torch
// 2.11.0+cu130; graphs for cuda"
std::string source_line(const bundle::SourceFacts& source) {
    std::string devices;
    for (const auto& device : source.device_types) {
        devices += (devices.empty() ? "" : ", ") + device;
    }
    return source.fingerprint().describe() + (devices.empty() ? "" : " for " + devices);
}

// A .pt2 archive's members, as its central directory lists them, each with
// what its path is for and any problem of its name.
int run_pt2_ls(const BundleLsOptions& options) {
    auto archive = pt2::read_archive(options.file);
    if (!archive) {
        return report(archive.error());
    }
    const auto verdicts = bundle::judge_pt2_archive(*archive);
    const auto verdict_of = [&](const std::string& path) -> const bundle::ArtifactCheck* {
        for (const auto& verdict : verdicts) {
            if (verdict.path == path) {
                return &verdict.check;
            }
        }
        return nullptr;
    };
    if (options.json) {
        Json members = Json::array();
        for (const auto& member : archive->members) {
            Json row = {{"name", text(member.name)}, {"path", text(member.path)},
                        {"size", member.size},       {"compressed_size", member.compressed_size},
                        {"crc", member.crc},         {"method", member.method},
                        {"problems", Json::array()}};
            for (const auto& problem : member.problems) {
                row["problems"].push_back(text(problem));
            }
            if (const auto* check = verdict_of(member.path)) {
                add_check_json(*check, row);
            }
            members.push_back(std::move(row));
        }
        print_json(members);
        return kExitOk;
    }
    std::printf("%s: %s%s, %zu members, %s\n", options.file.c_str(),
                std::string(pt2::to_string(archive->layout)).c_str(),
                archive->root.empty() ? "" : (", root " + archive->root + "/").c_str(),
                archive->members.size(), format_bytes(archive->file_size).c_str());
    for (const auto& model : archive->models) {
        std::printf("model %s: %s\n", model.name.c_str(),
                    model.device_key().empty() ? "no device recorded" : model.device_key().c_str());
    }
    std::vector<const bundle::ArtifactCheck*> judged;
    for (const auto& member : archive->members) {
        std::printf("%10s  %08x  %s\n", format_bytes(member.size).c_str(), member.crc,
                    member.name.c_str());
        for (const auto& problem : member.problems) {
            std::printf("%22s%s\n", "", problem.c_str());
        }
        if (const auto* check = verdict_of(member.path)) {
            judged.push_back(check);
            print_check_details(*check);
        }
    }
    for (const auto& problem : archive->problems) {
        std::printf("problem: %s\n", problem.c_str());
    }
    if (!judged.empty()) {
        std::printf("%s (C++ sources; the .so is compiled code no audit reads)\n",
                    verdict_summary(judged).c_str());
    }
    return kExitOk;
}

int run_bundle_ls(const BundleLsOptions& options) {
    if (auto file = MappedFile::open(options.file); file && pt2::looks_like_zip((*file)->bytes())) {
        return run_pt2_ls(options);
    }
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

    std::printf("%s: mega-cache bundle (%s form, version %llu), %s, %s\n", options.file.c_str(),
                std::string(to_string(bundle->form)).c_str(),
                static_cast<unsigned long long>(bundle->version),
                plural(bundle->artifact_count(), "artifact").c_str(),
                format_bytes(file->size).c_str());
    // Signed: what the signer recorded; else read from the graphs themselves.
    std::printf("compiled on %s\n",
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
    ls->add_option("FILE", options->file,
                   "the bundle file; or a .pt2 (an AOTInductor package, an exported program): "
                   "its members (size, crc, name, any unsafe name) and the verdicts of its C++ "
                   "sources")
        ->required();
    ls->add_flag("--json", options->json,
                 "print [{type, key, size, sha256, verdict, consent, code, findings: [{id, rule, "
                 "file, line, text, why}]}]");
    ls->callback([options, &exit_code] { exit_code = run_bundle_ls(*options); });
}

} // namespace cachelens::cli
