// libFuzzer target: reading a signed cachelens bundle without its key (what
// `bundle ls` does). Any bytes give a bundle or an Error, never a crash or an
// allocation past the input's size; a bundle that reads is one whose payload
// matches its manifest, artifact by artifact, so both must agree here too.
// Verifying against a key that signed none of them must always fail.

#include <cachelens/bundle/signed_bundle.h>
#include <cachelens/hash/sha256.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens::bundle;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    auto read = read_signed_bundle(bytes);
    if (!read) {
        return 0;
    }
    std::size_t index = 0;
    for (const auto& section : read->bundle.sections) {
        for (const auto& artifact : section.artifacts) {
            if (index >= read->manifest.artifacts.size()) {
                __builtin_trap();
            }
            const ManifestArtifact& listed = read->manifest.artifacts[index++];
            if (listed.type != section.type || listed.key != artifact.key ||
                listed.sha256 != cachelens::hash::sha256_hex(artifact.content)) {
                __builtin_trap();
            }
        }
    }
    if (index != read->manifest.artifacts.size() || read->signature_verified) {
        __builtin_trap();
    }
    // RFC 8032's test key 1 signed none of these: none may verify under it.
    static const PublicKey rfc_key{{0xd7, 0x5a, 0x98, 0x01, 0x82, 0xb1, 0x0a, 0xb7,
                                    0xd5, 0x4b, 0xfe, 0xd3, 0xc9, 0x64, 0x07, 0x3a,
                                    0x0e, 0xe1, 0x72, 0xf3, 0xda, 0xa6, 0x23, 0x25,
                                    0xaf, 0x02, 0x1a, 0x68, 0xf7, 0x07, 0x51, 0x1a}};
    if (verify_signed_bundle(bytes, rfc_key)) {
        __builtin_trap();
    }
    return 0;
}
