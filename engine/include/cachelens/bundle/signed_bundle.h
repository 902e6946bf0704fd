#pragma once

// A signed cachelens bundle: PyTorch's mega-cache bundle, unchanged, behind
// a manifest that lists what it holds and an Ed25519 signature of that
// manifest. Whoever trusts the signer's public key can check, before
// importing anything, that every artifact is the one the signer exported.
//
// Layout (integers are u64 big-endian):
//
//   "CACHELENS-SIGNED-BUNDLE\n"   24 bytes of magic
//   manifest length, manifest     JSON, UTF-8
//   signature length, signature   64 bytes: Ed25519 over the manifest bytes
//   payload                       the mega-cache bundle, to the end of the file
//
// The manifest:
//
//   {"format": "cachelens-signed-bundle", "version": 1,
//    "created": "2026-11-22T21:29:00Z",
//    "signer": {"fingerprint": sha256 hex of the raw public key},
//    "payload": {"size": N, "sha256": hex},
//    "source": {"gpu", "torch_version", "triton_version", "cuda_version"},
//    "artifacts": [{"type", "key", "size", "sha256"}, ...]}
//
// Source facts are strings or null; artifacts are in bundle order, each
// with the sha256 (hex) of its content. The signature covers the manifest
// and the manifest covers every payload byte (the whole payload's digest,
// and each artifact's), so one changed byte anywhere fails the check: in
// the magic or a length, with what is wrong at which offset; in the
// manifest or the signature, as a signature that does not verify; in the
// payload, naming the artifact it falls in ("artifact 3 (autotune KEY):
// sha256 X, the manifest says Y"; artifacts are numbered from 1), or the
// payload's crc or version field.

#include <cachelens/bundle/mega_cache.h>
#include <cachelens/bundle/signing.h>
#include <cachelens/cachedir/fingerprint.h>
#include <cachelens/core/error.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::bundle {

inline constexpr std::string_view kSignedBundleMagic = "CACHELENS-SIGNED-BUNDLE\n";

// The machine the bundle's FX graphs were compiled on: their fingerprint
// (cachedir/fingerprint.h: the cache-key debug lines' system_info and
// torch_version, the Triton target of their kernels, their devices) and the
// repro header of their runnable graph ("# torch version: ..."); the first FX
// entry that has a fact gives it, devices and targets are those of all.
struct SourceFacts {
    std::optional<std::string> gpu;            // "NVIDIA H100 80GB HBM3"
    std::optional<std::string> torch_version;  // "2.11.0+cu130"
    std::optional<std::string> triton_version; // "3.6.0"
    std::optional<std::string> cuda_version;   // "13.0"
    std::optional<std::string> torch_build;    // the hash of the keys' torch_version line
    std::optional<std::string> system_hash;    // system_info[hash]
    std::vector<std::string> device_types;     // "cuda", sorted
    std::vector<std::string> triton_targets;   // "cuda 90", sorted

    // As a fingerprint (what preflight compares; describe() for people).
    cachedir::Fingerprint fingerprint() const;
};

// Decodes each `inductor` artifact (as data: nothing is run); one that does
// not decode gives no facts.
SourceFacts source_facts(const MegaBundle& bundle);

struct ManifestArtifact {
    std::string type;
    std::string key;
    std::uint64_t size = 0;
    std::string sha256; // hex
};

struct Manifest {
    std::string created;            // ISO 8601 UTC
    std::string signer_fingerprint; // hex sha256 of the raw public key
    std::uint64_t payload_size = 0;
    std::string payload_sha256; // hex
    SourceFacts source;
    std::vector<ManifestArtifact> artifacts;
};

// The magic only.
bool looks_signed(std::string_view bytes);

// Decodes the payload first (a damaged one is refused), then returns the
// whole signed container, checked as verify_signed_bundle would check it.
// The payload is `mega_bytes` unchanged when it is in the current form or
// the one without the crc; the older forms are re-encoded in the current one.
Result<std::string> sign_bundle(std::string_view mega_bytes, const PrivateKey& key);

struct SignedBundle {
    Manifest manifest;
    std::string_view payload; // inside the bytes given
    MegaBundle bundle;
    bool signature_verified = false;
};

// The structure only, the signature NOT checked (for listing and browsing);
// the payload is still checked against the manifest, artifact by artifact.
// `owner`, when given, keeps `bytes` alive: the bundle's contents are slices
// of them (MegaDecodeOptions::owner), else copies.
Result<SignedBundle> read_signed_bundle(std::string_view bytes,
                                        std::shared_ptr<const void> owner = {});

// Everything: the framing, the signature over the manifest with `trusted`
// (another signer's bundle is refused naming both fingerprints), the
// manifest, then each payload artifact against the manifest, the payload's
// crc and its whole digest. `owner` as for read_signed_bundle.
Result<SignedBundle> verify_signed_bundle(std::string_view bytes, const PublicKey& trusted,
                                          std::shared_ptr<const void> owner = {});

} // namespace cachelens::bundle
