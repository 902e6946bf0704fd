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
    case FileKind::Module:
    case FileKind::CppSource:
    case FileKind::SharedLibrary:
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

// `query` relative to the root when it is a path inside it (absolute, or
// spelled with the root), without a trailing '/'.
std::string relative_query(const Scan& scan, std::string_view query) {
    std::string relative(query);
    const fs::path as_path(relative);
    if (as_path.is_absolute() || relative.starts_with(scan.root.string())) {
        std::error_code ec;
        const fs::path absolute = fs::weakly_canonical(as_path, ec);
        const fs::path root = fs::weakly_canonical(scan.root, ec);
        const fs::path inside = absolute.lexically_relative(root);
        if (!inside.empty() && !inside.string().starts_with("..")) {
            relative = inside.generic_string();
        }
    }
    while (relative.ends_with('/')) {
        relative.pop_back();
    }
    return relative;
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

Result<Scan> scan_cache_dir(const fs::path& root) {
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
        scan.files.push_back(std::move(record));
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
        out.push_back(std::move(entry));
    }
    return out;
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

std::vector<Entry> find_entries(const Scan& scan, std::string_view query) {
    const std::string relative = relative_query(scan, query);
    std::vector<Entry> matches;
    for (Entry& entry : scan.entries()) {
        const bool path_match = entry.path == relative || (entry.kind == FileKind::Triton &&
                                                           relative.starts_with(entry.path + "/"));
        const bool key_match = entry.key == query;
        const bool name_match = entry.kind == FileKind::Triton && entry.name == query;
        // A key dir (fxgraph/xx/<key>) names every entry under it.
        const bool dir_match =
            (entry.kind == FileKind::FxGraph || entry.kind == FileKind::AotAutograd) &&
            parent_of(entry.path) == relative;
        if (path_match || key_match || name_match || dir_match) {
            matches.push_back(std::move(entry));
        }
    }
    return matches;
}

std::string empty_key_dir_named(const Scan& scan, std::string_view query) {
    const std::string relative = relative_query(scan, query);
    for (const auto& dir : scan.empty_key_dirs) {
        if (dir == relative || file_name_of(dir) == query) {
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
