#include "big_endian.h"

#include <cachelens/bundle/signed_bundle.h>
#include <cachelens/cachedir/fingerprint.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/core/base64.h>
#include <cachelens/core/format.h>
#include <cachelens/hash/sha256.h>
#include <cachelens/pickle/unpickler.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <set>

namespace cachelens::bundle {

namespace {

using Json = nlohmann::json;

// A manifest lists each artifact in about 200 bytes; this allows millions.
constexpr std::uint64_t kMaxManifestSize = std::uint64_t{256} << 20;
constexpr std::uint64_t kSignatureSize = 64;
constexpr int kManifestVersion = 1;

std::string at_offset(std::size_t offset) {
    return "offset " + std::to_string(offset) + ": ";
}

// --- the container

struct Container {
    std::string_view manifest;
    std::string_view signature;
    std::string_view payload;
    std::size_t payload_at = 0; // where the payload starts in the file
};

Result<Container> split_container(std::string_view bytes) {
    if (!looks_signed(bytes)) {
        if (!bytes.empty() && kSignedBundleMagic.starts_with(bytes)) {
            return fail(ErrorKind::Truncated, "a signed cachelens bundle cut short in its magic (" +
                                                  std::to_string(bytes.size()) + " bytes)");
        }
        return fail(ErrorKind::Corrupt, "not a signed cachelens bundle: it does not start with "
                                        "\"CACHELENS-SIGNED-BUNDLE\\n\"");
    }
    std::size_t at = kSignedBundleMagic.size();
    // A u64 length, checked against what is left before anything is taken.
    auto sized = [&](const char* what, std::uint64_t limit) -> Result<std::string_view> {
        const std::size_t left = bytes.size() - at;
        if (left < 8) {
            return fail(ErrorKind::Truncated, at_offset(at) + "the " + what + " length needs 8 " +
                                                  "bytes, " + std::to_string(left) + " left");
        }
        const std::uint64_t size = read_u64(bytes, at);
        if (size > left - 8) {
            return fail(ErrorKind::Corrupt, at_offset(at) + "a " + what + " of " +
                                                std::to_string(size) + " bytes, but only " +
                                                std::to_string(left - 8) + " are left");
        }
        if (size > limit) {
            return fail(ErrorKind::LimitExceeded, at_offset(at) + "a " + what + " of " +
                                                      std::to_string(size) + " bytes (at most " +
                                                      std::to_string(limit) + ")");
        }
        const std::string_view view = bytes.substr(at + 8, size);
        at += 8 + size;
        return view;
    };
    Container container;
    auto manifest = sized("manifest", kMaxManifestSize);
    if (!manifest) {
        return std::unexpected(manifest.error());
    }
    container.manifest = *manifest;
    const std::size_t signature_at = at;
    if (bytes.size() - at >= 8 && read_u64(bytes, at) != kSignatureSize) {
        return fail(ErrorKind::Corrupt, at_offset(signature_at) + "a signature length of " +
                                            std::to_string(read_u64(bytes, at)) +
                                            " (Ed25519 signatures are 64 bytes)");
    }
    auto signature = sized("signature", kSignatureSize);
    if (!signature) {
        return std::unexpected(signature.error());
    }
    container.signature = *signature;
    container.payload = bytes.substr(at);
    container.payload_at = at;
    return container;
}

// --- the manifest

nlohmann::ordered_json source_json(const std::optional<std::string>& fact) {
    return fact ? nlohmann::ordered_json(*fact) : nlohmann::ordered_json(nullptr);
}

std::string manifest_text(const Manifest& manifest) {
    using Ordered = nlohmann::ordered_json;
    Ordered artifacts = Ordered::array();
    for (const auto& artifact : manifest.artifacts) {
        Ordered entry = Ordered::object();
        entry["type"] = artifact.type;
        entry["key"] = artifact.key;
        entry["size"] = artifact.size;
        entry["sha256"] = artifact.sha256;
        artifacts.push_back(std::move(entry));
    }
    Ordered out;
    out["format"] = "cachelens-signed-bundle";
    out["version"] = kManifestVersion;
    out["created"] = manifest.created;
    out["signer"] = {{"fingerprint", manifest.signer_fingerprint}};
    out["payload"] = {{"size", manifest.payload_size}, {"sha256", manifest.payload_sha256}};
    out["source"] = {{"gpu", source_json(manifest.source.gpu)},
                     {"torch_version", source_json(manifest.source.torch_version)},
                     {"triton_version", source_json(manifest.source.triton_version)},
                     {"cuda_version", source_json(manifest.source.cuda_version)},
                     {"torch_build", source_json(manifest.source.torch_build)},
                     {"system_hash", source_json(manifest.source.system_hash)},
                     {"device_types", manifest.source.device_types},
                     {"triton_targets", manifest.source.triton_targets}};
    out["artifacts"] = std::move(artifacts);
    // Bytes that are not UTF-8 (none in PyTorch's keys) become U+FFFD: the
    // check after signing then refuses the bundle rather than the dump throwing.
    return out.dump(2, ' ', false, Ordered::error_handler_t::replace) + "\n";
}

bool is_hex_digest(const Json* value) {
    if (value == nullptr || !value->is_string()) {
        return false;
    }
    const auto& text = value->get_ref<const std::string&>();
    return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

const Json* member(const Json& object, const char* name) {
    const auto found = object.find(name);
    return found == object.end() ? nullptr : &*found;
}

Result<Manifest> parse_manifest(std::string_view text) {
    auto bad = [](const std::string& what) {
        return fail(ErrorKind::Corrupt, "the manifest " + what);
    };
    const Json json = Json::parse(text.begin(), text.end(), nullptr, false);
    if (json.is_discarded()) {
        return bad("is not JSON");
    }
    if (!json.is_object()) {
        return bad("is not a JSON object");
    }
    const Json* format = member(json, "format");
    if (format == nullptr || *format != "cachelens-signed-bundle") {
        return bad("has no \"format\": \"cachelens-signed-bundle\"");
    }
    const Json* version = member(json, "version");
    if (version == nullptr || !version->is_number_unsigned()) {
        return bad("has no version");
    }
    if (version->get<std::uint64_t>() != kManifestVersion) {
        return fail(ErrorKind::Unsupported, "signed bundle version " +
                                                std::to_string(version->get<std::uint64_t>()) +
                                                " (cachelens reads 1)");
    }
    Manifest manifest;
    const Json* created = member(json, "created");
    if (created == nullptr || !created->is_string()) {
        return bad("has no \"created\" time");
    }
    manifest.created = created->get<std::string>();
    const Json* signer = member(json, "signer");
    if (signer == nullptr || !signer->is_object() ||
        !is_hex_digest(member(*signer, "fingerprint"))) {
        return bad("has no signer fingerprint");
    }
    manifest.signer_fingerprint = member(*signer, "fingerprint")->get<std::string>();
    const Json* payload = member(json, "payload");
    const Json* payload_size =
        payload != nullptr && payload->is_object() ? member(*payload, "size") : nullptr;
    if (payload_size == nullptr || !payload_size->is_number_unsigned() ||
        !is_hex_digest(member(*payload, "sha256"))) {
        return bad("has no payload size and sha256");
    }
    manifest.payload_size = payload_size->get<std::uint64_t>();
    manifest.payload_sha256 = member(*payload, "sha256")->get<std::string>();
    const Json* source = member(json, "source");
    if (source == nullptr || !source->is_object()) {
        return bad("has no \"source\" object");
    }
    const std::pair<const char*, std::optional<std::string>*> facts[] = {
        {"gpu", &manifest.source.gpu},
        {"torch_version", &manifest.source.torch_version},
        {"triton_version", &manifest.source.triton_version},
        {"cuda_version", &manifest.source.cuda_version},
        {"torch_build", &manifest.source.torch_build},
        {"system_hash", &manifest.source.system_hash}};
    for (const auto& [name, fact] : facts) {
        const Json* value = member(*source, name);
        if (value != nullptr && value->is_string()) {
            *fact = value->get<std::string>();
        } else if (value != nullptr && !value->is_null()) {
            return bad(std::string("source.") + name + " is neither a string nor null");
        }
    }
    // Lists added in manifest 1's second year: absent from older bundles.
    for (const auto& [name, list] :
         {std::pair{"device_types", &manifest.source.device_types},
          std::pair{"triton_targets", &manifest.source.triton_targets}}) {
        const Json* value = member(*source, name);
        if (value == nullptr || value->is_null()) {
            continue;
        }
        if (!value->is_array() ||
            !std::ranges::all_of(*value, [](const Json& item) { return item.is_string(); })) {
            return bad(std::string("source.") + name + " is not a list of strings");
        }
        *list = value->get<std::vector<std::string>>();
    }
    const Json* artifacts = member(json, "artifacts");
    if (artifacts == nullptr || !artifacts->is_array()) {
        return bad("has no \"artifacts\" array");
    }
    for (const auto& entry : *artifacts) {
        const std::string which = "artifact " + std::to_string(manifest.artifacts.size() + 1);
        const Json* type = entry.is_object() ? member(entry, "type") : nullptr;
        const Json* key = entry.is_object() ? member(entry, "key") : nullptr;
        const Json* size = entry.is_object() ? member(entry, "size") : nullptr;
        if (type == nullptr || !type->is_string() || key == nullptr || !key->is_string() ||
            size == nullptr || !size->is_number_unsigned() ||
            !is_hex_digest(member(entry, "sha256"))) {
            return bad("lists " + which + " without a type, key, size and sha256");
        }
        manifest.artifacts.push_back({type->get<std::string>(), key->get<std::string>(),
                                      size->get<std::uint64_t>(),
                                      member(entry, "sha256")->get<std::string>()});
    }
    return manifest;
}

// --- the payload against the manifest

std::string describe(const Manifest& manifest, std::size_t index) {
    const auto& artifact = manifest.artifacts[index];
    return "artifact " + std::to_string(index + 1) + " (" + artifact.type + " " + artifact.key +
           ")";
}

// Walks the payload's framing with the manifest beside it, so that the first
// field that differs is reported with the artifact it belongs to. Offsets
// are the file's.
Result<void> check_artifacts(std::string_view payload, std::size_t base, const Manifest& manifest) {
    const std::size_t count = manifest.artifacts.size();
    std::size_t at = 0;
    auto left = [&] {
        return payload.size() - at;
    };
    auto here = [&] {
        return at_offset(base + at);
    };
    auto take_u64 = [&](std::uint64_t& value) {
        if (left() < 8) {
            return false;
        }
        value = read_u64(payload, at);
        at += 8;
        return true;
    };
    auto take = [&](std::uint64_t size, std::string_view& out) {
        if (size > left()) {
            return false;
        }
        out = payload.substr(at, size);
        at += size;
        return true;
    };
    auto cut = [&](std::size_t index, const char* what) {
        return fail(ErrorKind::Truncated, here() + describe(manifest, index) + ": its " + what +
                                              " runs past the end of the payload");
    };

    // The crc form starts with the crc; the older one with the version.
    const bool no_crc = payload.size() >= 8 && read_u64(payload, 0) == 1;
    at = no_crc ? 0 : 4;
    std::uint64_t version = 0;
    if (payload.size() < at || !take_u64(version)) {
        return fail(ErrorKind::Truncated, at_offset(base) + "the payload is cut short (" +
                                              std::to_string(payload.size()) + " bytes)");
    }
    if (version != 1) {
        return fail(ErrorKind::Corrupt, at_offset(base + at - 8) + "the payload's version field " +
                                            "says " + std::to_string(version) + ", not 1");
    }
    std::size_t next = 0;
    while (at < payload.size()) {
        std::uint64_t size = 0;
        std::string_view field;
        const std::string header_at = here();
        std::uint64_t in_section = 0;
        if (!take_u64(size) || !take(size, field) || !take_u64(in_section)) {
            if (next == count) {
                return fail(ErrorKind::Truncated, header_at + "the payload ends in a section "
                                                              "header after its last artifact");
            }
            return cut(next, "section header");
        }
        if (in_section == 0) {
            continue; // holds nothing; the payload's digest still covers it
        }
        if (next == count) {
            return fail(ErrorKind::Corrupt, header_at + "a section of " +
                                                std::to_string(in_section) + " more artifacts " +
                                                "after the " + std::to_string(count) +
                                                " the manifest lists");
        }
        const std::string& type = manifest.artifacts[next].type;
        if (field != base64_encode(type)) {
            return fail(ErrorKind::Corrupt, header_at + describe(manifest, next) + ": the " +
                                                "section header before it does not name type " +
                                                type);
        }
        // PyTorch writes one section per type; a run of that type in the
        // manifest at least as long as the count is all that is needed.
        std::size_t run = 0;
        while (next + run < count && manifest.artifacts[next + run].type == type) {
            ++run;
        }
        if (in_section > run) {
            return fail(ErrorKind::Corrupt, header_at + describe(manifest, next) + ": its " +
                                                "section counts " + std::to_string(in_section) +
                                                " " + type + " artifacts, the manifest lists " +
                                                std::to_string(run) + " in a row from here");
        }
        for (std::uint64_t i = 0; i < in_section; ++i, ++next) {
            const ManifestArtifact& artifact = manifest.artifacts[next];
            const std::string key_at = here();
            if (!take_u64(size) || !take(size, field)) {
                return cut(next, "key");
            }
            if (field != base64_encode(artifact.key)) {
                return fail(ErrorKind::Corrupt, key_at + describe(manifest, next) + ": the " +
                                                    "payload's key differs from the manifest's");
            }
            const std::string content_at = here();
            if (!take_u64(size)) {
                return cut(next, "content length");
            }
            if (size != artifact.size) {
                return fail(ErrorKind::Corrupt, content_at + describe(manifest, next) + ": " +
                                                    "content length " + std::to_string(size) +
                                                    ", the manifest says " +
                                                    std::to_string(artifact.size));
            }
            if (!take(size, field)) {
                return cut(next, "content");
            }
            const std::string digest = hash::sha256_hex(field);
            if (digest != artifact.sha256) {
                return fail(ErrorKind::Corrupt, describe(manifest, next) + ": sha256 " + digest +
                                                    ", the manifest says " + artifact.sha256);
            }
        }
    }
    if (next != count) {
        return fail(ErrorKind::Truncated, describe(manifest, next) + " is missing: the payload " +
                                              "holds " + std::to_string(next) + " of the " +
                                              plural(count, "artifact") + " the manifest " +
                                              "lists");
    }
    return {};
}

// What read and verify share once the manifest is known to be whole.
Result<SignedBundle> check_payload(const Container& container, Manifest manifest,
                                   std::shared_ptr<const void> owner) {
    if (auto ok = check_artifacts(container.payload, container.payload_at, manifest); !ok) {
        return std::unexpected(ok.error());
    }
    auto decoded =
        decode_mega_cache(container.payload, {.check_crc = false, .owner = std::move(owner)});
    if (!decoded) {
        Error error = decoded.error();
        error.message = "the payload: " + error.message;
        return std::unexpected(std::move(error));
    }
    if (!decoded->crc_matches) {
        return fail(ErrorKind::Corrupt,
                    at_offset(container.payload_at) +
                        "the payload's crc32 does not match its bytes (the crc field changed)");
    }
    if (container.payload.size() != manifest.payload_size ||
        hash::sha256_hex(container.payload) != manifest.payload_sha256) {
        return fail(ErrorKind::Corrupt, "the payload (" + std::to_string(container.payload.size()) +
                                            " bytes) is not the one the manifest lists (" +
                                            std::to_string(manifest.payload_size) +
                                            " bytes, sha256 " + manifest.payload_sha256 + ")");
    }
    SignedBundle out;
    out.manifest = std::move(manifest);
    out.payload = container.payload;
    out.bundle = std::move(*decoded);
    return out;
}

// --- source facts

// "# torch version: 2.11.0+cu130" in the repro header of a runnable graph.
std::optional<std::string> comment_value(std::string_view text, std::string_view prefix) {
    const std::size_t found = text.find(prefix);
    if (found == std::string_view::npos) {
        return std::nullopt;
    }
    const std::size_t from = found + prefix.size();
    const std::size_t end = text.find('\n', from);
    std::string value(
        text.substr(from, (end == std::string_view::npos ? text.size() : end) - from));
    while (!value.empty() && (value.back() == '\r' || value.back() == ' ')) {
        value.pop_back();
    }
    return value.empty() ? std::nullopt : std::optional<std::string>(std::move(value));
}

void set_once(std::optional<std::string>& fact, std::optional<std::string> value) {
    if (!fact && value && !value->empty()) {
        fact = std::move(value);
    }
}

void read_facts(const cachedir::FxGraphEntry& entry, SourceFacts& facts) {
    const cachedir::Fingerprint graph = cachedir::fingerprint_of(entry);
    const cachedir::Environment& environment = graph.environment;
    set_once(facts.gpu, environment.device_name);
    set_once(facts.triton_version, environment.triton_version);
    set_once(facts.cuda_version, environment.cuda_version);
    set_once(facts.torch_build, environment.torch_build);
    set_once(facts.system_hash, environment.system_hash);
    for (auto [from, into] : {std::pair{&graph.device_types, &facts.device_types},
                              std::pair{&graph.triton_targets, &facts.triton_targets}}) {
        std::set<std::string> all(into->begin(), into->end());
        all.insert(from->begin(), from->end());
        into->assign(all.begin(), all.end());
    }
    set_once(facts.torch_version, graph.torch_version);
    if (entry.runnable_graph) {
        set_once(facts.cuda_version,
                 comment_value(*entry.runnable_graph, "# torch cuda version: "));
    }
}

} // namespace

cachedir::Fingerprint SourceFacts::fingerprint() const {
    cachedir::Fingerprint out;
    cachedir::Environment& environment = out.environment;
    environment.device_name = gpu.value_or("");
    environment.cuda_version = cuda_version.value_or("");
    environment.triton_version = triton_version.value_or("");
    environment.torch_build = torch_build.value_or("");
    environment.system_hash = system_hash.value_or("");
    out.torch_version = torch_version.value_or("");
    out.device_types = device_types;
    out.triton_targets = triton_targets;
    return out;
}

SourceFacts source_facts(const MegaBundle& bundle) {
    SourceFacts facts;
    for (const auto& section : bundle.sections) {
        if (section.type != "inductor") {
            continue;
        }
        for (const auto& artifact : section.artifacts) {
            auto document = pickle::unpickle(artifact.content);
            if (!document) {
                continue;
            }
            auto entry = cachedir::read_fx_graph_entry(std::move(*document), artifact.key);
            if (entry) {
                read_facts(*entry, facts);
            }
        }
    }
    return facts;
}

bool looks_signed(std::string_view bytes) {
    return bytes.starts_with(kSignedBundleMagic);
}

Result<std::string> sign_bundle(std::string_view mega_bytes, const PrivateKey& key) {
    if (looks_signed(mega_bytes)) {
        return fail(ErrorKind::InvalidArgument, "the bundle is signed already");
    }
    auto bundle = decode_mega_cache(mega_bytes);
    if (!bundle) {
        return std::unexpected(bundle.error());
    }
    // The older forms (a type enum per artifact, a pickle) are signed as the
    // current one, which is what PyTorch loads today and what the check of
    // the payload against the manifest walks; the others go in unchanged.
    std::string reencoded;
    if (bundle->form != MegaBundle::Form::Crc32 && bundle->form != MegaBundle::Form::NoCrc) {
        reencoded = encode_mega_cache(*bundle);
        mega_bytes = reencoded;
    }
    Manifest manifest;
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    manifest.created =
        format_time(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count());
    manifest.signer_fingerprint = key.public_key().fingerprint();
    manifest.payload_size = mega_bytes.size();
    manifest.payload_sha256 = hash::sha256_hex(mega_bytes);
    manifest.source = source_facts(*bundle);
    for (const auto& section : bundle->sections) {
        for (const auto& artifact : section.artifacts) {
            manifest.artifacts.push_back({section.type, artifact.key, artifact.content.size(),
                                          hash::sha256_hex(artifact.content)});
        }
    }
    const std::string text = manifest_text(manifest);
    const std::string signature = key.sign(text);
    if (signature.size() != kSignatureSize) {
        return fail(ErrorKind::Io, "OpenSSL cannot sign the manifest");
    }
    std::string out;
    out.reserve(kSignedBundleMagic.size() + 16 + text.size() + signature.size() +
                mega_bytes.size());
    out += kSignedBundleMagic;
    put_u64(out, text.size());
    out += text;
    put_u64(out, signature.size());
    out += signature;
    out += mega_bytes;
    // What is handed out must verify: this catches a key or type the
    // manifest could not hold as it is (bytes that are not UTF-8).
    if (auto check = verify_signed_bundle(out, key.public_key()); !check) {
        Error error = check.error();
        error.message = "the signed bundle does not verify: " + error.message;
        return std::unexpected(std::move(error));
    }
    return out;
}

Result<SignedBundle> read_signed_bundle(std::string_view bytes, std::shared_ptr<const void> owner) {
    auto container = split_container(bytes);
    if (!container) {
        return std::unexpected(container.error());
    }
    auto manifest = parse_manifest(container->manifest);
    if (!manifest) {
        return std::unexpected(manifest.error());
    }
    return check_payload(*container, std::move(*manifest), std::move(owner));
}

Result<SignedBundle> verify_signed_bundle(std::string_view bytes, const PublicKey& trusted,
                                          std::shared_ptr<const void> owner) {
    auto container = split_container(bytes);
    if (!container) {
        return std::unexpected(container.error());
    }
    const std::string trusted_fingerprint = trusted.fingerprint();
    const bool signature_ok = trusted.verify(container->manifest, container->signature);
    // Read even when the signature fails, only to say whose it claims to be.
    auto manifest = parse_manifest(container->manifest);
    if (!signature_ok) {
        if (manifest && manifest->signer_fingerprint != trusted_fingerprint) {
            return fail(ErrorKind::Corrupt, "signature check failed: the manifest names signer " +
                                                manifest->signer_fingerprint +
                                                ", the trusted key is " + trusted_fingerprint);
        }
        return fail(ErrorKind::Corrupt,
                    "signature check failed: the signature does not match the manifest under the "
                    "trusted key " +
                        trusted_fingerprint + " (the manifest or the signature was changed)");
    }
    if (!manifest) {
        return std::unexpected(manifest.error());
    }
    if (manifest->signer_fingerprint != trusted_fingerprint) {
        return fail(ErrorKind::Corrupt, "the manifest names signer " +
                                            manifest->signer_fingerprint + " but was signed by " +
                                            trusted_fingerprint);
    }
    auto bundle = check_payload(*container, std::move(*manifest), std::move(owner));
    if (bundle) {
        bundle->signature_verified = true;
    }
    return bundle;
}

} // namespace cachelens::bundle
