// `cachelens keygen [-o PREFIX]`: an Ed25519 key pair for signed bundles,
// PREFIX.key (private, mode 0600) and PREFIX.pub, never over existing files.

#include "commands.h"
#include "output.h"
#include "write_target.h"

#include <cachelens/bundle/signing.h>

#include <cstdio>

namespace cachelens::cli {

namespace {

struct KeygenOptions {
    std::string prefix = "cachelens-signing";
    bool json = false;
};

int run_keygen(const KeygenOptions& options) {
    const std::string private_file = options.prefix + ".key";
    const std::string public_file = options.prefix + ".pub";
    if (auto written = bundle::write_key_pair(private_file, public_file); !written) {
        return report(written.error());
    }
    auto key = bundle::load_public_key(public_file);
    if (!key) {
        return report(key.error());
    }
    if (options.json) {
        print_json({{"private_key", text(private_file)},
                    {"public_key", text(public_file)},
                    {"target",
                     text(std::filesystem::path(target_path(private_file)).parent_path().string())},
                    {"fingerprint", key->fingerprint()}});
        return kExitOk;
    }
    std::printf("private key  %s  (keep it secret: it signs bundles)\n",
                target_path(private_file).c_str());
    std::printf("public key   %s  (give it to whoever checks them: --trust)\n",
                target_path(public_file).c_str());
    std::printf("fingerprint  %s\n", key->fingerprint().c_str());
    return kExitOk;
}

} // namespace

void add_keygen_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<KeygenOptions>();
    auto* command = app.add_subcommand(
        "keygen", "Make an Ed25519 key pair for signed bundles: PREFIX.key (PKCS#8 PEM, mode "
                  "0600) signs (export --sign), PREFIX.pub (PEM) checks (verify --trust, import "
                  "--require-signature). Existing files are never overwritten; a stop leaves both "
                  "keys, neither, or the public key alone. Exit 2 on an error");
    command->add_option("-o,--output", options->prefix, "the files' path without .key/.pub")
        ->capture_default_str();
    command->add_flag("--json", options->json,
                      "print {private_key, public_key, target (their dir, absolute), fingerprint}");
    command->callback([options, &exit_code] { exit_code = run_keygen(*options); });
}

} // namespace cachelens::cli
