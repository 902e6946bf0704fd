// `cachelens bundle ls FILE`: what a PyTorch mega-cache bundle
// (torch.compiler.save_cache_artifacts()) holds, read without unpickling it.

#include "commands.h"
#include "output.h"

#include <cachelens/bundle/mega_cache.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/hash/sha256.h>

#include <cstdio>

namespace cachelens::cli {

namespace {

struct BundleLsOptions {
    std::string file;
    bool json = false;
};

int run_bundle_ls(const BundleLsOptions& options) {
    auto file = MappedFile::open(options.file);
    if (!file) {
        return report(file.error());
    }
    auto bundle = bundle::decode_mega_cache((*file)->bytes());
    if (!bundle) {
        return report(bundle.error().at(options.file));
    }
    if (options.json) {
        Json artifacts = Json::array();
        for (const auto& section : bundle->sections) {
            for (const auto& artifact : section.artifacts) {
                artifacts.push_back({{"type", text(section.type)},
                                     {"key", text(artifact.key)},
                                     {"size", artifact.content.size()},
                                     {"sha256", hash::sha256_hex(artifact.content)}});
            }
        }
        print_json(artifacts);
        return kExitOk;
    }
    std::printf("%s: mega-cache bundle (%s form, version %llu), %zu artifacts, %s\n",
                options.file.c_str(), std::string(to_string(bundle->form)).c_str(),
                static_cast<unsigned long long>(bundle->version), bundle->artifact_count(),
                format_bytes((*file)->size()).c_str());
    for (const auto& section : bundle->sections) {
        for (const auto& artifact : section.artifacts) {
            std::printf("%-13s %10s  %.12s  %s\n", section.type.c_str(),
                        format_bytes(artifact.content.size()).c_str(),
                        hash::sha256_hex(artifact.content).c_str(), artifact.key.c_str());
        }
    }
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
              "read as data: its crc and every length are checked, nothing is unpickled");
    ls->add_option("FILE", options->file, "the bundle file")->required();
    ls->add_flag("--json", options->json, "print [{type, key, size, sha256}]");
    ls->callback([options, &exit_code] { exit_code = run_bundle_ls(*options); });
}

} // namespace cachelens::cli
