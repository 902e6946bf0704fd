#include <cachelens/bundle/signing.h>
#include <cachelens/core/dir_handle.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/hash/sha256.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <vector>

namespace cachelens::bundle {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxKeyFileSize = 64 << 10;

struct PkeyFree {
    void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct BioFree {
    void operator()(BIO* bio) const { BIO_free(bio); }
};
struct MdCtxFree {
    void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using Bio = std::unique_ptr<BIO, BioFree>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

// OpenSSL queues an error per failed call; nothing here reports them
// (our messages say what is wrong), so drop them rather than let them
// surface in some later, unrelated check.
struct ClearErrors {
    ~ClearErrors() { ERR_clear_error(); }
};

// The label of the first PEM block ("PRIVATE KEY", "PUBLIC KEY", ...),
// empty when the text has none.
std::string pem_label(std::string_view pem) {
    constexpr std::string_view kBegin = "-----BEGIN ";
    const std::size_t begin = pem.find(kBegin);
    if (begin == std::string_view::npos) {
        return {};
    }
    const std::size_t from = begin + kBegin.size();
    const std::size_t end = pem.find("-----", from);
    if (end == std::string_view::npos || end - from > 64) {
        return {};
    }
    return std::string(pem.substr(from, end - from));
}

// Key text is small; anything longer is not a key (and would not fit BIO's int).
Bio memory_bio(std::string_view bytes) {
    if (bytes.size() > kMaxKeyFileSize) {
        return nullptr;
    }
    return Bio(BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size())));
}

std::string bio_text(BIO* bio) {
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    return size > 0 ? std::string(data, static_cast<std::size_t>(size)) : std::string();
}

// Never prompts on the terminal for a passphrase (OpenSSL's default).
int no_passphrase(char*, int, int, void*) {
    return 0;
}

Result<PublicKey> raw_public_key(EVP_PKEY* key) {
    PublicKey out;
    std::size_t size = out.raw.size();
    if (EVP_PKEY_get_raw_public_key(key, out.raw.data(), &size) != 1 || size != out.raw.size()) {
        return fail(ErrorKind::Corrupt, "OpenSSL cannot give the key's raw public bytes");
    }
    return out;
}

Result<void> require_ed25519(EVP_PKEY* key, std::string_view what) {
    if (EVP_PKEY_get_id(key) == EVP_PKEY_ED25519) {
        return {};
    }
    const char* name = EVP_PKEY_get0_type_name(key);
    return fail(ErrorKind::Unsupported, std::string(what) + " is " +
                                            (name != nullptr ? name : "of another type") +
                                            ", not Ed25519 (cachelens keygen makes Ed25519 keys)");
}

Result<std::string> read_key_file(const fs::path& file) {
    auto text = read_text_file(file, kMaxKeyFileSize);
    if (!text) {
        return std::unexpected(text.error().at(file.string()));
    }
    return text;
}

} // namespace

struct PrivateKey::Impl {
    Pkey key;
};

// --- PublicKey

std::string PublicKey::fingerprint() const {
    return hash::sha256_hex(
        std::string_view(reinterpret_cast<const char*>(raw.data()), raw.size()));
}

std::string PublicKey::short_fingerprint() const {
    return fingerprint().substr(0, 16);
}

bool PublicKey::verify(std::string_view message, std::string_view signature) const {
    ClearErrors clear;
    if (signature.size() != 64) {
        return false;
    }
    Pkey key(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, raw.data(), raw.size()));
    MdCtx ctx(EVP_MD_CTX_new());
    if (!key || !ctx ||
        EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1) {
        return false;
    }
    return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                            signature.size(),
                            reinterpret_cast<const unsigned char*>(message.data()),
                            message.size()) == 1;
}

Result<PublicKey> PublicKey::from_pem(std::string_view pem) {
    ClearErrors clear;
    const std::string label = pem_label(pem);
    if (label.empty()) {
        return fail(ErrorKind::Corrupt, "not a PEM file (no -----BEGIN line)");
    }
    if (label.find("PRIVATE KEY") != std::string::npos) {
        return fail(ErrorKind::InvalidArgument,
                    "a private key (" + label + "); give its public key (the .pub file)");
    }
    Bio bio = memory_bio(pem);
    Pkey key(bio ? PEM_read_bio_PUBKEY(bio.get(), nullptr, no_passphrase, nullptr) : nullptr);
    if (!key) {
        return fail(ErrorKind::Corrupt,
                    "PEM \"" + label + "\" that is not a SubjectPublicKeyInfo public key");
    }
    if (auto ok = require_ed25519(key.get(), "the public key"); !ok) {
        return std::unexpected(ok.error());
    }
    return raw_public_key(key.get());
}

// --- PrivateKey

PrivateKey::PrivateKey(std::unique_ptr<Impl> impl, PublicKey public_key)
    : impl_(std::move(impl))
    , public_(public_key) {}

PrivateKey::PrivateKey(PrivateKey&& other) noexcept = default;
PrivateKey& PrivateKey::operator=(PrivateKey&& other) noexcept = default;
PrivateKey::~PrivateKey() = default;

Result<PrivateKey> PrivateKey::generate() {
    ClearErrors clear;
    Pkey key(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
    if (!key) {
        return fail(ErrorKind::Io, "OpenSSL cannot generate an Ed25519 key");
    }
    auto public_key = raw_public_key(key.get());
    if (!public_key) {
        return std::unexpected(public_key.error());
    }
    return PrivateKey(std::make_unique<Impl>(Impl{std::move(key)}), *public_key);
}

Result<PrivateKey> PrivateKey::from_pem(std::string_view pem) {
    ClearErrors clear;
    const std::string label = pem_label(pem);
    if (label.empty()) {
        return fail(ErrorKind::Corrupt, "not a PEM file (no -----BEGIN line)");
    }
    if (label == "ENCRYPTED PRIVATE KEY") {
        return fail(ErrorKind::Unsupported,
                    "an encrypted private key; cachelens reads unencrypted PKCS#8 "
                    "(openssl pkey -in FILE -out PLAIN writes one)");
    }
    if (label.find("PRIVATE KEY") == std::string::npos) {
        return fail(ErrorKind::InvalidArgument,
                    "PEM \"" + label + "\", not a private key (the .key file signs)");
    }
    Bio bio = memory_bio(pem);
    Pkey key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr) : nullptr);
    if (!key) {
        return fail(ErrorKind::Corrupt, "PEM \"" + label + "\" that OpenSSL cannot read as a key");
    }
    if (auto ok = require_ed25519(key.get(), "the private key"); !ok) {
        return std::unexpected(ok.error());
    }
    auto public_key = raw_public_key(key.get());
    if (!public_key) {
        return std::unexpected(public_key.error());
    }
    return PrivateKey(std::make_unique<Impl>(Impl{std::move(key)}), *public_key);
}

std::string PrivateKey::sign(std::string_view message) const {
    ClearErrors clear;
    MdCtx ctx(EVP_MD_CTX_new());
    std::string signature(64, '\0');
    std::size_t size = signature.size();
    if (!impl_ || !ctx ||
        EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, impl_->key.get()) != 1 ||
        EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &size,
                       reinterpret_cast<const unsigned char*>(message.data()),
                       message.size()) != 1 ||
        size != 64) {
        return {};
    }
    return signature;
}

std::string PrivateKey::private_pem() const {
    ClearErrors clear;
    Bio bio(BIO_new(BIO_s_mem()));
    if (!impl_ || !bio ||
        PEM_write_bio_PrivateKey(bio.get(), impl_->key.get(), nullptr, nullptr, 0, nullptr,
                                 nullptr) != 1) {
        return {};
    }
    return bio_text(bio.get());
}

std::string PrivateKey::public_pem() const {
    ClearErrors clear;
    Bio bio(BIO_new(BIO_s_mem()));
    if (!impl_ || !bio || PEM_write_bio_PUBKEY(bio.get(), impl_->key.get()) != 1) {
        return {};
    }
    return bio_text(bio.get());
}

// --- files

Result<void> write_key_pair(const fs::path& private_key_file, const fs::path& public_key_file) {
    if (private_key_file.lexically_normal() == public_key_file.lexically_normal()) {
        return fail(ErrorKind::InvalidArgument, "the private and the public key need two files",
                    private_key_file.string());
    }
    for (const fs::path& file : {private_key_file, public_key_file}) {
        std::error_code error;
        if (fs::symlink_status(file, error).type() != fs::file_type::not_found) {
            return fail(ErrorKind::InvalidArgument, "already exists; a key is never overwritten",
                        file.string());
        }
    }
    auto key = PrivateKey::generate();
    if (!key) {
        return std::unexpected(key.error());
    }
    const std::string private_text = key->private_pem();
    const std::string public_text = key->public_pem();
    if (private_text.empty() || public_text.empty()) {
        return fail(ErrorKind::Io, "OpenSSL cannot write the key as PEM");
    }
    // One batch: both temp files written and flushed before either name
    // shows. The public key is renamed first, so a kill leaves both keys,
    // neither, or the public one alone (nothing secret), never half of one.
    struct KeyFile {
        const fs::path* path;
        const std::string* text;
        mode_t mode;
    };
    const KeyFile files[] = {{&public_key_file, &public_text, 0666},
                             {&private_key_file, &private_text, 0600}};
    std::vector<DirHandle> dirs;
    for (const auto& file : files) {
        auto dir = DirHandle::open_root(file.path->has_parent_path() ? file.path->parent_path()
                                                                     : fs::path("."));
        if (!dir) {
            return std::unexpected(dir.error());
        }
        dirs.push_back(std::move(*dir));
    }
    DurableWriteBatch batch;
    for (std::size_t i = 0; i < std::size(files); ++i) {
        if (auto staged = batch.stage(dirs[i], files[i].path->filename().string(), *files[i].text,
                                      DirHandle::WriteMode::CreateOnly, files[i].mode);
            !staged) {
            return staged;
        }
    }
    const auto placed = batch.commit();
    const auto was_placed = [&](std::size_t i) {
        return placed[i] && *placed[i];
    };
    if (was_placed(0) && was_placed(1)) {
        return {};
    }
    // Both or neither: one key without the other is no use.
    for (std::size_t i = 0; i < placed.size(); ++i) {
        if (was_placed(i)) {
            (void)dirs[i].remove_file(files[i].path->filename().string());
        }
    }
    for (std::size_t i = 0; i < placed.size(); ++i) {
        if (!placed[i]) {
            return std::unexpected(placed[i].error());
        }
        if (!*placed[i]) {
            return fail(ErrorKind::InvalidArgument, "already exists; a key is never overwritten",
                        files[i].path->string());
        }
    }
    return {};
}

Result<PrivateKey> load_private_key(const fs::path& file) {
    auto text = read_key_file(file);
    if (!text) {
        return std::unexpected(text.error());
    }
    auto key = PrivateKey::from_pem(*text);
    if (!key) {
        return std::unexpected(std::move(key.error()).at(file.string()));
    }
    return key;
}

Result<PublicKey> load_public_key(const fs::path& file) {
    auto text = read_key_file(file);
    if (!text) {
        return std::unexpected(text.error());
    }
    auto key = PublicKey::from_pem(*text);
    if (!key) {
        return std::unexpected(std::move(key.error()).at(file.string()));
    }
    return key;
}

} // namespace cachelens::bundle
