#include <cachelens/bundle/code_verdicts.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/core/dir_handle.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/core/work_dir.h>
#include <cachelens/hash/sha256.h>
#include <cachelens/serving/pack.h>
#include <cachelens/serving/piecewise.h>

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>

namespace cachelens::serving {

namespace fs = std::filesystem;

namespace {

using Json = nlohmann::ordered_json;

std::string now_utc() {
    const std::time_t now = std::time(nullptr);
    std::tm parts{};
    ::gmtime_r(&now, &parts);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
    return text;
}

std::string errno_text(int error) {
    return std::generic_category().message(error);
}

// A path inside a hash dir as an archive may name it: relative, '/'-separated,
// no empty, "." or ".." part, no NUL or backslash, of sane length.
bool is_safe_relative(std::string_view path) {
    if (path.empty() || path.size() > 4096 || path.front() == '/') {
        return false;
    }
    std::size_t start = 0;
    while (start <= path.size()) {
        const auto end = std::min(path.find('/', start), path.size());
        const std::string_view part = path.substr(start, end - start);
        if (part.empty() || part == "." || part == ".." || part.size() > 255 ||
            part.find('\0') != std::string_view::npos ||
            part.find('\\') != std::string_view::npos) {
            return false;
        }
        start = end + 1;
    }
    return true;
}

std::string archive_error(archive* handle) {
    const char* text = archive_error_string(handle);
    return text != nullptr ? text : "libarchive failed";
}

struct ArchiveWriter {
    archive* handle = archive_write_new();
    ~ArchiveWriter() { archive_write_free(handle); }
    std::string error() const { return archive_error(handle); }
    bool add(const std::string& name, std::string_view bytes, std::int64_t mtime) {
        archive_entry* entry = archive_entry_new();
        archive_entry_set_pathname(entry, name.c_str());
        archive_entry_set_size(entry, static_cast<la_int64_t>(bytes.size()));
        archive_entry_set_filetype(entry, AE_IFREG);
        archive_entry_set_perm(entry, 0644);
        archive_entry_set_mtime(entry, mtime, 0);
        bool ok = archive_write_header(handle, entry) == ARCHIVE_OK;
        std::size_t at = 0;
        while (ok && at < bytes.size()) {
            const std::size_t chunk =
                std::min<std::size_t>(bytes.size() - at, std::size_t{1} << 20);
            const la_ssize_t wrote = archive_write_data(handle, bytes.data() + at, chunk);
            ok = wrote > 0;
            at += ok ? static_cast<std::size_t>(wrote) : 0;
        }
        archive_entry_free(entry);
        return ok;
    }
};

struct ArchiveReader {
    archive* handle = archive_read_new();
    ~ArchiveReader() { archive_read_free(handle); }
    std::string error() const { return archive_error(handle); }
};

// Whether the files already at `dir` are those of the manifest, byte for byte.
bool same_files(const fs::path& root, const PackManifest& manifest) {
    std::size_t count = 0;
    std::error_code error;
    for (fs::recursive_directory_iterator it(root / manifest.hash_dir, error), end;
         !error && it != end; it.increment(error)) {
        if (it->is_regular_file(error) && !it->is_symlink(error)) {
            ++count;
        }
    }
    if (count != manifest.files.size()) {
        return false;
    }
    for (const auto& file : manifest.files) {
        auto mapped = MappedFile::open(root / file.path);
        if (!mapped || (*mapped)->size() != file.size ||
            hash::sha256_hex((*mapped)->bytes()) != file.sha256) {
            return false;
        }
    }
    return true;
}

// Writes one member's bytes to a new file in the staging dir, hashing them.
Result<std::string> stage_member(archive* reader, const fs::path& target, std::uint64_t size,
                                 std::uint64_t& staged, const ProgressFn& progress,
                                 std::uint64_t total) {
    std::error_code error;
    fs::create_directories(target.parent_path(), error);
    if (error) {
        return fail(ErrorKind::Io, "cannot make its dir: " + error.message(), target.string());
    }
    const int fd =
        ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        return fail(ErrorKind::Io, "cannot create: " + errno_text(errno), target.string());
    }
    hash::Sha256 digest;
    std::uint64_t got = 0;
    std::string buffer(std::size_t{1} << 20, '\0');
    while (true) {
        const la_ssize_t read = archive_read_data(reader, buffer.data(), buffer.size());
        if (read < 0) {
            ::close(fd);
            return fail(ErrorKind::Corrupt, archive_error(reader));
        }
        if (read == 0) {
            break;
        }
        got += static_cast<std::uint64_t>(read);
        if (got > size) {
            ::close(fd);
            return fail(ErrorKind::Corrupt, "holds more bytes than the manifest says");
        }
        const std::string_view chunk(buffer.data(), static_cast<std::size_t>(read));
        digest.update(chunk);
        for (std::size_t at = 0; at < chunk.size();) {
            const ssize_t wrote = ::write(fd, chunk.data() + at, chunk.size() - at);
            if (wrote < 0) {
                if (errno == EINTR) {
                    continue;
                }
                const int saved = errno;
                ::close(fd);
                return fail(ErrorKind::Io, "cannot write: " + errno_text(saved), target.string());
            }
            at += static_cast<std::size_t>(wrote);
        }
        staged += static_cast<std::uint64_t>(read);
        if (!report_progress(progress, {.stage = ProgressStage::Writing,
                                        .unit = ProgressUnit::Files,
                                        .done = staged,
                                        .total = total,
                                        .bytes = staged,
                                        .item = target.filename().string()})) {
            ::close(fd);
            return fail(ErrorKind::Cancelled, "stopped");
        }
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        return fail(ErrorKind::Io, "cannot write: " + errno_text(errno), target.string());
    }
    if (got != size) {
        return fail(ErrorKind::Truncated, "holds " + std::to_string(got) +
                                              " bytes where the manifest says " +
                                              std::to_string(size));
    }
    return hash::to_hex(digest.finish());
}

} // namespace

std::uint64_t PackManifest::bytes() const {
    std::uint64_t total = 0;
    for (const auto& file : files) {
        total += file.size;
    }
    return total;
}

std::string manifest_json(const PackManifest& manifest) {
    Json files = Json::array();
    for (const auto& file : manifest.files) {
        files.push_back({{"path", file.path}, {"size", file.size}, {"sha256", file.sha256}});
    }
    const Json json = {{"format", "cachelens-serving-pack"},
                       {"version", manifest.version},
                       {"stack", manifest.stack},
                       {"hash_dir", manifest.hash_dir},
                       {"created", manifest.created},
                       {"summary", manifest.summary},
                       {"files", std::move(files)}};
    return json.dump(1) + "\n";
}

Result<PackManifest> parse_manifest(std::string_view text) {
    const Json json = Json::parse(text, nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
        return fail(ErrorKind::Corrupt, "the manifest is not a JSON object");
    }
    // value() would throw on a "format" of another type: every field is typed first.
    const auto format = json.find("format");
    if (format == json.end() || !format->is_string() || *format != "cachelens-serving-pack") {
        return fail(ErrorKind::Corrupt, "not a cachelens pack of a serving cache dir");
    }
    if (!json.contains("version") || !json["version"].is_number_integer() || json["version"] != 1) {
        return fail(ErrorKind::Unsupported, "a pack of version " +
                                                json.value("version", Json()).dump() +
                                                ": this cachelens reads version 1");
    }
    PackManifest manifest;
    const auto string_field = [&](const char* name, std::string& out) -> bool {
        if (!json.contains(name) || !json[name].is_string()) {
            return false;
        }
        out = json[name].get<std::string>();
        return true;
    };
    if (!string_field("stack", manifest.stack) || !string_field("hash_dir", manifest.hash_dir) ||
        !string_field("created", manifest.created) || !json.contains("files") ||
        !json["files"].is_array()) {
        return fail(ErrorKind::Corrupt, "the manifest lacks stack, hash_dir, created or files");
    }
    string_field("summary", manifest.summary);
    if (manifest.stack != "vllm" && manifest.stack != "sglang") {
        return fail(ErrorKind::Corrupt,
                    "the manifest's stack is '" + manifest.stack + "', neither vllm nor sglang");
    }
    // One dir of the root (torch_aot_compile/<hash> is two), never a hidden
    // one: unpack's own staging dirs are hidden.
    if (!is_safe_relative(manifest.hash_dir) || std::ranges::count(manifest.hash_dir, '/') > 1 ||
        manifest.hash_dir.starts_with('.') || manifest.hash_dir.find("/.") != std::string::npos) {
        return fail(ErrorKind::Corrupt, "the manifest's hash dir '" + manifest.hash_dir +
                                            "' is not a dir name of a serving tree");
    }
    std::set<std::string> seen;
    for (const auto& item : json["files"]) {
        PackedFile file;
        if (!item.is_object() || !item.contains("path") || !item["path"].is_string() ||
            !item.contains("size") || !item["size"].is_number_unsigned() ||
            !item.contains("sha256") || !item["sha256"].is_string()) {
            return fail(ErrorKind::Corrupt, "a file of the manifest lacks path, size or sha256");
        }
        file.path = item["path"].get<std::string>();
        file.size = item["size"].get<std::uint64_t>();
        file.sha256 = item["sha256"].get<std::string>();
        if (!is_safe_relative(file.path) || !file.path.starts_with(manifest.hash_dir + "/")) {
            return fail(ErrorKind::Corrupt,
                        "the manifest names '" + file.path + "', outside " + manifest.hash_dir);
        }
        if (!seen.insert(file.path).second) {
            return fail(ErrorKind::Corrupt, "the manifest names '" + file.path + "' twice");
        }
        manifest.files.push_back(std::move(file));
    }
    std::ranges::sort(manifest.files, {}, &PackedFile::path);
    return manifest;
}

Result<PackResult> pack_hash_dir(const ServingTree& tree, const HashDir& dir,
                                 const fs::path& output, const bundle::PrivateKey* key,
                                 const ProgressFn& progress) {
    if (dir.path.empty()) {
        return fail(
            ErrorKind::InvalidArgument,
            "SGLang's eager cache has no hash dir to pack: pack its rank dirs' tree by hand");
    }
    std::error_code error;
    if (fs::exists(fs::symlink_status(output, error))) {
        return fail(ErrorKind::InvalidArgument, "already exists: remove it or name another file",
                    output.string());
    }
    // Every file of the dir, in path order; symlinks and special files refused.
    std::vector<std::pair<std::string, fs::path>> files;
    const fs::path base = tree.root / dir.path;
    for (fs::recursive_directory_iterator it(base, fs::directory_options::none, error), end;
         !error && it != end; it.increment(error)) {
        const auto status = it->symlink_status(error);
        if (fs::is_directory(status)) {
            continue;
        }
        const std::string relative =
            dir.path + "/" + it->path().lexically_relative(base).generic_string();
        if (!fs::is_regular_file(status)) {
            return fail(ErrorKind::InvalidArgument,
                        fs::is_symlink(status)
                            ? "a symlink: cachelens packs no link (its target may be anywhere)"
                            : "not a regular file",
                        (tree.root / relative).string());
        }
        files.emplace_back(relative, it->path());
    }
    if (error) {
        return fail(ErrorKind::Io, "cannot read the dir: " + error.message(), base.string());
    }
    std::ranges::sort(files);
    PackResult result;
    PackManifest& manifest = result.manifest;
    manifest.stack = std::string(to_string(tree.stack));
    manifest.hash_dir = dir.path;
    manifest.created = now_utc();
    // What the packed dir is, said of it alone.
    ServingTree alone;
    alone.root = tree.root;
    alone.stack = tree.stack;
    alone.hash_dirs.push_back(dir);
    manifest.summary = describe_tree_with_graphs(alone);
    // The manifest goes first, so its hashes are read before the files are
    // written; each file is mapped twice (hash, then write) rather than held.
    std::size_t done = 0;
    for (const auto& [relative, path] : files) {
        auto mapped = MappedFile::open(path, MappedFile::kDefaultMaxSize, Links::Refuse);
        if (!mapped) {
            return std::unexpected(mapped.error());
        }
        manifest.files.push_back(
            {relative, (*mapped)->size(), hash::sha256_hex((*mapped)->bytes())});
        if (!report_progress(progress, {.stage = ProgressStage::Reading,
                                        .unit = ProgressUnit::Files,
                                        .done = ++done,
                                        .total = files.size() * 2,
                                        .bytes = 0,
                                        .item = relative})) {
            return fail(ErrorKind::Cancelled, "stopped");
        }
    }
    const std::string manifest_text = manifest_json(manifest);
    // Streamed to a hidden temp file beside FILE and renamed into place: a
    // failure, a stop or a kill leaves no FILE (at most the temp file).
    auto streamed = StreamedFile::create(output);
    if (!streamed) {
        return std::unexpected(streamed.error());
    }
    {
        ArchiveWriter writer;
        if (archive_write_add_filter_zstd(writer.handle) != ARCHIVE_OK ||
            archive_write_set_format_pax_restricted(writer.handle) != ARCHIVE_OK ||
            archive_write_open_fd(writer.handle, streamed->fd()) != ARCHIVE_OK) {
            return std::unexpected(Error{ErrorKind::Io, writer.error(), output.string()});
        }
        const std::int64_t now = std::time(nullptr);
        if (!writer.add(std::string(kManifestMember), manifest_text, now)) {
            return std::unexpected(Error{ErrorKind::Io, writer.error(), output.string()});
        }
        if (key != nullptr) {
            const std::string signature = key->sign(manifest_text);
            if (signature.empty() || !writer.add(std::string(kSignatureMember), signature, now)) {
                return std::unexpected(
                    Error{ErrorKind::Io, "cannot sign the manifest", output.string()});
            }
            result.signer = key->public_key().fingerprint();
        }
        for (const auto& [relative, path] : files) {
            auto mapped = MappedFile::open(path, MappedFile::kDefaultMaxSize, Links::Refuse);
            if (!mapped) {
                return std::unexpected(mapped.error());
            }
            const auto listed = std::ranges::find(manifest.files, relative, &PackedFile::path);
            if ((*mapped)->size() != listed->size ||
                hash::sha256_hex((*mapped)->bytes()) != listed->sha256) {
                return std::unexpected(
                    Error{ErrorKind::Io, "changed while it was packed (a server still writing?)",
                          path.string()});
            }
            struct stat st {};
            const std::int64_t mtime = ::stat(path.c_str(), &st) == 0 ? st.st_mtim.tv_sec : now;
            if (!writer.add(std::string(kTreeMember) + relative, (*mapped)->bytes(), mtime)) {
                return std::unexpected(Error{ErrorKind::Io, writer.error(), output.string()});
            }
            if (!report_progress(progress, {.stage = ProgressStage::Reading,
                                            .unit = ProgressUnit::Files,
                                            .done = ++done,
                                            .total = files.size() * 2,
                                            .bytes = 0,
                                            .item = relative})) {
                return std::unexpected(Error{ErrorKind::Cancelled, "stopped", {}});
            }
        }
        if (archive_write_close(writer.handle) != ARCHIVE_OK) {
            return std::unexpected(Error{ErrorKind::Io, writer.error(), output.string()});
        }
    }
    auto placed = streamed->place(DirHandle::WriteMode::CreateOnly);
    if (!placed) {
        return std::unexpected(placed.error());
    }
    if (!*placed) {
        return fail(ErrorKind::InvalidArgument,
                    "already exists (made while packing): remove it or name another file",
                    output.string());
    }
    result.archive_bytes = fs::file_size(output, error);
    return result;
}

Result<UnpackReport> unpack_archive(const fs::path& archive_path, const UnpackOptions& options,
                                    const ProgressFn& progress) {
    const std::string name = archive_path.string();
    ArchiveReader reader;
    archive_read_support_filter_zstd(reader.handle);
    archive_read_support_format_tar(reader.handle);
    if (archive_read_open_filename(reader.handle, name.c_str(), std::size_t{1} << 16) !=
        ARCHIVE_OK) {
        return fail(ErrorKind::Corrupt,
                    "not a cachelens pack (a zstd-compressed tar): " + reader.error(), name);
    }
    UnpackReport report;
    archive_entry* entry = nullptr;
    // The manifest, then the signature when there is one.
    const auto read_small = [&](std::string_view expected,
                                std::size_t limit) -> Result<std::string> {
        const char* member = archive_entry_pathname(entry);
        if (member == nullptr || member != expected || archive_entry_filetype(entry) != AE_IFREG ||
            archive_entry_size(entry) < 0 ||
            static_cast<std::uint64_t>(archive_entry_size(entry)) > limit) {
            return fail(ErrorKind::Corrupt,
                        "not a cachelens pack: it does not start with " + std::string(expected),
                        name);
        }
        std::string bytes(static_cast<std::size_t>(archive_entry_size(entry)), '\0');
        if (archive_read_data(reader.handle, bytes.data(), bytes.size()) !=
            static_cast<la_ssize_t>(bytes.size())) {
            return fail(ErrorKind::Truncated, std::string(expected) + " is cut short", name);
        }
        return bytes;
    };
    if (archive_read_next_header(reader.handle, &entry) != ARCHIVE_OK) {
        return fail(ErrorKind::Corrupt, "not a cachelens pack: " + reader.error(), name);
    }
    auto manifest_text = read_small(kManifestMember, std::size_t{256} << 20);
    if (!manifest_text) {
        return std::unexpected(manifest_text.error());
    }
    auto manifest = parse_manifest(*manifest_text);
    if (!manifest) {
        return std::unexpected(std::move(manifest.error()).at(name));
    }
    report.manifest = std::move(*manifest);
    if (report.manifest.files.size() > options.max_files ||
        report.manifest.bytes() > options.max_bytes) {
        return fail(ErrorKind::LimitExceeded,
                    "the manifest lists " + std::to_string(report.manifest.files.size()) +
                        " files of " + std::to_string(report.manifest.bytes()) +
                        " bytes, over the limits",
                    name);
    }
    int status = archive_read_next_header(reader.handle, &entry);
    if (status == ARCHIVE_OK && archive_entry_pathname(entry) != nullptr &&
        archive_entry_pathname(entry) == kSignatureMember) {
        auto signature = read_small(kSignatureMember, 1024);
        if (!signature) {
            return std::unexpected(signature.error());
        }
        report.is_signed = true;
        if (options.require_signature != nullptr) {
            report.signature_verified =
                options.require_signature->verify(*manifest_text, *signature);
            if (!report.signature_verified) {
                return fail(ErrorKind::Corrupt,
                            "its signature does not verify with the key given (signed by another "
                            "key, or the manifest changed since): nothing unpacked",
                            name);
            }
            report.signer = options.require_signature->fingerprint();
        }
        status = archive_read_next_header(reader.handle, &entry);
    }
    if (options.require_signature != nullptr && !report.is_signed) {
        return fail(ErrorKind::Corrupt, "unsigned, and a signature is required: nothing unpacked",
                    name);
    }
    std::error_code error;
    // A root made here for a dry run or an unpack that fails goes again.
    const bool made_into = !fs::exists(options.into, error);
    fs::create_directories(options.into, error);
    if (error || !fs::is_directory(options.into, error)) {
        return fail(ErrorKind::Io, "cannot make the root to unpack into", options.into.string());
    }
    const fs::path into = fs::canonical(options.into, error);
    report.destination = (into / report.manifest.hash_dir).string();
    auto into_dir = DirHandle::open_root(into);
    if (!into_dir) {
        return std::unexpected(into_dir.error());
    }
    // A root made here goes again when nothing was unpacked into it (after
    // the staging dir below: guards go in reverse order).
    struct RemoveMadeRoot {
        fs::path made_root; // empty unless made here
        const bool* written;
        ~RemoveMadeRoot() {
            std::error_code ignored;
            if (!made_root.empty() && !*written) {
                fs::remove(made_root, ignored); // only when empty
            }
        }
    } made_root{made_into ? into : fs::path(), &report.written};
    // A staging dir of our own, locked while it exists: another unpack's (in
    // another container, on a shared volume) is never taken for stale.
    // Whatever happens from here, it goes.
    auto work = WorkDir::make(*into_dir, "unpack");
    if (!work) {
        return std::unexpected(work.error());
    }
    const fs::path staging = work->path();

    std::map<std::string, const PackedFile*> expected;
    for (const auto& file : report.manifest.files) {
        expected.emplace(file.path, &file);
    }
    std::uint64_t staged = 0;
    for (; status == ARCHIVE_OK; status = archive_read_next_header(reader.handle, &entry)) {
        const char* member = archive_entry_pathname(entry);
        const std::string path = member != nullptr ? member : "";
        if (!path.starts_with(kTreeMember) || !is_safe_relative(path.substr(kTreeMember.size()))) {
            return fail(ErrorKind::Corrupt,
                        "a member named '" + path +
                            "' would land outside the hash dir: nothing unpacked",
                        name);
        }
        const std::string relative = path.substr(kTreeMember.size());
        if (archive_entry_filetype(entry) != AE_IFREG || archive_entry_hardlink(entry) != nullptr ||
            archive_entry_symlink(entry) != nullptr) {
            return fail(ErrorKind::Corrupt,
                        "the member " + relative +
                            " is a link or special file, which cachelens never unpacks: nothing "
                            "unpacked",
                        name);
        }
        const auto found = expected.find(relative);
        if (found == expected.end()) {
            return fail(ErrorKind::Corrupt,
                        "the member " + relative + " is not in the manifest: nothing unpacked",
                        name);
        }
        const PackedFile& file = *found->second;
        auto sha = stage_member(reader.handle, staging / relative, file.size, staged, progress,
                                report.manifest.bytes());
        if (!sha) {
            Error failure = sha.error();
            if (failure.kind == ErrorKind::Cancelled) {
                return std::unexpected(failure);
            }
            failure.message = relative + ": " + failure.message + ": nothing unpacked";
            failure.path = name;
            return std::unexpected(std::move(failure));
        }
        if (*sha != file.sha256) {
            return fail(ErrorKind::Corrupt,
                        relative + ": its bytes hash to " + *sha +
                            ", not to the manifest's sha256: nothing unpacked",
                        name);
        }
        expected.erase(found);
    }
    if (status != ARCHIVE_EOF) {
        return fail(ErrorKind::Corrupt,
                    "unreadable after " + std::to_string(staged) + " bytes: " + reader.error() +
                        ": nothing unpacked",
                    name);
    }
    if (!expected.empty()) {
        return fail(ErrorKind::Truncated,
                    std::to_string(expected.size()) + " file(s) of the manifest are missing (" +
                        expected.begin()->first + ", ...): nothing unpacked",
                    name);
    }
    // The audit, as an import judges each file.
    auto scan = cachedir::scan_cache_dir(staging / report.manifest.hash_dir);
    if (!scan) {
        return std::unexpected(scan.error());
    }
    // The staged dir sits outside a tree: classify its files where they will sit.
    for (auto& file : scan->files) {
        file.kind = classify_serving_path(report.manifest.hash_dir + "/" + file.path);
    }
    auto verdicts = bundle::judge_cache_dir(*scan, progress);
    if (!verdicts) {
        return std::unexpected(verdicts.error());
    }
    safety::CodeTrust trust = options.trust;
    trust.signed_by_trusted_key = report.signature_verified;
    for (auto& verdict : *verdicts) {
        verdict.path = report.manifest.hash_dir + "/" + verdict.path;
        const bool findings_refused =
            verdict.check.verdict == safety::Verdict::CodeWithFindings &&
            safety::consent_for(verdict.check.findings, trust) == safety::CodeConsent::Refused;
        if (findings_refused || verdict.check.verdict == safety::Verdict::Unreadable) {
            report.refused.push_back(verdict.path);
        }
        report.code.push_back(std::move(verdict));
    }
    const fs::path destination = into / report.manifest.hash_dir;
    if (fs::exists(fs::symlink_status(destination, error))) {
        if (same_files(into, report.manifest)) {
            report.already_present = true;
            return report;
        }
        return fail(ErrorKind::InvalidArgument,
                    "already holds a different " + report.manifest.hash_dir +
                        ": remove it first (cachelens prune), or unpack into another root",
                    destination.string());
    }
    if (!report.refused.empty() || options.dry_run) {
        return report;
    }
    fs::create_directories(destination.parent_path(), error);
    // Every staged file and dir on the disk before the name points at them.
    if (::syncfs(work->dir().fd()) != 0) {
        return fail(ErrorKind::Io,
                    "cannot flush the unpacked files to the disk: " + errno_text(errno),
                    staging.string());
    }
    if (::renameat2(AT_FDCWD, (staging / report.manifest.hash_dir).c_str(), AT_FDCWD,
                    destination.c_str(), RENAME_NOREPLACE) != 0) {
        return fail(ErrorKind::Io, "cannot move the unpacked dir into place: " + errno_text(errno),
                    destination.string());
    }
    // The rename durable too (the move of the dir, its parents made above).
    (void)::syncfs(into_dir->fd());
    report.written = true;
    return report;
}

} // namespace cachelens::serving
