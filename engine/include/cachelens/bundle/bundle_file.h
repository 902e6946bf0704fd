#pragma once

// A bundle file as the user hands it over: PyTorch's mega-cache bytes, or a
// signed cachelens bundle wrapping them (signed_bundle.h). Everything that
// reads a bundle from disk (import, bundle ls, the GUI) opens it here, so a
// signature is checked the same way everywhere.

#include <cachelens/bundle/mega_cache.h>
#include <cachelens/bundle/signed_bundle.h>
#include <cachelens/core/error.h>

#include <cstdint>
#include <filesystem>
#include <optional>

namespace cachelens::bundle {

class PublicKey;

struct BundleFile {
    std::filesystem::path path;
    std::uint64_t size = 0; // of the file
    MegaBundle bundle;
    std::optional<Manifest> manifest; // set for a signed bundle
    bool signature_verified = false;  // against the key the caller required
};

// Decodes `file`. With `required_signer`, anything but a signed bundle whose
// signature verifies with that key is an error; without it, a signed
// bundle's digests are still checked against its manifest. Errors name the
// file.
Result<BundleFile> open_bundle_file(const std::filesystem::path& file,
                                    const PublicKey* required_signer = nullptr);

} // namespace cachelens::bundle
