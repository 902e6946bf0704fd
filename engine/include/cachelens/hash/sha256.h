#pragma once

// SHA-256 through OpenSSL's EVP interface, and the two names PyTorch derives
// from it for files in a cache dir.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cachelens::hash {

using Digest = std::array<std::uint8_t, 32>;

Digest sha256(std::string_view bytes);

// Incremental hashing for data that arrives in pieces.
class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;

    void update(std::string_view bytes);
    Digest finish();

private:
    void* context_; // EVP_MD_CTX, kept out of this header
};

std::string to_hex(const Digest& digest);
std::string sha256_hex(std::string_view bytes);

// RFC 4648 base32 (upper case), with or without '=' padding.
std::string base32(std::string_view bytes, bool pad = true);
// Decodes base32 (either case, padding optional); nullopt-like empty result
// with `ok=false` on a bad character.
bool base32_decode(std::string_view text, std::string& out);

// PyTorch's sha256_hash(): lower-case base32 of the digest, first 51
// characters (the "Q====" tail every digest shares is cut).
std::string sha256_hash(std::string_view bytes);
// The same name from a digest already computed (one hash of a large
// artifact serves both its hex and its file name).
std::string sha256_hash(const Digest& digest);

// PyTorch's code_hash(code, extra): "c" + sha256_hash(code [+ "||" + extra]).
std::string code_hash(std::string_view code, std::string_view extra = {});

// Python's str.strip() with no argument, for ASCII whitespace (PyTorch names a
// module by code_hash(content.strip())).
std::string_view python_strip(std::string_view text);

// Which of PyTorch's rules names a generated module by its text: the
// code_hash of the text stripped (PyTorch 2.2 on), or of the text as written
// (2.0 and 2.1, whose write() hashed the source as given). Nullopt: neither.
enum class CodeHashRule { Stripped, AsWritten };
std::optional<CodeHashRule> code_hash_rule(std::string_view name, std::string_view text);

// A Triton cache dir name from a kernel hash in hex (base32 without padding),
// as Triton 3.3 and later name them.
std::string triton_dir_from_hex(std::string_view hex);
// Whether `name` is what some Triton release names the dir of the kernel
// whose metadata hash is `hex`: the hex itself (3.0, 3.1), its bytes in
// unpadded base64url (3.2), or in unpadded base32 (3.3 on). Triton 2.x named
// dirs by an md5 its metadata does not record: nothing to check them against.
bool is_triton_dir_name_of(std::string_view name, std::string_view hex);

} // namespace cachelens::hash
