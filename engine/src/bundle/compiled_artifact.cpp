#include "big_endian.h"

#include <cachelens/bundle/compiled_artifact.h>
#include <cachelens/core/base64.h>
#include <cachelens/core/mapped_file.h>

#include <cstdio>

namespace cachelens::bundle {

namespace {

std::string hex_of(std::string_view bytes) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const char c : bytes) {
        out += kHex[(static_cast<unsigned char>(c) >> 4) & 0xF];
        out += kHex[static_cast<unsigned char>(c) & 0xF];
    }
    return out;
}

class FieldReader {
public:
    explicit FieldReader(std::string_view bytes)
        : bytes_(bytes) {}

    std::size_t offset() const { return at_; }
    bool at_end() const { return at_ == bytes_.size(); }

    Result<std::string_view> field(const char* what) {
        if (bytes_.size() - at_ < 8) {
            return fail(ErrorKind::Truncated, "the file ends at byte " + std::to_string(at_) +
                                                  ", before the length of " + what);
        }
        const std::uint64_t size = read_u64(bytes_, at_);
        if (size > bytes_.size() - at_ - 8) {
            return fail(ErrorKind::Truncated,
                        std::string(what) + " at byte " + std::to_string(at_) + " says " +
                            std::to_string(size) + " bytes, but only " +
                            std::to_string(bytes_.size() - at_ - 8) + " follow");
        }
        const std::string_view out = bytes_.substr(at_ + 8, size);
        at_ += 8 + size;
        return out;
    }

private:
    std::string_view bytes_;
    std::size_t at_ = 4; // past the crc
};

} // namespace

bool looks_like_compiled_artifact(std::string_view bytes) {
    if (bytes.size() < 12) {
        return false;
    }
    const std::uint64_t size = read_u64(bytes, 4);
    const auto header = bytes.substr(12);
    return (size == kCacheArtifactHeader.size() && header.starts_with(kCacheArtifactHeader)) ||
           (size == kAotArtifactHeader.size() && header.starts_with(kAotArtifactHeader));
}

Result<CompiledArtifactFile> decode_compiled_artifact(std::string_view bytes,
                                                      std::shared_ptr<const void> owner) {
    if (bytes.size() < 4) {
        return fail(ErrorKind::Truncated,
                    "only " + std::to_string(bytes.size()) +
                        " bytes, where a CompiledArtifact starts with a 4-byte crc32");
    }
    const std::uint32_t stored =
        (static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[0])) << 24) |
        (static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[1])) << 16) |
        (static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[2])) << 8) |
        static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[3]));
    FieldReader reader(bytes);
    auto header = reader.field("the header");
    if (!header) {
        return std::unexpected(header.error());
    }
    CompiledArtifactFile file;
    if (*header == kCacheArtifactHeader) {
        file.form = CompiledArtifactFile::Form::Cache;
    } else if (*header == kAotArtifactHeader) {
        file.form = CompiledArtifactFile::Form::Aot;
    } else {
        return fail(ErrorKind::Corrupt, "not a CompiledArtifact: the header is not \"" +
                                            std::string(kCacheArtifactHeader) + "\" or \"" +
                                            std::string(kAotArtifactHeader) + "\"");
    }
    auto torch_key = reader.field("torch_key");
    if (!torch_key) {
        return std::unexpected(torch_key.error());
    }
    file.torch_key_hex = hex_of(*torch_key);
    if (file.form == CompiledArtifactFile::Form::Cache) {
        auto key = reader.field("the AOTAutograd key");
        if (!key) {
            return std::unexpected(key.error());
        }
        // BytesWriter.write_str writes base64 of the UTF-8 text.
        auto decoded = base64_decode(*key);
        if (!decoded) {
            return fail(ErrorKind::Corrupt, "the AOTAutograd key is not base64 text, as "
                                            "PyTorch's write_str writes it");
        }
        file.aot_key = std::move(*decoded);
    }
    const std::size_t payload_at = reader.offset();
    auto payload = reader.field("the artifact");
    if (!payload) {
        return std::unexpected(payload.error());
    }
    if (!reader.at_end()) {
        return fail(ErrorKind::Corrupt,
                    "bytes after the artifact, from byte " + std::to_string(reader.offset()));
    }
    // The fields first, so that a cut file is called truncated; then the crc
    // PyTorch's BytesReader checks before it reads anything.
    const std::uint32_t computed = crc32(bytes.substr(4));
    if (computed != stored) {
        char text[120];
        std::snprintf(text, sizeof text,
                      "crc32 mismatch: the file says %08x, its %zu bytes hash to %08x", stored,
                      bytes.size() - 4, computed);
        return fail(ErrorKind::Corrupt, text);
    }
    file.payload_size = payload->size();
    if (file.form == CompiledArtifactFile::Form::Cache) {
        auto bundle = decode_mega_cache(*payload, {.check_crc = true, .owner = std::move(owner)});
        if (!bundle) {
            Error error = bundle.error();
            error.message =
                "the bundle at byte " + std::to_string(payload_at + 8) + ": " + error.message;
            return std::unexpected(std::move(error));
        }
        file.bundle = std::move(*bundle);
    }
    return file;
}

Result<CompiledArtifactFile> load_compiled_artifact(const std::filesystem::path& path) {
    auto mapped = MappedFile::open(path);
    if (!mapped) {
        return std::unexpected(mapped.error());
    }
    const std::string_view bytes = (*mapped)->bytes();
    auto file = decode_compiled_artifact(bytes, *mapped);
    if (!file) {
        return std::unexpected(std::move(file.error()).at(path.string()));
    }
    return file;
}

std::string encode_compiled_artifact(std::string_view torch_key, std::string_view aot_key,
                                     std::string_view bundle_bytes) {
    std::string out(4, '\0');
    const std::string key_text = base64_encode(aot_key); // BytesWriter.write_str
    for (const std::string_view field :
         {kCacheArtifactHeader, torch_key, std::string_view(key_text), bundle_bytes}) {
        put_u64(out, field.size());
        out += field;
    }
    const std::uint32_t crc = crc32(std::string_view(out).substr(4));
    for (int i = 0; i < 4; ++i) {
        out[i] = static_cast<char>((crc >> (24 - 8 * i)) & 0xff);
    }
    return out;
}

} // namespace cachelens::bundle
