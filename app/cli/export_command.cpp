// `cachelens export DIR [KEY...] -o FILE`: chosen entries (or a whole cache
// dir) as a bundle PyTorch's load_cache_artifacts() loads, optionally signed.

#include "bundle_json.h"
#include "commands.h"
#include "output.h"
#include "progress_line.h"
#include "write_target.h"

#include <cachelens/bundle/export.h>
#include <cachelens/bundle/signed_bundle.h>
#include <cachelens/bundle/signing.h>
#include <cachelens/core/dir_handle.h>
#include <cachelens/core/format.h>
#include <cachelens/hash/sha256.h>

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

// Replaces `file` atomically: a reader (PyTorch, a copy) never sees half of it.
Result<void> write_whole(const std::filesystem::path& file, std::string_view bytes) {
    const auto parent = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
    auto dir = DirHandle::open_root(parent);
    if (!dir) {
        return std::unexpected(dir.error());
    }
    auto written = dir->write_file(file.filename().string(), bytes, DirHandle::WriteMode::Replace);
    if (!written) {
        return std::unexpected(written.error());
    }
    return {};
}

int run_export(const ExportOptions& options) {
    std::optional<bundle::PrivateKey> key;
    if (!options.sign.empty()) {
        auto loaded = bundle::load_private_key(options.sign);
        if (!loaded) {
            return report(loaded.error());
        }
        key = std::move(*loaded);
    }
    ProgressLine progress("exporting " + options.dir, options.json);
    auto exported = bundle::export_bundle(options.dir, {.keys = options.keys}, progress.callback());
    progress.clear();
    if (!exported) {
        if (exported.error().kind == ErrorKind::Cancelled) {
            return report_stopped(progress, "export stopped; nothing was written");
        }
        return report(exported.error());
    }
    if (exported->bundle.artifact_count() == 0) {
        return report(Error{ErrorKind::NotFound, "nothing to export: no entries", options.dir});
    }
    std::string bytes = bundle::encode_mega_cache(exported->bundle);
    if (key) {
        auto signed_bytes = bundle::sign_bundle(bytes, *key);
        if (!signed_bytes) {
            return report(signed_bytes.error());
        }
        bytes = std::move(*signed_bytes);
    }
    if (progress.interrupted()) {
        return report_stopped(progress, "export stopped; nothing was written");
    }
    // One atomic write, not stopped half way: the file is there whole or not at all.
    progress.set_label("exporting to " + options.output);
    progress({.stage = ProgressStage::Writing,
              .unit = ProgressUnit::Files,
              .done = 0,
              .total = 1,
              .bytes = 0,
              .item = options.output});
    auto written = write_whole(options.output, bytes);
    progress.clear();
    if (!written) {
        return report(written.error());
    }
    if (options.json) {
        Json notes = Json::array();
        for (const auto& note : exported->notes) {
            notes.push_back(text(note));
        }
        print_json({{"file", text(options.output)},
                    {"target", text(target_path(options.output))},
                    {"size", bytes.size()},
                    {"sha256", hash::sha256_hex(bytes)},
                    {"signed_by", key ? Json(key->public_key().fingerprint()) : Json(nullptr)},
                    {"artifacts", artifacts_json(exported->bundle)},
                    {"notes", notes}});
        return kExitOk;
    }
    std::printf("%s: %zu artifacts (", target_path(options.output).c_str(),
                exported->bundle.artifact_count());
    const char* separator = "";
    for (const auto& section : exported->bundle.sections) {
        std::printf("%s%zu %s", separator, section.artifacts.size(), section.type.c_str());
        separator = ", ";
    }
    std::printf("), %s%s\n", format_bytes(bytes.size()).c_str(),
                key ? (", signed by " + key->public_key().fingerprint()).c_str() : "");
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
