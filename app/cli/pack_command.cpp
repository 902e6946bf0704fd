// `cachelens pack HASH_DIR -o FILE [--sign KEY]` and `cachelens unpack FILE
// --into ROOT [--require-signature PUB] [--dry-run] [--allow-code ID]`: one
// cache dir of a vLLM or SGLang tree carried to another machine
// (serving/pack.h does the work).

#include "commands.h"
#include "import_report.h"
#include "output.h"
#include "progress_line.h"
#include "serving_output.h"

#include <cachelens/bundle/signing.h>
#include <cachelens/core/format.h>
#include <cachelens/core/text.h>
#include <cachelens/serving/pack.h>
#include <cachelens/serving/piecewise.h>

#include <cstdio>
#include <filesystem>
#include <optional>

namespace cachelens::cli {

namespace {

struct PackOptions {
    std::string dir;
    std::string output;
    std::string sign;
    bool json = false;
};

struct UnpackOptions {
    std::string file;
    std::string into;
    std::string require_signature;
    std::vector<std::string> allow_code;
    bool dry_run = false;
    bool json = false;
};

int run_pack(const PackOptions& options) {
    const auto location = serving_location_of(options.dir);
    if (!location) {
        return report(options.dir + ": not a vLLM or SGLang cache dir (a hash dir of a "
                                    "torch_compile_cache tree)");
    }
    auto tree = serving::read_serving_tree(location->root);
    if (!tree) {
        return report(tree.error());
    }
    auto selection = serving::select_in_tree(*tree, location->relative);
    if (!selection) {
        return report(selection.error());
    }
    if (selection->hash_dir == nullptr || selection->rank != nullptr) {
        return report(options.dir + ": name one hash dir of " + tree->root.string() +
                      " (pack carries whole hash dirs, never half a rank)");
    }
    std::optional<bundle::PrivateKey> key;
    if (!options.sign.empty()) {
        auto loaded = bundle::load_private_key(options.sign);
        if (!loaded) {
            return report(loaded.error());
        }
        key = std::move(*loaded);
    }
    ProgressLine progress("packing " + selection->hash_dir->path, options.json);
    auto packed = serving::pack_hash_dir(*tree, *selection->hash_dir, options.output,
                                         key ? &*key : nullptr, progress.callback());
    progress.clear();
    if (!packed) {
        return report_failure(progress, packed.error(), "pack stopped: nothing written");
    }
    // Where it wrote, absolute, first (as every command that writes says it).
    std::error_code error;
    const std::string target = std::filesystem::absolute(options.output, error).string();
    if (options.json) {
        print_json({{"target", target},
                    {"file", options.output},
                    {"hash_dir", packed->manifest.hash_dir},
                    {"files", packed->manifest.files.size()},
                    {"bytes", packed->manifest.bytes()},
                    {"archive_bytes", packed->archive_bytes},
                    {"signer", packed->signer.empty() ? Json() : Json(packed->signer)}});
        return kExitOk;
    }
    std::printf(
        "%s: %s packed, %s, %s (%s compressed)%s\n", options.output.c_str(),
        packed->manifest.hash_dir.c_str(), plural(packed->manifest.files.size(), "file").c_str(),
        format_bytes(packed->manifest.bytes()).c_str(), format_bytes(packed->archive_bytes).c_str(),
        packed->signer.empty() ? "" : (", signed by " + packed->signer.substr(0, 16)).c_str());
    std::printf("on the other machine: cachelens unpack %s --into "
                "~/.cache/vllm/torch_compile_cache%s\n",
                shell_quote(options.output).c_str(),
                packed->signer.empty() ? "" : " --require-signature PUBKEY");
    return kExitOk;
}

int run_unpack(const UnpackOptions& options) {
    std::optional<bundle::PublicKey> key;
    if (!options.require_signature.empty()) {
        auto loaded = bundle::load_public_key(options.require_signature);
        if (!loaded) {
            return report(loaded.error());
        }
        key = *loaded;
    }
    serving::UnpackOptions unpack{
        .into = options.into,
        .require_signature = key ? &*key : nullptr,
        .dry_run = options.dry_run,
        .trust = {.allowed_ids = options.allow_code, .signed_by_trusted_key = false}};
    ProgressLine progress("unpacking " + options.file, options.json);
    auto unpacked = serving::unpack_archive(options.file, unpack, progress.callback());
    progress.clear();
    if (!unpacked) {
        return report_failure(progress, unpacked.error(), "unpack stopped: nothing written");
    }
    const auto& result = *unpacked;
    // A mistyped --allow-code must not read as "nothing allowed".
    for (const auto& id : options.allow_code) {
        const bool known = std::ranges::any_of(result.code, [&](const bundle::FileVerdict& file) {
            return std::ranges::any_of(file.check.findings, [&](const safety::Finding& finding) {
                return finding.id == id;
            });
        });
        if (!known) {
            return report("--allow-code " + id + ": no finding of this pack has that id");
        }
    }
    std::vector<const bundle::ArtifactCheck*> checks;
    for (const auto& file : result.code) {
        checks.push_back(&file.check);
    }
    const int status = result.refused.empty() ? kExitOk : kExitProblems;
    if (options.json) {
        Json code = Json::array();
        for (const auto& file : result.code) {
            Json item = {{"path", text(file.path)}};
            add_check_json(file.check, item);
            code.push_back(std::move(item));
        }
        print_json({{"target", result.destination},
                    {"file", options.file},
                    {"hash_dir", result.manifest.hash_dir},
                    {"destination", result.destination},
                    {"stack", result.manifest.stack},
                    {"files", result.manifest.files.size()},
                    {"bytes", result.manifest.bytes()},
                    {"signed", result.is_signed},
                    {"signature_verified", result.signature_verified},
                    {"dry_run", options.dry_run},
                    {"already_present", result.already_present},
                    {"written", result.written},
                    {"refused", result.refused},
                    {"code", std::move(code)}});
        return status;
    }
    if (result.already_present) {
        std::printf("%s is already there, byte for byte: nothing to do\n",
                    result.destination.c_str());
    } else if (!result.refused.empty()) {
        std::printf("%s: refused: %s code the audit does not pass; nothing written\n",
                    result.destination.c_str(),
                    (plural(result.refused.size(), "file") +
                     (result.refused.size() == 1 ? " holds" : " hold"))
                        .c_str());
    } else if (result.written) {
        std::printf("unpacked %s: %s, %s\n", result.destination.c_str(),
                    plural(result.manifest.files.size(), "file").c_str(),
                    format_bytes(result.manifest.bytes()).c_str());
    } else {
        std::printf("would unpack %s: %s, %s; every check passed (dry run: nothing "
                    "written)\n",
                    result.destination.c_str(),
                    plural(result.manifest.files.size(), "file").c_str(),
                    format_bytes(result.manifest.bytes()).c_str());
    }
    std::printf("packed %s from %s\n", result.manifest.created.c_str(),
                result.manifest.summary.c_str());
    std::printf("%s\n", !result.is_signed ? "unsigned"
                        : result.signature_verified
                            ? ("signature verified: " + result.signer.substr(0, 16)).c_str()
                            : "signed (not checked: give --require-signature PUBKEY)");
    for (const auto& file : result.code) {
        if (std::ranges::find(result.refused, file.path) != result.refused.end()) {
            std::printf("%s:\n", file.path.c_str());
            print_check_details(file.check);
        }
    }
    if (!result.refused.empty()) {
        std::printf("to let a finding in, name its id: --allow-code ID (after reading the code)\n");
    }
    std::fprintf(stderr, "%s PyTorch would unpickle, import or compile: %s\n",
                 plural(result.code.size(), "file").c_str(), verdict_summary(checks).c_str());
    return status;
}

} // namespace

void add_pack_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<PackOptions>();
    auto* command = app.add_subcommand(
        "pack", "Pack one cache dir of a vLLM or SGLang torch_compile_cache tree (a hash dir, "
                "or torch_aot_compile/<hash>) into a zstd-compressed tar with a manifest of "
                "every file's size and sha256, signed with --sign. Written to a temp file and "
                "renamed: an existing FILE is refused, and a failure leaves nothing. A symlink "
                "in the dir is refused.");
    command->add_option("HASH_DIR", options->dir, "the hash dir to pack")->required();
    command->add_option("-o,--output", options->output, "the archive to write")->required();
    command->add_option("--sign", options->sign,
                        "sign the manifest with this Ed25519 private key (cachelens keygen)");
    command->add_flag("--json", options->json,
                      "print {target (the archive, absolute), file, hash_dir, files, bytes, "
                      "archive_bytes, signer}");
    command->callback([options, &exit_code] { exit_code = run_pack(*options); });
}

void add_unpack_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<UnpackOptions>();
    auto* command = app.add_subcommand(
        "unpack",
        "Unpack a cachelens pack into a torch_compile_cache root. Before anything lands: "
        "every member must be a plain file the manifest lists, inside its hash dir, with the "
        "manifest's bytes (sha256); the signature must verify when --require-signature is "
        "given; every pickle, module and artifact is audited as `import` audits it, and code "
        "with findings (or that does not read) is refused unless each finding's id is given "
        "with --allow-code (a verified signature lets findings in). The files are staged in a "
        "hidden dir inside ROOT and renamed into place at once: a crash leaves the hash dir "
        "whole or absent. Exit 0 unpacked (or already there), 1 refused by the audit, 2 an "
        "archive that fails a check (nothing written).");
    command->add_option("FILE", options->file, "the archive cachelens pack wrote")->required();
    command
        ->add_option("--into", options->into, "the torch_compile_cache root (created when missing)")
        ->required();
    command->add_option("--require-signature", options->require_signature,
                        "the signer's public key: an unsigned or otherwise signed pack is refused");
    command->add_option("--allow-code", options->allow_code,
                        "let in code with this finding id (repeat for each)");
    command->add_flag("--dry-run", options->dry_run, "check everything, write nothing");
    command->add_flag("--json", options->json,
                      "print {target (the hash dir, absolute), file, hash_dir, destination, stack, "
                      "files, bytes, signed, "
                      "signature_verified, dry_run, already_present, written, refused, code: "
                      "[{path, verdict, consent, code, findings}]}");
    command->callback([options, &exit_code] { exit_code = run_unpack(*options); });
}

} // namespace cachelens::cli
