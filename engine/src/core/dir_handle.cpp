#include <cachelens/core/dir_handle.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <variant>

namespace cachelens {

namespace {

std::string system_message(int error) {
    return std::strerror(error);
}

std::string joined(const std::string& dir, std::string_view name) {
    return dir + (dir.ends_with('/') ? "" : "/") + std::string(name);
}

} // namespace

bool is_plain_name(std::string_view name) {
    return !name.empty() && name != "." && name != ".." &&
           name.find_first_of(std::string_view("/\0", 2)) == std::string_view::npos;
}

DirHandle::DirHandle(int fd, std::string path)
    : fd_(fd)
    , path_(std::move(path)) {}

DirHandle::DirHandle(DirHandle&& other) noexcept
    : fd_(std::exchange(other.fd_, -1))
    , path_(std::move(other.path_)) {}

DirHandle& DirHandle::operator=(DirHandle&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) {
            ::close(fd_);
        }
        fd_ = std::exchange(other.fd_, -1);
        path_ = std::move(other.path_);
    }
    return *this;
}

DirHandle::~DirHandle() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
}

Result<DirHandle> DirHandle::open_root(const std::filesystem::path& root) {
    const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        const int error = errno;
        return fail(error == ENOENT ? ErrorKind::NotFound : ErrorKind::Io,
                    "cannot open the directory: " + system_message(error), root.string());
    }
    return DirHandle(fd, root.string());
}

Result<DirHandle> DirHandle::open_beneath(std::string_view relative) const {
    if (relative.starts_with('/')) {
        return fail(ErrorKind::InvalidArgument, "an absolute path where one inside it was expected",
                    joined(path_, relative));
    }
    int fd = ::dup(fd_);
    std::string path = path_;
    while (!relative.empty()) {
        const auto slash = relative.find('/');
        const std::string name(relative.substr(0, slash));
        relative =
            slash == std::string_view::npos ? std::string_view() : relative.substr(slash + 1);
        path = joined(path, name);
        if (!is_plain_name(name)) {
            ::close(fd);
            return fail(ErrorKind::InvalidArgument,
                        "'" + name + "' is not a directory name: the path would leave the root",
                        path);
        }
        const int next =
            ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        const int error = errno;
        ::close(fd);
        if (next < 0) {
            if (error == ELOOP || error == ENOTDIR) {
                return fail(ErrorKind::InvalidArgument,
                            "not a directory (a symlink is never followed out of the root)", path);
            }
            return fail(error == ENOENT ? ErrorKind::NotFound : ErrorKind::Io,
                        "cannot open the directory: " + system_message(error), path);
        }
        fd = next;
    }
    return DirHandle(fd, std::move(path));
}

Result<DirHandle> DirHandle::make_beneath(std::string_view relative) const {
    if (relative.starts_with('/')) {
        return fail(ErrorKind::InvalidArgument, "an absolute path where one inside it was expected",
                    joined(path_, relative));
    }
    auto dir = open_beneath("");
    if (!dir) {
        return dir;
    }
    while (!relative.empty()) {
        const auto slash = relative.find('/');
        const std::string_view name = relative.substr(0, slash);
        relative =
            slash == std::string_view::npos ? std::string_view() : relative.substr(slash + 1);
        if (is_plain_name(name) && ::mkdirat(dir->fd_, std::string(name).c_str(), 0755) != 0 &&
            errno != EEXIST) {
            const int error = errno;
            return fail(ErrorKind::Io, "cannot create the directory: " + system_message(error),
                        joined(dir->path_, name));
        }
        auto next = dir->open_beneath(name);
        if (!next) {
            return next;
        }
        dir = std::move(next);
    }
    return dir;
}

Result<std::optional<std::string>> DirHandle::read_file(std::string_view name,
                                                        std::size_t max_size) const {
    const std::string file(name);
    if (!is_plain_name(file)) {
        return fail(ErrorKind::InvalidArgument, "not a file name", joined(path_, file));
    }
    const int fd = ::openat(fd_, file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        const int error = errno;
        if (error == ENOENT) {
            return std::optional<std::string>();
        }
        return fail(ErrorKind::Io,
                    error == ELOOP ? std::string("a symlink, never followed")
                                   : "cannot open: " + system_message(error),
                    joined(path_, file));
    }
    struct stat info {};
    std::optional<std::string> bytes;
    std::string problem;
    if (::fstat(fd, &info) != 0) {
        problem = "cannot stat: " + system_message(errno);
    } else if (!S_ISREG(info.st_mode)) {
        problem = "not a regular file";
    } else if (static_cast<std::size_t>(info.st_size) > max_size) {
        problem = "larger than " + std::to_string(max_size) + " bytes";
    } else {
        bytes.emplace(static_cast<std::size_t>(info.st_size), '\0');
        std::size_t done = 0;
        while (done < bytes->size()) {
            const ssize_t n = ::read(fd, bytes->data() + done, bytes->size() - done);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                problem = n < 0 ? "cannot read: " + system_message(errno)
                                : std::string("shrank while being read");
                break;
            }
            done += static_cast<std::size_t>(n);
        }
    }
    ::close(fd);
    if (!problem.empty()) {
        return fail(ErrorKind::Io, problem, joined(path_, file));
    }
    return bytes;
}

namespace {

std::string temp_name_for(std::string_view name) {
    return "." + std::string(name) + "." + std::to_string(::getpid()) + ".tmp";
}

enum class Flush { File, WritebackOnly };

struct TempFileProblem {
    std::string message;     // empty: written
    bool names_temp = false; // the temp file could not be made (else the file could not be written)
};

// Creates `temp` in `dir_fd` with `bytes`. Flush::File fsyncs it;
// WritebackOnly starts its writeback without waiting (a later syncfs waits
// for it). On failure the temp file is removed and the problem says why.
TempFileProblem write_temp_file(int dir_fd, const std::string& temp,
                                std::span<const std::string_view> pieces, mode_t permissions,
                                Flush flush) {
    const int fd = ::openat(dir_fd, temp.c_str(),
                            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions);
    if (fd < 0) {
        return {"cannot create a temp file: " + system_message(errno), true};
    }
    // The umask must not narrow what the caller asked for.
    (void)::fchmod(fd, permissions);
    std::string problem;
    // writev of up to 1024 pieces at a time (Linux's IOV_MAX); a short write
    // resumes inside the piece it stopped in.
    constexpr std::size_t kMostPieces = 1024;
    std::size_t piece = 0;
    std::size_t offset = 0; // into pieces[piece]
    std::vector<iovec> batch;
    while (piece < pieces.size()) {
        batch.clear();
        for (std::size_t i = piece; i < pieces.size() && batch.size() < kMostPieces; ++i) {
            const std::size_t skip = i == piece ? offset : 0;
            if (pieces[i].size() > skip) {
                batch.push_back(
                    {const_cast<char*>(pieces[i].data() + skip), pieces[i].size() - skip});
            }
        }
        if (batch.empty()) {
            break;
        }
        const ssize_t n = ::writev(fd, batch.data(), static_cast<int>(batch.size()));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            problem = "cannot write: " + system_message(n < 0 ? errno : ENOSPC);
            break;
        }
        auto left = static_cast<std::size_t>(n);
        while (piece < pieces.size() && left >= pieces[piece].size() - offset) {
            left -= pieces[piece].size() - offset;
            ++piece;
            offset = 0;
        }
        offset += left;
    }
    if (problem.empty() && flush == Flush::File && ::fsync(fd) != 0) {
        problem = "cannot write: " + system_message(errno);
    }
    if (problem.empty() && flush == Flush::WritebackOnly) {
        // A hint: the data goes to the disk while the next files are written,
        // so that the batch's syncfs has little left to wait for.
        (void)::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    }
    if (::close(fd) != 0 && problem.empty()) {
        problem = "cannot write: " + system_message(errno);
    }
    if (!problem.empty()) {
        (void)::unlinkat(dir_fd, temp.c_str(), 0);
    }
    return {problem, false};
}

// Renames `temp` to `name` in `dir_fd`: true when placed, false when
// CreateOnly found `name` there (the temp file is then removed), else the
// errno of the failure (the temp file removed too).
std::variant<bool, int> place_temp_file(int dir_fd, const std::string& temp,
                                        const std::string& name, DirHandle::WriteMode mode) {
    int renamed = mode == DirHandle::WriteMode::Replace
                      ? ::renameat(dir_fd, temp.c_str(), dir_fd, name.c_str())
                      : ::renameat2(dir_fd, temp.c_str(), dir_fd, name.c_str(), RENAME_NOREPLACE);
    if (renamed != 0 && mode == DirHandle::WriteMode::CreateOnly &&
        (errno == EINVAL || errno == ENOSYS)) {
        // A file system without RENAME_NOREPLACE: a hard link refuses to
        // replace too, and the temp name goes after it.
        renamed = ::linkat(dir_fd, temp.c_str(), dir_fd, name.c_str(), 0);
        if (renamed == 0) {
            (void)::unlinkat(dir_fd, temp.c_str(), 0);
        }
    }
    if (renamed == 0) {
        return true;
    }
    const int error = errno;
    (void)::unlinkat(dir_fd, temp.c_str(), 0);
    if (error == EEXIST) {
        return false;
    }
    return error;
}

} // namespace

Result<bool> DirHandle::write_file(std::string_view name, std::string_view bytes, WriteMode mode,
                                   mode_t permissions) const {
    return write_file(name, std::span(&bytes, 1), mode, permissions);
}

Result<bool> DirHandle::write_file(std::string_view name, std::span<const std::string_view> pieces,
                                   WriteMode mode, mode_t permissions) const {
    const std::string file(name);
    if (!is_plain_name(file)) {
        return fail(ErrorKind::InvalidArgument, "not a file name", joined(path_, file));
    }
    const std::string temp = temp_name_for(file);
    if (auto problem = write_temp_file(fd_, temp, pieces, permissions, Flush::File);
        !problem.message.empty()) {
        return fail(ErrorKind::Io, problem.message,
                    joined(path_, problem.names_temp ? temp : file));
    }
    const auto placed = place_temp_file(fd_, temp, file, mode);
    if (const int* error = std::get_if<int>(&placed)) {
        return fail(ErrorKind::Io,
                    "cannot rename the new file into place: " + system_message(*error),
                    joined(path_, file));
    }
    if (std::get<bool>(placed)) {
        (void)::fsync(fd_);
    }
    return std::get<bool>(placed);
}

DurableWriteBatch::~DurableWriteBatch() {
    discard();
}

void DurableWriteBatch::discard() {
    for (const auto& file : files_) {
        (void)::unlinkat(file.dir_fd, file.temp.c_str(), 0);
        ::close(file.dir_fd);
    }
    files_.clear();
    bytes_ = 0;
}

Result<void> DurableWriteBatch::stage(const DirHandle& dir, std::string_view name,
                                      std::string_view bytes, DirHandle::WriteMode mode,
                                      mode_t permissions) {
    const std::string file(name);
    if (!is_plain_name(file)) {
        return fail(ErrorKind::InvalidArgument, "not a file name", joined(dir.path(), file));
    }
    StagedFile staged{.dir_fd = ::fcntl(dir.fd(), F_DUPFD_CLOEXEC, 0),
                      .dir_path = dir.path(),
                      .name = file,
                      .temp = temp_name_for(file),
                      .mode = mode};
    if (staged.dir_fd < 0) {
        return fail(ErrorKind::Io, "cannot hold the directory open: " + system_message(errno),
                    dir.path());
    }
    if (auto problem = write_temp_file(staged.dir_fd, staged.temp, std::span(&bytes, 1),
                                       permissions, Flush::WritebackOnly);
        !problem.message.empty()) {
        ::close(staged.dir_fd);
        return fail(ErrorKind::Io, problem.message,
                    joined(dir.path(), problem.names_temp ? staged.temp : file));
    }
    bytes_ += bytes.size();
    files_.push_back(std::move(staged));
    return {};
}

std::vector<Result<bool>> DurableWriteBatch::commit() {
    std::vector<Result<bool>> outcomes;
    outcomes.reserve(files_.size());
    if (files_.empty()) {
        return outcomes;
    }
    // Every temp file's bytes on the disk before any name points at them:
    // one flush of the filesystem instead of an fsync per file.
    if (::syncfs(files_.front().dir_fd) != 0) {
        const std::string problem =
            "cannot flush the new files to the disk: " + system_message(errno);
        for (const auto& file : files_) {
            outcomes.push_back(fail(ErrorKind::Io, problem, joined(file.dir_path, file.name)));
        }
        discard();
        return outcomes;
    }
    bool renamed_any = false;
    for (const auto& file : files_) {
        const auto placed = place_temp_file(file.dir_fd, file.temp, file.name, file.mode);
        if (const int* error = std::get_if<int>(&placed)) {
            outcomes.push_back(fail(
                ErrorKind::Io, "cannot rename the new file into place: " + system_message(*error),
                joined(file.dir_path, file.name)));
        } else {
            renamed_any = renamed_any || std::get<bool>(placed);
            outcomes.push_back(std::get<bool>(placed));
        }
    }
    // The names (and the directories made for them) durable: one more flush
    // instead of an fsync per directory. A failure here cannot take back a
    // rename, and the files are whole either way.
    if (renamed_any) {
        (void)::syncfs(files_.front().dir_fd);
    }
    for (const auto& file : files_) {
        ::close(file.dir_fd);
    }
    files_.clear();
    bytes_ = 0;
    return outcomes;
}

Result<struct stat> DirHandle::stat_entry(std::string_view name) const {
    const std::string file(name);
    if (!is_plain_name(file)) {
        return fail(ErrorKind::InvalidArgument, "not a file name", joined(path_, file));
    }
    struct stat info {};
    if (::fstatat(fd_, file.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
        const int error = errno;
        return fail(error == ENOENT ? ErrorKind::NotFound : ErrorKind::Io,
                    "cannot stat: " + system_message(error), joined(path_, file));
    }
    return info;
}

Result<void> DirHandle::remove_file(std::string_view name) const {
    const std::string file(name);
    if (!is_plain_name(file)) {
        return fail(ErrorKind::InvalidArgument, "not a file name", joined(path_, file));
    }
    if (::unlinkat(fd_, file.c_str(), 0) != 0) {
        const int error = errno;
        return fail(error == ENOENT ? ErrorKind::NotFound : ErrorKind::Io,
                    "cannot delete: " + system_message(error), joined(path_, file));
    }
    return {};
}

Result<bool> DirHandle::remove_empty_dir(std::string_view name) const {
    const std::string dir(name);
    if (!is_plain_name(dir)) {
        return fail(ErrorKind::InvalidArgument, "not a directory name", joined(path_, dir));
    }
    if (::unlinkat(fd_, dir.c_str(), AT_REMOVEDIR) != 0) {
        const int error = errno;
        if (error == ENOTEMPTY || error == EEXIST) {
            return false;
        }
        return fail(error == ENOENT ? ErrorKind::NotFound : ErrorKind::Io,
                    "cannot remove the directory: " + system_message(error), joined(path_, dir));
    }
    return true;
}

Result<std::vector<std::string>> DirHandle::subdir_names() const {
    // A descriptor of its own: readdir through a dup would move this one's offset.
    const int fd = ::openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* dir = fd < 0 ? nullptr : ::fdopendir(fd);
    if (dir == nullptr) {
        const int error = errno;
        if (fd >= 0) {
            ::close(fd);
        }
        return fail(ErrorKind::Io, "cannot read the directory: " + system_message(error), path_);
    }
    std::vector<std::string> names;
    while (const dirent* item = ::readdir(dir)) {
        const std::string name(item->d_name);
        if (!is_plain_name(name)) {
            continue;
        }
        bool is_dir = item->d_type == DT_DIR;
        if (item->d_type == DT_UNKNOWN) {
            struct stat info {};
            is_dir = ::fstatat(fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 &&
                     S_ISDIR(info.st_mode);
        }
        if (is_dir) {
            names.push_back(name);
        }
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    return names;
}

Result<StreamedFile> StreamedFile::create(const std::filesystem::path& file, mode_t permissions) {
    const auto parent = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
    const std::string name = file.filename().string();
    if (!is_plain_name(name)) {
        return fail(ErrorKind::InvalidArgument, "not a file name", file.string());
    }
    auto dir = DirHandle::open_root(parent);
    if (!dir) {
        return std::unexpected(dir.error());
    }
    StreamedFile streamed(std::move(*dir), name);
    streamed.fd_ = ::openat(streamed.dir_->fd(), streamed.temp_.c_str(),
                            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions);
    if (streamed.fd_ < 0) {
        return fail(ErrorKind::Io, "cannot create a temp file: " + system_message(errno),
                    joined(streamed.dir_->path(), streamed.temp_));
    }
    // The umask must not narrow what the caller asked for.
    (void)::fchmod(streamed.fd_, permissions);
    return streamed;
}

StreamedFile::StreamedFile(DirHandle dir, std::string name)
    : dir_(std::move(dir))
    , name_(std::move(name))
    , temp_(temp_name_for(name_)) {}

StreamedFile::StreamedFile(StreamedFile&& other) noexcept
    : dir_(std::move(other.dir_))
    , name_(std::move(other.name_))
    , temp_(std::move(other.temp_))
    , fd_(std::exchange(other.fd_, -1)) {
    other.dir_.reset();
}

StreamedFile::~StreamedFile() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
    if (dir_) {
        (void)::unlinkat(dir_->fd(), temp_.c_str(), 0);
    }
}

std::string StreamedFile::path() const {
    return dir_ ? joined(dir_->path(), name_) : name_;
}

Result<bool> StreamedFile::place(DirHandle::WriteMode mode) {
    if (!dir_ || fd_ < 0) {
        return fail(ErrorKind::InvalidArgument, "placed already", path());
    }
    const bool synced = ::fsync(fd_) == 0;
    const int sync_error = errno;
    const bool closed = ::close(std::exchange(fd_, -1)) == 0;
    if (!synced || !closed) {
        return fail(ErrorKind::Io, "cannot write: " + system_message(synced ? errno : sync_error),
                    joined(dir_->path(), temp_));
    }
    const auto placed = place_temp_file(dir_->fd(), temp_, name_, mode);
    const DirHandle dir = std::move(*dir_);
    dir_.reset(); // the temp name is gone either way
    if (const int* error = std::get_if<int>(&placed)) {
        return fail(ErrorKind::Io,
                    "cannot rename the new file into place: " + system_message(*error),
                    joined(dir.path(), name_));
    }
    if (std::get<bool>(placed)) {
        (void)::fsync(dir.fd());
    }
    return std::get<bool>(placed);
}

Result<void> replace_file_atomically(const std::filesystem::path& file, std::string_view bytes) {
    return replace_file_atomically(file, std::span(&bytes, 1));
}

Result<void> replace_file_atomically(const std::filesystem::path& file,
                                     std::span<const std::string_view> pieces) {
    const auto parent = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
    auto dir = DirHandle::open_root(parent);
    if (!dir) {
        return std::unexpected(dir.error());
    }
    auto written = dir->write_file(file.filename().string(), pieces, DirHandle::WriteMode::Replace);
    if (!written) {
        return std::unexpected(written.error());
    }
    return {};
}

} // namespace cachelens
