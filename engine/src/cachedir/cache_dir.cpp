#include <cachelens/cachedir/cache_dir.h>

#include <sys/stat.h>

#include <algorithm>
#include <set>

namespace cachelens::cachedir {

namespace fs = std::filesystem;

namespace {

std::string_view file_name_of(std::string_view path) {
    const auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view parent_of(std::string_view path) {
    const auto slash = path.rfind('/');
    return slash == std::string_view::npos ? std::string_view{} : path.substr(0, slash);
}

constexpr std::string_view kAutotuneSuffix = ".autotune.json";

// triton/<device>/<hash>/<file> -> triton/<device>/<hash>
std::string_view triton_dir_of(std::string_view path) {
    return parent_of(path);
}

std::string entry_key(FileKind kind, std::string_view path) {
    const std::string_view name = file_name_of(path);
    switch (kind) {
    case FileKind::FxGraph:
    case FileKind::AotAutograd:
        return std::string(file_name_of(parent_of(path)));
    case FileKind::TritonAutotune:
        return std::string(file_name_of(parent_of(path)));
    case FileKind::SharedLibrary:
        // Triton's launchers are named alike in every hash dir: the dir tells them apart.
        if (const auto dir = file_name_of(parent_of(path)); is_triton_hash_dir_name(dir)) {
            return std::string(dir);
        }
        return std::string(stem_of(name));
    case FileKind::Module:
    case FileKind::CppSource:
    case FileKind::BestConfig:
    case FileKind::KernelPerf:
    case FileKind::Lock:
        return std::string(stem_of(name));
    case FileKind::BenchmarkCache:
        return std::string(name);
    case FileKind::Triton:
        return std::string(file_name_of(triton_dir_of(path)));
    default:
        return std::string(path);
    }
}

// fxgraph/<xx>/<key> or aotautograd/<key>: where PyTorch keeps a key's entries.
bool is_key_dir(std::string_view relative) {
    const auto parts = std::ranges::count(relative, '/');
    return (relative.starts_with("fxgraph/") && parts == 2) ||
           (relative.starts_with("aotautograd/") && parts == 1);
}

} // namespace

std::string_view stem_of(std::string_view file_name) {
    return file_name.substr(0, file_name.find('.'));
}

std::string module_key_from_path(std::string_view path) {
    const auto slash = path.rfind('/');
    std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (!name.ends_with(".py") || !name.starts_with('c')) {
        return {};
    }
    name.remove_suffix(3);
    return std::string(name);
}

Result<Scan> scan_cache_dir(const fs::path& root, const ProgressFn& progress) {
    std::error_code ec;
    const auto status = fs::symlink_status(root, ec);
    if (ec || !fs::exists(status)) {
        return fail(ErrorKind::NotFound, "no such cache dir", root.string());
    }
    if (!fs::is_directory(fs::status(root, ec))) {
        return fail(ErrorKind::InvalidArgument, "not a directory", root.string());
    }
    Scan scan;
    scan.root = root;
    constexpr std::size_t kFilesPerReport = 256;
    std::uint64_t bytes = 0;
    if (!report_progress(progress, {.stage = ProgressStage::Scanning,
                                    .unit = ProgressUnit::Files,
                                    .done = 0,
                                    .total = 0,
                                    .bytes = 0,
                                    .item = root.native()})) {
        return cancelled();
    }
    std::vector<std::string> key_dirs;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
    if (ec) {
        return fail(ErrorKind::Io, "cannot read the cache dir: " + ec.message(), root.string());
    }
    for (const fs::recursive_directory_iterator end; it != end; it.increment(ec)) {
        if (ec) {
            scan.errors.push_back(
                {ErrorKind::Io, "cannot read: " + ec.message(), it->path().string()});
            ec.clear();
            continue;
        }
        const fs::directory_entry& item = *it;
        const auto type = item.symlink_status(ec).type();
        if (type == fs::file_type::symlink) {
            scan.errors.push_back({ErrorKind::Unsupported,
                                   "symbolic link not followed (a cache dir holds none)",
                                   item.path().string()});
            continue;
        }
        if (type == fs::file_type::directory) {
            const std::string relative = item.path().lexically_relative(root).generic_string();
            if (is_key_dir(relative)) {
                key_dirs.push_back(relative);
            }
            continue;
        }
        if (type != fs::file_type::regular) {
            continue;
        }
        struct stat st {};
        if (::lstat(item.path().c_str(), &st) != 0) {
            continue; // vanished while we walked: PyTorch renames into place
        }
        FileRecord record;
        record.path = item.path().lexically_relative(root).generic_string();
        record.kind = classify(record.path);
        record.size = static_cast<std::uint64_t>(st.st_size);
        record.mtime_ns =
            static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
        record.inode = static_cast<std::uint64_t>(st.st_ino);
        bytes += record.size;
        scan.files.push_back(std::move(record));
        // Every few hundred files: a report per file would cost more than the walk.
        if (scan.files.size() % kFilesPerReport == 0 &&
            !report_progress(progress, {.stage = ProgressStage::Scanning,
                                        .unit = ProgressUnit::Files,
                                        .done = scan.files.size(),
                                        .total = 0,
                                        .bytes = bytes,
                                        .item = scan.files.back().path})) {
            return cancelled();
        }
    }
    if (!report_progress(progress, {.stage = ProgressStage::Scanning,
                                    .unit = ProgressUnit::Files,
                                    .done = scan.files.size(),
                                    .total = scan.files.size(),
                                    .bytes = bytes,
                                    .item = {}})) {
        return cancelled();
    }
    std::sort(scan.files.begin(), scan.files.end(),
              [](const FileRecord& a, const FileRecord& b) { return a.path < b.path; });
    std::set<std::string_view> with_entries;
    for (const FileRecord& file : scan.files) {
        if (file.kind == FileKind::FxGraph || file.kind == FileKind::AotAutograd) {
            with_entries.insert(parent_of(file.path));
        }
    }
    for (auto& dir : key_dirs) {
        if (!with_entries.contains(dir)) {
            scan.empty_key_dirs.push_back(std::move(dir));
        }
    }
    std::sort(scan.empty_key_dirs.begin(), scan.empty_key_dirs.end());
    return scan;
}

std::vector<Entry> Scan::entries() const {
    std::vector<Entry> out;
    out.reserve(files.size());
    for (const FileRecord& file : files) {
        if (file.kind == FileKind::Triton) {
            // Files are sorted by path, so a kernel dir's files are adjacent.
            const std::string_view dir = triton_dir_of(file.path);
            if (out.empty() || out.back().kind != FileKind::Triton || out.back().path != dir) {
                Entry entry;
                entry.kind = FileKind::Triton;
                entry.path = std::string(dir);
                entry.key = std::string(file_name_of(dir));
                entry.file_count = 0;
                out.push_back(std::move(entry));
            }
            Entry& entry = out.back();
            entry.size += file.size;
            entry.mtime_ns = std::max(entry.mtime_ns, file.mtime_ns);
            ++entry.file_count;
            const std::string_view name = file_name_of(file.path);
            if (name.ends_with(".json") && !name.starts_with("__grp__")) {
                entry.name = std::string(name.substr(0, name.size() - 5));
            } else if (entry.name.empty() && name.ends_with(".cubin")) {
                entry.name = std::string(name.substr(0, name.size() - 6));
            }
            continue;
        }
        Entry entry;
        entry.kind = file.kind;
        entry.key = entry_key(file.kind, file.path);
        entry.path = file.path;
        entry.size = file.size;
        entry.mtime_ns = file.mtime_ns;
        if (file.kind == FileKind::TritonAutotune) {
            const std::string_view name = file_name_of(file.path);
            entry.name = std::string(name.substr(0, name.size() - kAutotuneSuffix.size()));
        }
        out.push_back(std::move(entry));
    }
    return out;
}

RootLayout Scan::layout() const {
    bool hash_dirs = false;
    for (const FileRecord& file : files) {
        const std::string_view top = std::string_view(file.path).substr(0, file.path.find('/'));
        if (top.size() == file.path.size()) {
            continue; // a file at the top: neither layout has one
        }
        if (is_triton_hash_dir_name(top)) {
            hash_dirs = true;
        } else if (file.kind != FileKind::Temp && file.kind != FileKind::Unknown) {
            return RootLayout::Inductor;
        }
    }
    return hash_dirs ? RootLayout::Triton : RootLayout::Inductor;
}

std::map<FileKind, KindSummary> Scan::summary() const {
    std::map<FileKind, KindSummary> out;
    for (const FileRecord& file : files) {
        auto& summary = out[file.kind];
        ++summary.files;
        summary.bytes += file.size;
    }
    for (const Entry& entry : entries()) {
        ++out[entry.kind].entries;
    }
    return out;
}

EntryQuery::EntryQuery(const fs::path& root, std::string_view query)
    : query_(query)
    , relative_(query) {
    while (relative_.size() > 1 && relative_.ends_with('/')) {
        relative_.pop_back();
    }
    // An absolute path (or one spelled with the root) inside the cache dir.
    const fs::path as_path(relative_);
    if (as_path.is_absolute() || (!root.empty() && relative_.starts_with(root.string()))) {
        std::error_code ec;
        const fs::path absolute = fs::weakly_canonical(as_path, ec);
        const fs::path canonical_root = fs::weakly_canonical(root, ec);
        const fs::path inside = absolute.lexically_relative(canonical_root);
        if (!inside.empty() && !inside.string().starts_with("..")) {
            relative_ = inside.generic_string();
        }
    }
}

EntryQuery::Match EntryQuery::match(const Entry& entry) const {
    if (entry.path == relative_ ||
        (entry.kind == FileKind::Triton && relative_.starts_with(entry.path + "/"))) {
        return Match::Path;
    }
    const bool key_match = entry.key == query_;
    const bool name_match =
        (entry.kind == FileKind::Triton || entry.kind == FileKind::TritonAutotune) &&
        entry.name == query_;
    // A key dir (fxgraph/xx/<key>) names every entry under it.
    const bool dir_match =
        (entry.kind == FileKind::FxGraph || entry.kind == FileKind::AotAutograd) &&
        parent_of(entry.path) == relative_;
    return key_match || name_match || dir_match ? Match::Key : Match::None;
}

std::string EntryQuery::search_key() const {
    if (relative_.find('/') == std::string::npos) {
        return query_;
    }
    const FileKind kind = classify(relative_);
    if (kind != FileKind::Unknown && kind != FileKind::Temp) {
        return entry_key(kind, relative_);
    }
    // A key dir (fxgraph/xx/<key>, aotautograd/<key>) or a Triton kernel dir
    // (triton/<device>/<hash>, <hash> in a Triton cache): the key is its name.
    return std::string(file_name_of(relative_));
}

std::vector<Entry> find_entries(const Scan& scan, std::string_view query) {
    const EntryQuery wanted(scan.root, query);
    std::vector<Entry> matches;
    for (Entry& entry : scan.entries()) {
        if (wanted.match(entry) != EntryQuery::Match::None) {
            matches.push_back(std::move(entry));
        }
    }
    return matches;
}

Result<std::vector<Entry>> find_entries_or_key_prefix(const Scan& scan, std::string_view query) {
    auto matches = find_entries(scan, query);
    if (!matches.empty() || query.size() < kMinKeyPrefix ||
        query.find('/') != std::string_view::npos) {
        return matches;
    }
    std::set<std::string> keys;
    for (const Entry& entry : scan.entries()) {
        if (entry.key.starts_with(query)) {
            keys.insert(entry.key);
        }
    }
    if (keys.size() == 1) {
        return find_entries(scan, *keys.begin());
    }
    if (keys.size() > 1) {
        constexpr std::size_t kListed = 10;
        std::string listed;
        std::size_t shown = 0;
        for (const auto& key : keys) {
            if (shown++ == kListed) {
                listed += "\n  (and " + std::to_string(keys.size() - kListed) + " others)";
                break;
            }
            listed += "\n  " + key;
        }
        return fail(ErrorKind::InvalidArgument,
                    "'" + std::string(query) + "' is the start of " + std::to_string(keys.size()) +
                        " keys; give more of one:" + listed,
                    scan.root.string());
    }
    return matches;
}

std::string empty_key_dir_named(const Scan& scan, std::string_view query) {
    const EntryQuery wanted(scan.root, query);
    for (const auto& dir : scan.empty_key_dirs) {
        if (dir == wanted.relative() || file_name_of(dir) == query) {
            return dir;
        }
    }
    return {};
}

std::string no_entries_message(std::string_view key_dir) {
    return "no entries under key " + std::string(file_name_of(key_dir)) + " (its dir " +
           std::string(key_dir) + " is empty)";
}

std::string empty_key_dir_note(std::string_view key_dir) {
    return std::string(key_dir) + ": empty key dir (no entries), skipped";
}

} // namespace cachelens::cachedir
