#pragma once

// Carrying one cache dir of a vLLM or SGLang tree to another machine: a
// tar archive compressed with zstd (libarchive), holding a manifest of every
// file's size and sha256 (signed with an Ed25519 key when asked) and the
// files under tree/<hash dir>/. Unpacking checks everything before anything
// lands: every member a plain file the manifest lists, at a path that stays
// in the hash dir, with the bytes the manifest says, the signature when one
// is required, and the code audit `import` runs (code with findings is
// refused unless allowed). The files are staged in a hidden dir inside the
// destination root and renamed into place in one step: a crash leaves the
// hash dir whole or absent.

#include <cachelens/bundle/code_verdicts.h>
#include <cachelens/bundle/signing.h>
#include <cachelens/core/error.h>
#include <cachelens/core/progress.h>
#include <cachelens/safety/verdict.h>
#include <cachelens/serving/serving_tree.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::serving {

struct PackedFile {
    std::string path; // relative to the tree's root, '/'-separated
    std::uint64_t size = 0;
    std::string sha256; // hex
};

struct PackManifest {
    int version = 1;
    std::string stack;    // "vllm", "sglang"
    std::string hash_dir; // relative to the root: "3fbdd5227b", "torch_aot_compile/<sha256>"
    std::string created;  // UTC, ISO 8601
    std::string summary;  // what the tree said of itself when packed
    std::vector<PackedFile> files; // sorted by path
    std::uint64_t bytes() const;
};

// The manifest's JSON text, and its reading back (errors say what is wrong).
std::string manifest_json(const PackManifest& manifest);
Result<PackManifest> parse_manifest(std::string_view json);

inline constexpr std::string_view kManifestMember = "cachelens-pack.json";
inline constexpr std::string_view kSignatureMember = "cachelens-pack.sig";
inline constexpr std::string_view kTreeMember = "tree/";
// Unpack stages files in a core/work_dir.h WorkDir (".cachelens-unpack-...")
// of the destination root.

struct PackResult {
    PackManifest manifest;
    std::uint64_t archive_bytes = 0;
    std::string signer; // the key's fingerprint; empty when unsigned
};

// Packs `dir` of `tree` into `output` (written to a temp file beside it, then
// renamed; an existing file is refused). A symlink or special file in the
// dir is refused, naming it. `progress` hears Reading (files).
Result<PackResult> pack_hash_dir(const ServingTree& tree, const HashDir& dir,
                                 const std::filesystem::path& output,
                                 const bundle::PrivateKey* key = nullptr,
                                 const ProgressFn& progress = {});

struct UnpackOptions {
    std::filesystem::path into; // the torch_compile_cache root to unpack into
    const bundle::PublicKey* require_signature = nullptr;
    bool dry_run = false;    // everything checked, nothing left behind
    safety::CodeTrust trust; // --allow-code ids (a verified signature is added)
    std::uint64_t max_bytes = std::uint64_t{256} << 30;
    std::uint64_t max_files = 2'000'000;
};

struct UnpackReport {
    PackManifest manifest;
    bool is_signed = false;
    bool signature_verified = false;
    std::string signer;                    // fingerprint from the signature, when signed
    std::string destination;               // where the hash dir is (or would be): into/<hash dir>
    std::vector<bundle::FileVerdict> code; // the audit, paths relative to the root
    // Files whose code the audit refuses under the trust given (nothing written then).
    std::vector<std::string> refused;
    bool already_present = false; // the same files were there: nothing to do
    bool written = false;
};

// Errors (nothing written): the archive unreadable or not a cachelens pack,
// a member outside its hash dir or not in the manifest, a symlink or other
// special member, bytes that do not match the manifest, a missing file, a
// signature required and missing or wrong, a different dir already at the
// destination. Findings refused are in the report (written false).
// `progress` hears Writing (bytes staged), then Checking (the audit).
Result<UnpackReport> unpack_archive(const std::filesystem::path& archive,
                                    const UnpackOptions& options, const ProgressFn& progress = {});

} // namespace cachelens::serving
