#include "big_endian.h"

#include <cachelens/bundle/mega_cache.h>
#include <cachelens/core/base64.h>
#include <cachelens/core/text.h>
#include <cachelens/pickle/access.h>
#include <cachelens/pickle/unpickler.h>

#include <array>
#include <cstdio>
#include <optional>

namespace cachelens::bundle {

namespace {

// Reads big-endian fields, every length checked against what is left.
class Reader {
public:
    // `owner` keeps `bytes` alive: contents are slices sharing it.
    Reader(std::string_view bytes, std::size_t base, std::shared_ptr<const void> owner)
        : bytes_(bytes)
        , base_(base)
        , owner_(std::move(owner)) {}

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

    // The next u64 without reading it; nullopt when fewer than 8 bytes are left.
    std::optional<std::uint64_t> peek_u64() const {
        if (left() < 8) {
            return std::nullopt;
        }
        std::uint64_t value = 0;
        for (std::size_t i = 0; i < 8; ++i) {
            value = (value << 8) | static_cast<std::uint8_t>(bytes_[at_ + i]);
        }
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

    // An artifact's content: sized(), as a slice of the owner's bytes.
    Result<SharedBytes> content() {
        auto bytes = sized("an artifact's content");
        if (!bytes) {
            return std::unexpected(bytes.error());
        }
        return SharedBytes(owner_, *bytes);
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
    std::shared_ptr<const void> owner_;
};

void put_sized(std::string& out, std::string_view bytes) {
    put_u64(out, bytes.size());
    out += bytes;
}

// What the type-enum form's u64 (and the pickle form's CacheArtifactType) stood for.
constexpr std::array<std::string_view, 4> kEnumTypes = {"inductor", "autotune", "aot_autograd",
                                                        "pgo"};

// Adds an artifact to the last section, or opens one when the type changes:
// the per-artifact forms become runs of one type, as the current form has.
void append_artifact(MegaBundle& bundle, std::string_view type, MegaArtifact artifact) {
    if (bundle.sections.empty() || bundle.sections.back().type != type) {
        bundle.sections.push_back({std::string(type), {}});
    }
    bundle.sections.back().artifacts.push_back(std::move(artifact));
}

bool is_printable_ascii(std::string_view text) {
    for (char c : text) {
        if (c < 0x20 || c > 0x7e) {
            return false;
        }
    }
    return true;
}

// A str of the type-enum form. PyTorch's BytesWriter.write_str of the time is
// read both ways: base64 when the strict decode succeeds and gives printable
// ASCII (which a real key then is), else the raw bytes when they are UTF-8. A
// raw FX key can be valid base64 too, but it decodes to binary, not text.
Result<std::string> enum_form_text(std::string_view raw, std::size_t at, const char* what) {
    if (auto decoded = base64_decode(raw); decoded && is_printable_ascii(*decoded)) {
        return std::move(*decoded);
    }
    if (is_valid_utf8(raw)) {
        return std::string(raw);
    }
    return fail(ErrorKind::Corrupt, "offset " + std::to_string(at) + ": " + what +
                                        " is neither base64 of text nor UTF-8");
}

// The type-enum form after its version: a flat run of (u64 type, str key,
// bytes content) until the end.
Result<MegaBundle> read_type_enum(Reader& reader, MegaBundle bundle) {
    bundle.form = MegaBundle::Form::TypeEnum;
    while (!reader.at_end()) {
        const std::size_t type_at = reader.offset();
        auto type = reader.u64("an artifact type");
        if (!type) {
            return std::unexpected(type.error());
        }
        if (*type >= kEnumTypes.size()) {
            return fail(ErrorKind::Corrupt,
                        "offset " + std::to_string(type_at) + ": artifact type " +
                            std::to_string(*type) +
                            " (the type-enum form has 0 inductor, 1 autotune, 2 aot_autograd, "
                            "3 pgo)");
        }
        const std::size_t key_at = reader.offset();
        auto raw_key = reader.sized("an artifact key");
        if (!raw_key) {
            return std::unexpected(raw_key.error());
        }
        auto key = enum_form_text(*raw_key, key_at, "an artifact key");
        if (!key) {
            return std::unexpected(key.error());
        }
        auto content = reader.content();
        if (!content) {
            return std::unexpected(content.error());
        }
        append_artifact(bundle, kEnumTypes[*type], {std::move(*key), std::move(*content)});
    }
    return bundle;
}

// The stream after the crc (or from the start, in the forms without one):
// the current form's sections, or the type-enum form's flat run.
Result<MegaBundle> read_stream(std::string_view stream, std::size_t base, MegaBundle::Form form,
                               const std::shared_ptr<const void>& owner) {
    Reader reader(stream, base, owner);
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
    // The current form starts with the length of a base64 type name (4 or
    // more); the type-enum form with a type of 0 to 3.
    if (const auto first = reader.peek_u64(); first && *first < kEnumTypes.size()) {
        return read_type_enum(reader, std::move(bundle));
    }
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
            auto content = reader.content();
            if (!content) {
                return std::unexpected(content.error());
            }
            section.artifacts.push_back({std::move(*key), std::move(*content)});
        }
        bundle.sections.push_back(std::move(section));
    }
    return bundle;
}

// ---- The pickle form (late 2024) ------------------------------------------
//
// pickle.dumps(OrderedSet([CacheArtifact(type, key, content), ...])), read as
// the neutral tree of the safe unpickler: nothing it names is imported or
// called. Only the names such a pickle holds are accepted, so one that
// REDUCEs os.system (or anything else) anywhere is refused as not a bundle.

using pickle::Kind;
using pickle::Value;

std::unexpected<Error> not_a_bundle(const std::string& why) {
    return fail(ErrorKind::Corrupt, "a pickle, but not a mega-cache bundle: " + why);
}

bool is_bundle_global(std::string_view module, std::string_view name) {
    // Protocol 2 pickles bytes as _codecs.encode(latin-1 text, "latin1"), b"" as bytes().
    if ((module == "_codecs" && name == "encode") ||
        ((module == "builtins" || module == "__builtin__") && name == "bytes")) {
        return true;
    }
    return module.starts_with("torch.") &&
           (name.ends_with("OrderedSet") || name.ends_with("CacheArtifact") ||
            name == "CacheArtifactType");
}

// Text that protocol 2 wrote for bytes (each byte a code point below 256) back
// into those bytes.
std::optional<std::string> latin1_bytes(std::string_view utf8) {
    std::string out;
    out.reserve(utf8.size());
    for (std::size_t i = 0; i < utf8.size(); ++i) {
        const auto c = static_cast<std::uint8_t>(utf8[i]);
        if (c < 0x80) {
            out += static_cast<char>(c);
            continue;
        }
        if ((c != 0xC2 && c != 0xC3) || i + 1 == utf8.size() ||
            (static_cast<std::uint8_t>(utf8[i + 1]) & 0xC0) != 0x80) {
            return std::nullopt;
        }
        out +=
            static_cast<char>(((c & 0x03) << 6) | (static_cast<std::uint8_t>(utf8[i + 1]) & 0x3F));
        ++i;
    }
    return out;
}

// A bytes value as any pickle protocol from 2 up writes it.
std::optional<std::string> bytes_of(const Value* v) {
    if (v == nullptr) {
        return std::nullopt;
    }
    if (v->is(Kind::Bytes) || v->is(Kind::ByteArray)) {
        return std::string(v->text());
    }
    if (!v->is(Kind::Object) || v->construction() != pickle::Construction::Reduce) {
        return std::nullopt;
    }
    const std::string callable = v->class_name();
    const auto args = pickle::elements_of(v->args());
    if (callable == "_codecs.encode" && args.size() == 2) {
        const auto text = pickle::str_of(args[0]);
        const auto encoding = pickle::str_of(args[1]);
        if (text && encoding && (*encoding == "latin1" || *encoding == "latin-1")) {
            return latin1_bytes(*text);
        }
    }
    if ((callable == "builtins.bytes" || callable == "__builtin__.bytes") && args.empty()) {
        return std::string();
    }
    return std::nullopt;
}

// The type of a pickled artifact: its `type` field (the CacheArtifactType
// enum, or a name), or for the per-type subclasses, their class.
Result<std::string_view> pickled_type(const Value& artifact, const std::string& label) {
    const Value* type = artifact.attribute("type");
    if (type == nullptr) {
        static constexpr std::pair<std::string_view, std::string_view> kSubclasses[] = {
            {"InductorCacheArtifact", "inductor"},
            {"AutotuneCacheArtifact", "autotune"},
            {"AOTAutogradCacheArtifact", "aot_autograd"},
            {"PGOCacheArtifact", "pgo"},
            {"PrecompileCacheArtifact", "precompile"}};
        const std::string name = artifact.class_name();
        for (const auto& [suffix, known] : kSubclasses) {
            if (name.ends_with("." + std::string(suffix))) {
                return known;
            }
        }
        return not_a_bundle(label + " has no type");
    }
    if (auto name = pickle::str_of(type)) {
        // Re-encoded, an empty type would read as the type-enum form.
        if (name->empty() || name->size() > 64) {
            return not_a_bundle(label + " has a type name of " + std::to_string(name->size()) +
                                " bytes");
        }
        return *name;
    }
    if (type->is(Kind::Object) && type->class_name().ends_with(".CacheArtifactType")) {
        const auto args = pickle::elements_of(type->args());
        const auto value = args.size() == 1 ? pickle::int_of(args[0]) : std::nullopt;
        if (value && *value >= 0 && *value < static_cast<std::int64_t>(kEnumTypes.size())) {
            return kEnumTypes[static_cast<std::size_t>(*value)];
        }
        return not_a_bundle(label + " has a CacheArtifactType other than 0 to 3");
    }
    return not_a_bundle(label + "'s type is a " + pickle::type_name(*type));
}

Result<MegaBundle> read_pickle_form(std::string_view bytes) {
    auto document = pickle::unpickle(bytes);
    if (!document) {
        return fail(document.error().kind,
                    "a pickle that does not decode (" + document.error().message + ")");
    }
    for (const auto& [module, name] : (*document)->globals) {
        if (!is_bundle_global(module, name)) {
            return not_a_bundle("it refers to " + std::string(module) + "." + std::string(name) +
                                ", which no PyTorch bundle does (cachelens never imports or "
                                "calls it)");
        }
    }
    const Value& root = (*document)->root();
    std::span<Value* const> items;
    if (root.is_sequence()) {
        items = root.items();
    } else if (root.is(Kind::Object) && root.class_name().ends_with("OrderedSet")) {
        items = pickle::elements_of(&root);
        // An OrderedSet that pickled through __getstate__ keeps its list there.
        if (items.empty() && root.state() != nullptr && root.state()->is_sequence()) {
            items = root.state()->items();
        }
    } else {
        return not_a_bundle("it holds a " + pickle::type_name(root) +
                            ", not an OrderedSet of CacheArtifact");
    }
    MegaBundle bundle;
    bundle.form = MegaBundle::Form::Pickle;
    // Each key and content is in the pickle once unless the pickle shares one
    // object between artifacts (a memo reference), which PyTorch never writes
    // and which would let a small file make a huge bundle.
    std::size_t copied = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const Value* item = items[i];
        const std::string label = "item " + std::to_string(i);
        if (!item->is(Kind::Object) || !item->class_name().ends_with("CacheArtifact")) {
            return not_a_bundle(label + " is a " + pickle::type_name(*item) +
                                ", not a CacheArtifact");
        }
        auto type = pickled_type(*item, label);
        if (!type) {
            return std::unexpected(type.error());
        }
        const auto key = pickle::str_of(item->attribute("key"));
        if (!key) {
            return not_a_bundle(label + " has no str key");
        }
        auto content = bytes_of(item->attribute("content"));
        if (!content) {
            return not_a_bundle(label + " (" + std::string(*key) + ") has no bytes content");
        }
        copied += key->size() + content->size();
        if (copied > bytes.size()) {
            return not_a_bundle("its artifacts' keys and contents add up to more than its " +
                                std::to_string(bytes.size()) +
                                " bytes: they share objects, which PyTorch never writes");
        }
        append_artifact(bundle, *type, {std::string(*key), std::move(*content)});
    }
    return bundle;
}

// ---- Not a bundle at all ----------------------------------------------------

// Older PyTorch wrote the version first, without a crc.
bool starts_like_no_crc_form(std::string_view bytes) {
    return bytes.size() >= 8 && read_u64(bytes, 0) == 1;
}

// PROTO 2 to 5 opens a pickle; a crc32 can start with 0x80 too, but then
// the version follows it.
bool starts_like_pickle_form(std::string_view bytes) {
    const bool version_after_crc = bytes.size() >= 12 && read_u64(bytes, 4) == 1;
    return !version_after_crc && bytes.size() >= 2 && static_cast<std::uint8_t>(bytes[0]) == 0x80 &&
           bytes[1] >= 2 && bytes[1] <= 5;
}

// Whether `bytes` could be (the start of) the crc form: a crc32, then the
// version, 1 (a later version is a small number too). A crc mismatch then
// means damage; anything else was never a bundle.
bool starts_like_crc_form(std::string_view bytes) {
    constexpr std::uint64_t kLargestVersion = 0xff;
    std::uint64_t version = 0;
    for (std::size_t i = 4; i < 12; ++i) {
        version = (version << 8) |
                  (i < bytes.size() ? static_cast<std::uint8_t>(bytes[i]) : std::uint64_t{0});
    }
    // A file cut inside the version is judged by the bytes it has.
    return bytes.size() > 4 && version <= kLargestVersion;
}

// "not a PyTorch cache bundle: it starts with 7b 0a 20 22 ... ("{\n "...)", so
// a JSON file or a random one is not reported as a damaged bundle.
std::unexpected<Error> not_a_mega_cache(std::string_view bytes) {
    if (bytes.empty()) {
        return fail(ErrorKind::Corrupt, "an empty file, not a PyTorch cache bundle");
    }
    const std::string_view head = bytes.substr(0, 12);
    std::string hex;
    std::string printable;
    for (char c : head) {
        char byte[4];
        std::snprintf(byte, sizeof byte, "%02x ",
                      static_cast<unsigned>(static_cast<unsigned char>(c)));
        hex += byte;
        printable += c >= 0x20 && c < 0x7f ? c : '.';
    }
    return fail(ErrorKind::Corrupt,
                "not a PyTorch cache bundle (torch.compiler.save_cache_artifacts()): it starts "
                "with " +
                    hex + "(\"" + printable + (bytes.size() > head.size() ? "\"...)" : "\")") +
                    ", where a bundle starts with a crc32 and the version 1 (00 00 00 00 00 00 "
                    "00 01), or is a pickle (80 02 to 80 05)");
}

} // namespace

std::size_t MegaBundle::artifact_count() const {
    std::size_t count = 0;
    for (const auto& section : sections) {
        count += section.artifacts.size();
    }
    return count;
}

std::string_view to_string(MegaBundle::Form form) {
    switch (form) {
    case MegaBundle::Form::Crc32:
        return "crc32";
    case MegaBundle::Form::NoCrc:
        return "no-crc";
    case MegaBundle::Form::TypeEnum:
        return "type-enum";
    case MegaBundle::Form::Pickle:
        return "pickle";
    }
    return "unknown";
}

bool looks_like_mega_cache(std::string_view bytes) {
    return starts_like_no_crc_form(bytes) || starts_like_pickle_form(bytes) ||
           starts_like_crc_form(bytes);
}

Result<MegaBundle> decode_mega_cache(std::string_view bytes, const MegaDecodeOptions& options) {
    if (options.owner == nullptr) {
        MegaDecodeOptions owned = options;
        auto copy = std::make_shared<const std::string>(bytes);
        owned.owner = copy;
        return decode_mega_cache(*copy, owned);
    }
    if (starts_like_no_crc_form(bytes)) {
        return read_stream(bytes, 0, MegaBundle::Form::NoCrc, options.owner);
    }
    if (starts_like_pickle_form(bytes)) {
        return read_pickle_form(bytes);
    }
    if (!starts_like_crc_form(bytes)) {
        return not_a_mega_cache(bytes);
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
    if (stored != computed && !options.check_crc) {
        auto bundle = read_stream(bytes.substr(4), 4, MegaBundle::Form::Crc32, options.owner);
        if (bundle) {
            bundle->crc_matches = false;
        }
        return bundle;
    }
    if (stored != computed) {
        char message[160];
        std::snprintf(message, sizeof message,
                      "crc32 mismatch: the bundle says %08x, its %zu bytes hash to %08x "
                      "(damaged or truncated)",
                      stored, bytes.size() - 4, computed);
        return fail(ErrorKind::Corrupt, message);
    }
    return read_stream(bytes.substr(4), 4, MegaBundle::Form::Crc32, options.owner);
}

EncodedMegaCache encode_mega_cache_pieces(const MegaBundle& bundle) {
    // The framing is sized up front, so that the views into it taken while it
    // fills stay valid: 4 bytes of crc, the version, per section its type and
    // count, per artifact its base64 key and the sizes.
    std::size_t framing = 4 + 8;
    std::size_t artifacts = 0;
    for (const auto& section : bundle.sections) {
        framing += 16 + (section.type.size() + 2) / 3 * 4;
        for (const auto& artifact : section.artifacts) {
            framing += 16 + (artifact.key.size() + 2) / 3 * 4;
            ++artifacts;
        }
    }
    EncodedMegaCache out;
    std::string& text = *out.framing_;
    text.reserve(framing);
    out.pieces_.reserve(2 + 2 * bundle.sections.size() + 2 * artifacts);
    std::size_t mark = 0;
    // The framing written since the last content, as one piece.
    auto cut = [&] {
        if (text.size() > mark) {
            out.pieces_.emplace_back(text.data() + mark, text.size() - mark);
            mark = text.size();
        }
    };
    text.assign(4, '\0');
    put_u64(text, bundle.version);
    for (const auto& section : bundle.sections) {
        put_sized(text, base64_encode(section.type));
        put_u64(text, section.artifacts.size());
        for (const auto& artifact : section.artifacts) {
            put_sized(text, base64_encode(artifact.key));
            put_u64(text, artifact.content.size());
            cut();
            if (!artifact.content.empty()) {
                out.pieces_.push_back(artifact.content.view());
            }
        }
    }
    cut();
    // The crc covers everything after its own 4 bytes.
    std::uint32_t crc = crc32_update(0, out.pieces_.front().substr(4));
    for (std::size_t i = 1; i < out.pieces_.size(); ++i) {
        crc = crc32_update(crc, out.pieces_[i]);
    }
    for (int i = 0; i < 4; ++i) {
        text[static_cast<std::size_t>(i)] = static_cast<char>((crc >> (24 - 8 * i)) & 0xff);
    }
    for (const auto piece : out.pieces_) {
        out.size_ += piece.size();
    }
    return out;
}

std::string encode_mega_cache(const MegaBundle& bundle) {
    const EncodedMegaCache encoded = encode_mega_cache_pieces(bundle);
    std::string stream;
    stream.reserve(encoded.size());
    for (const auto piece : encoded.pieces()) {
        stream += piece;
    }
    return stream;
}

} // namespace cachelens::bundle
