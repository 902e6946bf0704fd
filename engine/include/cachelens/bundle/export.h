#pragma once

// Exporting from a cache dir to a mega-cache bundle that PyTorch's
// torch.compiler.load_cache_artifacts() loads: the inverse of import.
//
// With keys, the bundle holds the chosen FX graph entries ("f…" keys) and
// AOTAutograd entries ("a…" keys), closed over their links: an AOT entry
// brings the FX graphs it is made of, an FX graph brings the AOT entries
// made of it, and every FX graph brings the best_configs of its kernels.
// Without keys it holds the whole dir: every FX graph and AOT entry, every
// best_config and dynamo profile. Sections come in PyTorch's order
// (inductor, autotune, aot_autograd, pgo). A content-addressed file whose
// name is not the hash of its bytes is refused: a damaged entry would
// otherwise travel.

#include <cachelens/bundle/mega_cache.h>
#include <cachelens/core/error.h>
#include <cachelens/core/progress.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cachelens::bundle {

struct ExportRequest {
    std::vector<std::string> keys; // FX and AOT keys; empty: everything
};

struct ExportResult {
    MegaBundle bundle;
    // What the bundle lacks and why: a best_config an FX graph names but the
    // dir does not hold, ...
    std::vector<std::string> notes;
    // The file each artifact was read from, relative to the cache dir (with
    // '/'): sources[s][i] for bundle.sections[s].artifacts[i].
    std::vector<std::vector<std::string>> sources;
};

// `progress` hears the Reading stage: each file read into the bundle (how
// many there will be is known at the end); a stop is a Cancelled error.
Result<ExportResult> export_bundle(const std::filesystem::path& cache_dir,
                                   const ExportRequest& request = {},
                                   const ProgressFn& progress = {});

// `cachelens export DIR [KEY...] -o FILE [--sign KEY]`, the one pipeline the
// CLI and the GUI run: export_bundle, encode, sign, replace the file.
struct ExportFileRequest {
    std::vector<std::string> keys{}; // as ExportRequest::keys
    std::filesystem::path file{};    // the bundle file to write (replaced atomically)
    // A private key file (load_private_key) to sign with: a signed cachelens
    // bundle (signed_bundle.h); nullopt: a plain PyTorch bundle.
    std::optional<std::filesystem::path> signing_key{};
};

struct ExportedFile {
    MegaBundle bundle;              // what the file holds (inside the signed container, if signed)
    std::vector<std::string> notes; // export_bundle's
    std::uint64_t size = 0;         // of the file written
    std::string sha256;             // hex, of the file written
    std::optional<std::string> signer; // the signing key's fingerprint
};

// The key is loaded first (a bad one fails before anything is read); a
// bundle without artifacts is a NotFound error ("nothing to export: no
// entries"). `progress` hears export_bundle's Reading stage, then Writing:
// 0 of 1 file before the write, the last point where a stop is heard (a
// Cancelled error; the file is left as it was), and 1 of 1 after it. The one
// write is not stopped half way: the file is there whole or not changed.
Result<ExportedFile> export_bundle_file(const std::filesystem::path& cache_dir,
                                        const ExportFileRequest& request,
                                        const ProgressFn& progress = {});

} // namespace cachelens::bundle
