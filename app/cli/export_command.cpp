// `cachelens export DIR [KEY...] -o FILE`: chosen entries (or a whole cache
// dir) as a bundle PyTorch's load_cache_artifacts() loads, optionally signed.

#include "bundle_json.h"
#include "commands.h"
#include "output.h"
#include "progress_line.h"
#include "write_target.h"

#include <cachelens/bundle/export.h>
#include <cachelens/core/format.h>

#include <cstdio>

namespace cachelens::cli {

namespace {

struct ExportOptions {
    std::string dir;
    std::vector<std::string> keys;
    std::string output;
    std::string sign;
    bool json = false;
};

int run_export(const ExportOptions& options) {
    ProgressLine progress("exporting " + options.dir, options.json);
    const bundle::ExportFileRequest request{
        .keys = options.keys,
        .file = options.output,
        .signing_key = options.sign.empty() ? std::nullopt
                                            : std::optional<std::filesystem::path>(options.sign)};
    auto exported = bundle::export_bundle_file(
        options.dir, request, [&progress, &options](const Progress& report) {
            if (report.stage == ProgressStage::Writing && report.done == 0) {
                progress.set_label("exporting to " + options.output);
            }
            return progress(report);
        });
    progress.clear();
    if (!exported) {
        return report_failure(progress, exported.error(), "export stopped; nothing was written");
    }
    if (options.json) {
        Json notes = Json::array();
        for (const auto& note : exported->notes) {
            notes.push_back(text(note));
        }
        print_json({{"file", text(options.output)},
                    {"target", text(target_path(options.output))},
                    {"size", exported->size},
                    {"sha256", exported->sha256},
                    {"signed_by", exported->signer ? Json(*exported->signer) : Json(nullptr)},
                    {"artifacts", artifacts_json(exported->bundle)},
                    {"notes", notes}});
        return kExitOk;
    }
    std::printf("%s: %s (", target_path(options.output).c_str(),
                plural(exported->bundle.artifact_count(), "artifact").c_str());
    const char* separator = "";
    for (const auto& section : exported->bundle.sections) {
        std::printf("%s%zu %s", separator, section.artifacts.size(), section.type.c_str());
        separator = ", ";
    }
    std::printf("), %s%s\n", format_bytes(exported->size).c_str(),
                exported->signer ? (", signed by " + *exported->signer).c_str() : "");
    for (const auto& note : exported->notes) {
        std::printf("note: %s\n", note.c_str());
    }
    return kExitOk;
}

} // namespace

void add_export_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<ExportOptions>();
    auto* command = app.add_subcommand(
        "export",
        "Write a bundle PyTorch's torch.compiler.load_cache_artifacts() loads: the FX graph "
        "(f…) and AOTAutograd (a…) entries given, with the AOT entries made of those graphs, "
        "the graphs those AOT entries are made of, and the best_configs of their kernels; "
        "without keys, the whole cache dir (key dirs without entries are skipped with a note; a "
        "named key without entries is an error). A damaged content-addressed entry is refused. "
        "The file is replaced atomically.");
    command->add_option("DIR", options->dir, "the cache dir")->required();
    command->add_option("KEY", options->keys, "FX graph or AOTAutograd keys (default: all)");
    command->add_option("-o,--output", options->output, "the bundle file to write")->required();
    command->add_option("--sign", options->sign,
                        "a private key (cachelens keygen): write a signed cachelens bundle "
                        "instead (manifest + Ed25519 signature around the same bundle)");
    command->add_flag("--json", options->json,
                      "print {file, target (file, absolute), size, sha256, signed_by, artifacts: "
                      "[{type, key, size, sha256}], notes}");
    command->callback([options, &exit_code] { exit_code = run_export(*options); });
}

} // namespace cachelens::cli
