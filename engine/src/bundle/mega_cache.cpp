#include <cachelens/bundle/mega_cache.h>
#include <cachelens/core/base64.h>

#include <array>
#include <cstdio>

namespace cachelens::bundle {

namespace {

constexpr std::array<std::uint32_t, 256> crc_table() {
    std::array<std::uint32_t, 256> table{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int bit = 0; bit < 8; ++bit) {
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        }
        table[i] = c;
    }
    return table;
}

constexpr auto kCrcTable = crc_table();

// Reads big-endian fields, every length checked against what is left.
class Reader {
public:
    explicit Reader(std::string_view bytes, std::size_t base = 0)
        : bytes_(bytes)
        , base_(base) {}

    bool at_end() const { return at_ == bytes_.size(); }
    std::size_t offset() const { return base_ + at_; }
    std::size_t left() const { return bytes_.size() - at_; }

    Result<std::uint64_t> u64(const char* what) {
        if (left() < 8) {
            return truncated(what, 8);
        }
        std::uint64_t value = 0;
        for (int i = 0; i < 8; ++i) {
            value = (value << 8) | static_cast<std::uint8_t>(bytes_[at_ + i]);
        }
        at_ += 8;
        return value;
    }

    // A u64 length, then that many bytes.
    Result<std::string_view> sized(const char* what) {
        const std::size_t start = offset();
        auto size = u64(what);
        if (!size) {
            return std::unexpected(size.error());
        }
        if (*size > left()) {
            return fail(ErrorKind::Corrupt, "offset " + std::to_string(start) + ": " + what +
                                                " of " + std::to_string(*size) +
                                                " bytes, but only " + std::to_string(left()) +
                                                " are left");
        }
        const auto view = bytes_.substr(at_, *size);
        at_ += *size;
        return view;
    }

    Result<std::string> text(const char* what) {
        const std::size_t start = offset();
        auto encoded = sized(what);
        if (!encoded) {
            return std::unexpected(encoded.error());
        }
        auto decoded = base64_decode(*encoded);
        if (!decoded) {
            return fail(ErrorKind::Corrupt, "offset " + std::to_string(start) + ": " + what +
                                                " is not base64 (" + decoded.error().message + ")");
        }
        return decoded;
    }

private:
    std::unexpected<Error> truncated(const char* what, std::size_t need) const {
        return std::unexpected(Error{ErrorKind::Truncated,
                                     "offset " + std::to_string(offset()) + ": " + what +
                                         " needs " + std::to_string(need) + " bytes, " +
                                         std::to_string(left()) + " left",
                                     {}});
    }

    std::string_view bytes_;
    std::size_t base_ = 0;
    std::size_t at_ = 0;
};

std::uint64_t read_u64(std::string_view bytes, std::size_t at) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < 8; ++i) {
        value = (value << 8) | static_cast<std::uint8_t>(bytes[at + i]);
    }
    return value;
}

void put_u64(std::string& out, std::uint64_t value) {
    for (int shift = 56; shift >= 0; shift -= 8) {
        out += static_cast<char>((value >> shift) & 0xff);
    }
}

void put_sized(std::string& out, std::string_view bytes) {
    put_u64(out, bytes.size());
    out += bytes;
}

// The stream after the crc (or from the start, in the form without one).
Result<MegaBundle> read_sections(std::string_view stream, std::size_t base, MegaBundle::Form form) {
    Reader reader(stream, base);
    MegaBundle bundle;
    bundle.form = form;
    auto version = reader.u64("the version");
    if (!version) {
        return std::unexpected(version.error());
    }
    if (*version != 1) {
        return fail(ErrorKind::Unsupported,
                    "mega-cache version " + std::to_string(*version) + " (cachelens reads 1)");
    }
    bundle.version = *version;
    while (!reader.at_end()) {
        MegaSection section;
        auto type = reader.text("an artifact type");
        if (!type) {
            return std::unexpected(type.error());
        }
        section.type = std::move(*type);
        const std::size_t count_at = reader.offset();
        auto count = reader.u64("an artifact count");
        if (!count) {
            return std::unexpected(count.error());
        }
        // Each artifact takes at least two lengths: a count beyond that is a lie.
        if (*count > reader.left() / 16) {
            return fail(ErrorKind::Corrupt, "offset " + std::to_string(count_at) + ": " +
                                                std::to_string(*count) + " " + section.type +
                                                " artifacts cannot fit in the " +
                                                std::to_string(reader.left()) + " bytes left");
        }
        for (std::uint64_t i = 0; i < *count; ++i) {
            auto key = reader.text("an artifact key");
            if (!key) {
                return std::unexpected(key.error());
            }
            auto content = reader.sized("an artifact's content");
            if (!content) {
                return std::unexpected(content.error());
            }
            section.artifacts.push_back({std::move(*key), std::string(*content)});
        }
        bundle.sections.push_back(std::move(section));
    }
    return bundle;
}

} // namespace

std::uint32_t crc32(std::string_view bytes) {
    std::uint32_t c = 0xFFFFFFFFu;
    for (char byte : bytes) {
        c = kCrcTable[(c ^ static_cast<std::uint8_t>(byte)) & 0xff] ^ (c >> 8);
    }
    return c ^ 0xFFFFFFFFu;
}

std::size_t MegaBundle::artifact_count() const {
    std::size_t count = 0;
    for (const auto& section : sections) {
        count += section.artifacts.size();
    }
    return count;
}

std::string_view to_string(MegaBundle::Form form) {
    return form == MegaBundle::Form::Crc32 ? "crc32" : "no-crc";
}

Result<MegaBundle> decode_mega_cache(std::string_view bytes) {
    if (!bytes.empty() && static_cast<std::uint8_t>(bytes[0]) == 0x80) {
        return fail(ErrorKind::Unsupported,
                    "a pickle: the first mega-cache form (late 2024), which cachelens does not "
                    "read (loading it would mean unpickling what it holds)");
    }
    // Older PyTorch wrote the version first, without a crc.
    if (bytes.size() >= 8 && read_u64(bytes, 0) == 1) {
        return read_sections(bytes, 0, MegaBundle::Form::NoCrc);
    }
    if (bytes.size() < 12) {
        return fail(ErrorKind::Truncated, "a mega-cache bundle is at least 12 bytes; this is " +
                                              std::to_string(bytes.size()));
    }
    const std::uint32_t stored =
        (static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[0])) << 24) |
        (static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[1])) << 16) |
        (static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[2])) << 8) |
        static_cast<std::uint8_t>(bytes[3]);
    const std::uint32_t computed = crc32(bytes.substr(4));
    if (stored != computed) {
        char message[160];
        std::snprintf(message, sizeof message,
                      "crc32 mismatch: the bundle says %08x, its %zu bytes hash to %08x "
                      "(damaged or truncated)",
                      stored, bytes.size() - 4, computed);
        return fail(ErrorKind::Corrupt, message);
    }
    return read_sections(bytes.substr(4), 4, MegaBundle::Form::Crc32);
}

std::string encode_mega_cache(const MegaBundle& bundle) {
    std::string stream;
    put_u64(stream, bundle.version);
    for (const auto& section : bundle.sections) {
        put_sized(stream, base64_encode(section.type));
        put_u64(stream, section.artifacts.size());
        for (const auto& artifact : section.artifacts) {
            put_sized(stream, base64_encode(artifact.key));
            put_sized(stream, artifact.content);
        }
    }
    std::string out;
    out.reserve(stream.size() + 4);
    const std::uint32_t crc = crc32(stream);
    for (int shift = 24; shift >= 0; shift -= 8) {
        out += static_cast<char>((crc >> shift) & 0xff);
    }
    out += stream;
    return out;
}

} // namespace cachelens::bundle
