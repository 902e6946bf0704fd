#pragma once

// PyTorch's mega-cache bundle: the bytes torch.compiler.save_cache_artifacts()
// returns and load_cache_artifacts() reads (formats.md §6). Not a pickle:
// big-endian, a crc32 of everything after it, a version, then sections of
// one artifact type each (inductor, autotune, aot_autograd, pgo, ...), each a
// count of (key, content) pairs; type names and keys are base64 text.
//
// Decoding never trusts a length: each is checked against what is left
// before anything is allocated, and the crc before anything is read. Every
// form PyTorch wrote is read:
//  - Crc32: the current form above;
//  - NoCrc: the same stream without the crc (older PyTorch);
//  - TypeEnum: early 2025 main, with or without the crc: after the version a
//    flat run of (u64 type enum 0 inductor / 1 autotune / 2 aot_autograd /
//    3 pgo, str key, bytes content). A key is base64 when the strict decode
//    gives printable ASCII, else its raw bytes when they are UTF-8 (which one
//    PyTorch's write_str wrote then is uncertain). Consecutive artifacts of
//    one type become one section;
//  - Pickle: late 2024, pickle.dumps(OrderedSet of CacheArtifact), read with
//    the safe unpickler (nothing imported or called); a pickle naming any
//    global such a bundle does not hold (os.system, ...) is refused.
// encode() writes the current form: decoding a PyTorch bundle and encoding it
// again gives the same bytes; the older forms come out in the current one.

#include <cachelens/core/error.h>
#include <cachelens/core/shared_bytes.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::bundle {

struct MegaArtifact {
    std::string key;     // as PyTorch gave it: an FX key, a best_config path, ...
    SharedBytes content; // the raw bytes: a slice of the decoded bundle, or bytes of its own
};

// One run of artifacts of one type, in the order the bundle holds them.
struct MegaSection {
    std::string type; // "inductor", "autotune", "aot_autograd", "pgo", "precompile", ...
    std::vector<MegaArtifact> artifacts;
};

struct MegaBundle {
    enum class Form { Crc32, NoCrc, TypeEnum, Pickle };
    Form form = Form::Crc32;
    std::uint64_t version = 1;
    std::vector<MegaSection> sections;
    // False only when decoded with check_crc off and the stored crc is wrong.
    bool crc_matches = true;
    std::size_t artifact_count() const;
};

struct MegaDecodeOptions {
    // Off for signature checks: a flipped byte should then be named by the
    // artifact whose digest no longer matches, not only by the crc.
    bool check_crc = true;
    // What keeps the decoded bytes alive (their mapped file): the contents
    // become slices of it, sharing it, and nothing is copied. Without it the
    // bytes are copied once, into storage the contents share.
    std::shared_ptr<const void> owner;
};

std::string_view to_string(MegaBundle::Form form);

// Whether `bytes` start as one of the forms above does: when they do not,
// decode_mega_cache() says "not a PyTorch cache bundle" (a JSON file, a
// random one), and a crc that fails means a damaged bundle.
bool looks_like_mega_cache(std::string_view bytes);

// Errors name the offset and what is wrong there; the caller adds the file.
Result<MegaBundle> decode_mega_cache(std::string_view bytes, const MegaDecodeOptions& options = {});
std::string encode_mega_cache(const MegaBundle& bundle);

// encode_mega_cache()'s bytes as the pieces they are made of, in order: the
// framing (crc, sizes, base64 keys) it owns, the contents viewed where the
// bundle holds them, so the bundle must outlive it. An export writes them
// to its file as they are, without a second copy of the bundle in memory.
class EncodedMegaCache {
public:
    std::span<const std::string_view> pieces() const { return pieces_; }
    std::size_t size() const { return size_; }

private:
    friend EncodedMegaCache encode_mega_cache_pieces(const MegaBundle& bundle);
    EncodedMegaCache() = default;

    // On the heap, reserved up front: pieces_ view into it, and a move of
    // this (a short string's bytes move with it) must not move them.
    std::unique_ptr<std::string> framing_ = std::make_unique<std::string>();
    std::vector<std::string_view> pieces_;
    std::size_t size_ = 0;
};
EncodedMegaCache encode_mega_cache_pieces(const MegaBundle& bundle);

// zlib's crc32 (what Python's zlib.crc32 computes), and the crc of bytes
// following those whose crc is `previous` (zlib's crc32(previous, ...)).
std::uint32_t crc32(std::string_view bytes);
std::uint32_t crc32_update(std::uint32_t previous, std::string_view bytes);

} // namespace cachelens::bundle
