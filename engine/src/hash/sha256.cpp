#include <cachelens/core/base64.h>
#include <cachelens/hash/sha256.h>

#include <openssl/evp.h>

#include <algorithm>
#include <stdexcept>

namespace cachelens::hash {

namespace {
constexpr char kBase32Alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
}

Sha256::Sha256()
    : context_(EVP_MD_CTX_new()) {
    if (context_ == nullptr ||
        EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(context_), EVP_sha256(), nullptr) != 1) {
        throw std::runtime_error("OpenSSL cannot initialise SHA-256");
    }
}

Sha256::~Sha256() {
    EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(context_));
}

void Sha256::update(std::string_view bytes) {
    EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(context_), bytes.data(), bytes.size());
}

Digest Sha256::finish() {
    Digest digest{};
    unsigned int length = 0;
    EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(context_), digest.data(), &length);
    return digest;
}

Digest sha256(std::string_view bytes) {
    Digest digest{};
    unsigned int length = 0;
    EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr);
    return digest;
}

std::string to_hex(const Digest& digest) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(64);
    for (std::uint8_t byte : digest) {
        out += kHex[byte >> 4];
        out += kHex[byte & 15];
    }
    return out;
}

std::string sha256_hex(std::string_view bytes) {
    return to_hex(sha256(bytes));
}

std::string base32(std::string_view bytes, bool pad) {
    std::string out;
    out.reserve((bytes.size() + 4) / 5 * 8);
    std::uint64_t buffer = 0;
    int bits = 0;
    for (char c : bytes) {
        buffer = (buffer << 8) | static_cast<std::uint8_t>(c);
        bits += 8;
        while (bits >= 5) {
            out += kBase32Alphabet[(buffer >> (bits - 5)) & 31];
            bits -= 5;
        }
    }
    if (bits > 0) {
        out += kBase32Alphabet[(buffer << (5 - bits)) & 31];
    }
    if (pad) {
        while (out.size() % 8 != 0) {
            out += '=';
        }
    }
    return out;
}

bool base32_decode(std::string_view text, std::string& out) {
    out.clear();
    std::uint64_t buffer = 0;
    int bits = 0;
    for (char c : text) {
        if (c == '=') {
            break;
        }
        int value = -1;
        if (c >= 'A' && c <= 'Z') {
            value = c - 'A';
        } else if (c >= 'a' && c <= 'z') {
            value = c - 'a';
        } else if (c >= '2' && c <= '7') {
            value = c - '2' + 26;
        }
        if (value < 0) {
            return false;
        }
        buffer = (buffer << 5) | static_cast<unsigned>(value);
        bits += 5;
        if (bits >= 8) {
            out += static_cast<char>((buffer >> (bits - 8)) & 0xff);
            bits -= 8;
        }
    }
    return true;
}

std::string sha256_hash(std::string_view bytes) {
    return sha256_hash(sha256(bytes));
}

std::string sha256_hash(const Digest& digest) {
    std::string encoded = base32(
        std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()), false);
    encoded.resize(51);
    for (char& c : encoded) {
        if (c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return encoded;
}

std::string code_hash(std::string_view code, std::string_view extra) {
    if (extra.empty()) {
        return "c" + sha256_hash(code);
    }
    std::string joined;
    joined.reserve(code.size() + 2 + extra.size());
    joined.append(code).append("||").append(extra);
    return "c" + sha256_hash(joined);
}

std::string_view python_strip(std::string_view text) {
    auto space = [](char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
               (c >= 0x1c && c <= 0x1f);
    };
    while (!text.empty() && space(text.front())) {
        text.remove_prefix(1);
    }
    while (!text.empty() && space(text.back())) {
        text.remove_suffix(1);
    }
    return text;
}

std::string triton_dir_from_hex(std::string_view hex) {
    std::string bytes;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
        auto nibble = [](char c) -> int {
            if (c >= '0' && c <= '9') {
                return c - '0';
            }
            c = static_cast<char>(c | 0x20);
            return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        };
        const int hi = nibble(hex[i]);
        const int lo = nibble(hex[i + 1]);
        if (hi < 0 || lo < 0) {
            return {};
        }
        bytes += static_cast<char>(hi * 16 + lo);
    }
    return base32(bytes, false);
}

std::optional<CodeHashRule> code_hash_rule(std::string_view name, std::string_view text) {
    const std::string_view stripped = python_strip(text);
    if (code_hash(stripped) == name) {
        return CodeHashRule::Stripped;
    }
    if (stripped.size() != text.size() && code_hash(text) == name) {
        return CodeHashRule::AsWritten;
    }
    return std::nullopt;
}

bool is_triton_dir_name_of(std::string_view name, std::string_view hex) {
    const bool sha256_hex = hex.size() == 64 && std::ranges::all_of(hex, [](char c) {
                                return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                            });
    if (!sha256_hex) {
        return false;
    }
    if (name == hex) {
        return true; // Triton 3.0, 3.1
    }
    const std::string base32_name = triton_dir_from_hex(hex);
    if (base32_name.empty()) {
        return false; // not hex
    }
    if (name == base32_name) {
        return true; // Triton 3.3 on
    }
    // Triton 3.2: base64.urlsafe_b64encode(bytes.fromhex(hash)) without its '='.
    std::string bytes;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
        const auto nibble = [](char c) {
            return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
        };
        bytes += static_cast<char>(nibble(hex[i]) * 16 + nibble(hex[i + 1]));
    }
    std::string url = base64_encode(bytes);
    while (!url.empty() && url.back() == '=') {
        url.pop_back();
    }
    std::ranges::replace(url, '+', '-');
    std::ranges::replace(url, '/', '_');
    return name == url;
}

} // namespace cachelens::hash
