#include <cachelens/bundle/bundle_file.h>
#include <cachelens/bundle/signing.h>
#include <cachelens/core/mapped_file.h>

namespace cachelens::bundle {

Result<BundleFile> open_bundle_file(const std::filesystem::path& file,
                                    const PublicKey* required_signer) {
    auto mapped = MappedFile::open(file);
    if (!mapped) {
        return std::unexpected(mapped.error());
    }
    const std::string_view bytes = (*mapped)->bytes();
    BundleFile result;
    result.path = file;
    result.size = bytes.size();
    if (!looks_signed(bytes)) {
        if (required_signer != nullptr) {
            return fail(ErrorKind::InvalidArgument,
                        "not a signed bundle, and a signature by " +
                            required_signer->fingerprint() + " is required",
                        file.string());
        }
        // The contents stay slices of the mapped file: a bundle is never held twice.
        auto bundle = decode_mega_cache(bytes, {.check_crc = true, .owner = *mapped});
        if (!bundle) {
            return std::unexpected(std::move(bundle.error()).at(file.string()));
        }
        result.bundle = std::move(*bundle);
        return result;
    }
    auto signed_bundle = required_signer != nullptr
                             ? verify_signed_bundle(bytes, *required_signer, *mapped)
                             : read_signed_bundle(bytes, *mapped);
    if (!signed_bundle) {
        return std::unexpected(std::move(signed_bundle.error()).at(file.string()));
    }
    result.bundle = std::move(signed_bundle->bundle);
    result.manifest = std::move(signed_bundle->manifest);
    result.signature_verified = signed_bundle->signature_verified;
    return result;
}

} // namespace cachelens::bundle
