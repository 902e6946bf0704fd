#pragma once

// PyTorch's mega-cache bundle: the bytes torch.compiler.save_cache_artifacts()
// returns and load_cache_artifacts() reads (formats.md §6). Not a pickle:
// big-endian, a crc32 of everything after it, a version, then sections of
// one artifact type each (inductor, autotune, aot_autograd, pgo, ...), each a
// count of (key, content) pairs; type names and keys are base64 text.
//
// Decoding never trusts a length: each is checked against what is left
// before anything is allocated, and the crc before anything is read. The
// form without the crc (older PyTorch) is read too; the per-artifact type
// enum form and the original pickle form are recognised and refused as
// unsupported. encode() writes the current form: decoding a PyTorch bundle
// and encoding it again gives the same bytes.

#include <cachelens/core/error.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::bundle {

struct MegaArtifact {
    std::string key;     // as PyTorch gave it: an FX key, a best_config path, ...
    std::string content; // the raw bytes
};

// One run of artifacts of one type, in the order the bundle holds them.
struct MegaSection {
    std::string type; // "inductor", "autotune", "aot_autograd", "pgo", "precompile", ...
    std::vector<MegaArtifact> artifacts;
};

struct MegaBundle {
    enum class Form { Crc32, NoCrc };
    Form form = Form::Crc32;
    std::uint64_t version = 1;
    std::vector<MegaSection> sections;
    std::size_t artifact_count() const;
};

std::string_view to_string(MegaBundle::Form form);

// Errors name the offset and what is wrong there; the caller adds the file.
Result<MegaBundle> decode_mega_cache(std::string_view bytes);
std::string encode_mega_cache(const MegaBundle& bundle);

// zlib's crc32 (what Python's zlib.crc32 computes).
std::uint32_t crc32(std::string_view bytes);

} // namespace cachelens::bundle
