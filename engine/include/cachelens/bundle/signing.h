#pragma once

// Ed25519 keys for signed cachelens bundles, through OpenSSL 3. Key files
// are PEM as `openssl genpkey -algorithm ed25519` writes them: PKCS#8
// ("PRIVATE KEY", unencrypted) for the private key, SubjectPublicKeyInfo
// ("PUBLIC KEY") for the public one. A key is named by its fingerprint: the
// sha256 (hex) of its 32 raw bytes.

#include <cachelens/core/error.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace cachelens::bundle {

class PublicKey {
public:
    std::array<std::uint8_t, 32> raw{};

    // sha256 hex of `raw` (64 characters).
    std::string fingerprint() const;
    // Its first 16 characters, for display.
    std::string short_fingerprint() const;
    // False for a wrong signature, a signature that is not 64 bytes, or a
    // `raw` that is not a valid Ed25519 point.
    bool verify(std::string_view message, std::string_view signature) const;

    bool operator==(const PublicKey&) const = default;

    // SubjectPublicKeyInfo PEM text; errors say what the text is instead.
    static Result<PublicKey> from_pem(std::string_view pem);
};

class PrivateKey {
public:
    // A fresh key from OpenSSL's random generator.
    static Result<PrivateKey> generate();
    // Unencrypted PKCS#8 PEM text; errors say what the text is instead.
    static Result<PrivateKey> from_pem(std::string_view pem);

    PrivateKey(PrivateKey&& other) noexcept;
    PrivateKey& operator=(PrivateKey&& other) noexcept;
    PrivateKey(const PrivateKey&) = delete;
    PrivateKey& operator=(const PrivateKey&) = delete;
    ~PrivateKey();

    // The 64-byte Ed25519 signature of `message`; empty only if OpenSSL
    // fails (out of memory), which callers treat as an error.
    std::string sign(std::string_view message) const;
    const PublicKey& public_key() const { return public_; }

    // PEM text: PKCS#8 for this key, SubjectPublicKeyInfo for its public key.
    std::string private_pem() const;
    std::string public_pem() const;

private:
    struct Impl;
    PrivateKey(std::unique_ptr<Impl> impl, PublicKey public_key);

    std::unique_ptr<Impl> impl_; // holds the EVP_PKEY, kept out of this header
    PublicKey public_;
};

// Generates a key pair and writes both files: the private key with mode
// 0600, the public one 0644. Each is written to a temp file beside it and
// linked into place without replacing anything: an existing file (either
// one) is refused with an error naming it, and on any failure neither file
// is left behind.
Result<void> write_key_pair(const std::filesystem::path& private_key_file,
                            const std::filesystem::path& public_key_file);

// Errors name the file: unreadable, not PEM, PEM of something else (a
// public key given for a private one, or the other way round), not Ed25519
// (says which algorithm it is), an encrypted private key.
Result<PrivateKey> load_private_key(const std::filesystem::path& file);
Result<PublicKey> load_public_key(const std::filesystem::path& file);

} // namespace cachelens::bundle
