#include <cachelens/bundle/staging.h>
#include <cachelens/catalog/catalog.h>
#include <cachelens/core/dir_handle.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/hash/sha256.h>

#include <algorithm>
#include <cctype>
#include <system_error>
#include <vector>

namespace cachelens::bundle {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kStagingNameLength = 16; // hex digits of the file's sha256
constexpr const char* kOriginFile = "origin";
constexpr const char* kReportFile = "report";
constexpr const char* kBundleDir = "bundle";
// A path or a report of problem lines; more is not a file staging wrote.
constexpr std::size_t kMaxRecordBytes = std::size_t{4} << 20;

// The staging dir (<base>/<hash>) when `root` is a staged root under `base`.
std::optional<fs::path> staging_dir_of(const fs::path& root, const fs::path& base) {
    const fs::path location = catalog::root_location(root);
    const fs::path base_location = catalog::root_location(base);
    const fs::path relative = location.lexically_relative(base_location);
    // <hash>/bundle/<name>: three components below the base.
    std::vector<std::string> parts;
    for (const auto& part : relative) {
        parts.push_back(part.string());
    }
    if (parts.size() != 3 || parts[1] != kBundleDir || parts[0].size() != kStagingNameLength ||
        !std::ranges::all_of(
            parts[0], [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; })) {
        return std::nullopt;
    }
    return base_location / parts[0];
}

// The base `root` was staged under, if it is a staged root: the origin and
// report are found beside any staging, not only one base's.
std::optional<fs::path> staging_dir_of(const fs::path& root) {
    const fs::path location = catalog::root_location(root);
    return staging_dir_of(root, location.parent_path().parent_path().parent_path());
}

std::optional<std::string> read_record(const fs::path& root, const char* name) {
    const auto dir = staging_dir_of(root);
    if (!dir) {
        return std::nullopt;
    }
    auto text = read_text_file(*dir / name, kMaxRecordBytes);
    if (!text) {
        return std::nullopt;
    }
    return std::move(*text);
}

} // namespace

StagingPaths staging_paths(const fs::path& base, const fs::path& file, std::string_view bytes) {
    StagingPaths paths;
    paths.dir = base / hash::sha256_hex(bytes).substr(0, kStagingNameLength);
    paths.root = paths.dir / kBundleDir / file.filename();
    paths.origin_file = paths.dir / kOriginFile;
    paths.report_file = paths.dir / kReportFile;
    return paths;
}

Result<void> prepare_staging(const StagingPaths& paths) {
    std::error_code error;
    fs::remove_all(paths.dir, error);
    if (error || !fs::create_directories(paths.root, error)) {
        return fail(ErrorKind::Io,
                    "cannot create the staging dir: " +
                        (error ? error.message() : std::string("it exists")),
                    paths.root.string());
    }
    return {};
}

Result<void> record_staging(const StagingPaths& paths, const fs::path& file,
                            std::string_view report) {
    // Staged files are as old as the bundle they came from, not the staging:
    // "Modified 1 s ago" on every artifact would say nothing.
    std::error_code error;
    const auto bundle_time = fs::last_write_time(file, error);
    if (!error) {
        for (auto it = fs::recursive_directory_iterator(paths.root, error);
             !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
            std::error_code ignored; // a file's time is cosmetic: never fail the staging
            if (it->is_regular_file(ignored)) {
                fs::last_write_time(it->path(), bundle_time, ignored);
            }
        }
    }
    if (auto written = replace_file_atomically(paths.origin_file, file.string()); !written) {
        return written;
    }
    return replace_file_atomically(paths.report_file, report);
}

bool is_staged_bundle(const fs::path& root, const fs::path& base) {
    return staging_dir_of(root, base).has_value();
}

std::optional<fs::path> staged_origin(const fs::path& root) {
    auto origin = read_record(root, kOriginFile);
    if (!origin || origin->empty()) {
        return std::nullopt;
    }
    return fs::path(*origin);
}

std::optional<std::string> staged_report(const fs::path& root) {
    return read_record(root, kReportFile);
}

} // namespace cachelens::bundle
