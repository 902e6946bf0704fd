#pragma once

// The file torch._inductor.standalone_compile's CompiledArtifact.save(path,
// format="binary") writes (torch >= 2.8; vLLM's artifact_shape_* and
// artifact_compile_range_* files). PyTorch's BytesWriter: a big-endian crc32
// of what follows, then u64-length-prefixed fields:
//   "CacheCompiledArtifact", torch_key(), the AOTAutograd key (write_str:
//   base64 of its UTF-8), a
//   mega-cache bundle (mega_cache.h) holding the graph's artifacts; or
//   "AOTCompiledArtifact", torch_key(), a pickled AOT artifact (2.10+).
// PyTorch asserts the torch_key equals its own before loading: a file from
// another PyTorch build is refused there and compiled again.

#include <cachelens/bundle/mega_cache.h>
#include <cachelens/core/error.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace cachelens::bundle {

struct CompiledArtifactFile {
    enum class Form { Cache, Aot };
    Form form = Form::Cache;
    std::string torch_key_hex; // the PyTorch build it was saved by
    std::string aot_key;       // Cache form: the AOTAutograd entry's key
    // Cache form: the bundle of the graph's artifacts (FX graph, AOTAutograd
    // entry, best_configs); the AOT form's pickle is only measured.
    std::optional<MegaBundle> bundle;
    std::uint64_t payload_size = 0;
};

inline constexpr std::string_view kCacheArtifactHeader = "CacheCompiledArtifact";
inline constexpr std::string_view kAotArtifactHeader = "AOTCompiledArtifact";

// Whether `bytes` start as such a file does (a crc, then the header's length
// and one of the headers).
bool looks_like_compiled_artifact(std::string_view bytes);

// Errors name the offset and what is wrong; a crc that does not match is
// Corrupt (PyTorch's reader checks it too). `owner` keeps `bytes` alive.
Result<CompiledArtifactFile> decode_compiled_artifact(std::string_view bytes,
                                                      std::shared_ptr<const void> owner = {});
Result<CompiledArtifactFile> load_compiled_artifact(const std::filesystem::path& path);

// The Cache form's bytes, as CompiledArtifact.save writes them.
std::string encode_compiled_artifact(std::string_view torch_key, std::string_view aot_key,
                                     std::string_view bundle_bytes);

} // namespace cachelens::bundle
