// The one way cachelens writes a file (DirHandle::write_file,
// DurableWriteBatch, StreamedFile, replace_file_atomically): a temp file
// beside the destination, made durable, then linked in (CreateOnly) or
// swapped with exactly the file that was checked (Replace). Everything is
// relative to a held directory descriptor; no name is followed as a symlink.

#include "dir_handle_detail.h"

#include <cachelens/core/dir_handle.h>
#include <cachelens/core/test_seams.h>

#include <fcntl.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <map>
#include <utility>
#include <variant>

namespace cachelens {

using detail::joined;
using detail::random_suffix;
using detail::system_message;

// 16 hex digits: two processes (two containers, both pid 1) never pick one
// temp name, and a temp name left by a killed run blocks nobody.
std::string detail::random_suffix() {
    std::uint64_t value = 0;
    if (::getrandom(&value, sizeof value, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof value)) {
        // No entropy yet (early boot): the clock and pid still differ per call.
        value = static_cast<std::uint64_t>(
                    std::chrono::steady_clock::now().time_since_epoch().count()) ^
                (static_cast<std::uint64_t>(::getpid()) << 32);
    }
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out(16, '0');
    for (char& digit : out) {
        digit = kHex[value & 0xf];
        value >>= 4;
    }
    return out;
}

FileIdentity FileIdentity::of(const struct stat& info) {
    return {info.st_dev, info.st_ino, info.st_size, info.st_mtim};
}

bool FileIdentity::operator==(const FileIdentity& other) const {
    return device == other.device && inode == other.inode && size == other.size &&
           modified.tv_sec == other.modified.tv_sec && modified.tv_nsec == other.modified.tv_nsec;
}

namespace {

std::string temp_name_for(std::string_view name) {
    return "." + std::string(name) + "." + random_suffix() + ".tmp";
}

// What a destination name holds before it is written.
enum class Target { Absent, Regular, WriteThrough };
struct Checked {
    Target target = Target::Absent;
    struct stat info {};
};

std::variant<Checked, std::string> check_destination(int dir_fd, const std::string& name) {
    Checked checked;
    if (::fstatat(dir_fd, name.c_str(), &checked.info, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) {
            return checked;
        }
        return "cannot stat: " + system_message(errno);
    }
    const mode_t type = checked.info.st_mode & S_IFMT;
    switch (type) {
    case S_IFREG:
        checked.target = Target::Regular;
        return checked;
    case S_IFCHR:
    case S_IFIFO:
        checked.target = Target::WriteThrough;
        return checked;
    case S_IFLNK:
        return std::string("a symlink: cachelens never replaces one (name the file it points to)");
    case S_IFDIR:
        return std::string("a directory: name a file inside it");
    case S_IFBLK:
        return std::string("a block device: cachelens never writes one");
    default:
        return std::string("not a regular file (a socket?): cachelens writes files only");
    }
}

struct Problem {
    std::string message;
    std::string name; // the file it concerns (the temp file, or the destination)
};

// Writes every piece to `fd`: writev of up to 1024 pieces at a time (Linux's
// IOV_MAX); a short write resumes inside the piece it stopped in. Empty when
// written, else why not.
std::string write_all(int fd, std::span<const std::string_view> pieces) {
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
            return "cannot write: " + system_message(n < 0 ? errno : ENOSPC);
        }
        auto left = static_cast<std::size_t>(n);
        while (piece < pieces.size() && left >= pieces[piece].size() - offset) {
            left -= pieces[piece].size() - offset;
            ++piece;
            offset = 0;
        }
        offset += left;
    }
    return {};
}

// A temp file being written: open, and named (`name`) or anonymous (O_TMPFILE).
struct TempFile {
    int fd = -1;
    std::string name;
};

bool proc_fd_linkable() {
    // linkat of an O_TMPFILE file goes through /proc/self/fd without
    // CAP_DAC_READ_SEARCH; where /proc is not mounted, named temps are used.
    static const bool linkable = ::access("/proc/self/fd", X_OK) == 0;
    return linkable;
}

// Creates a temp file for `for_name` in `dir_fd`: anonymous when `anonymous`
// is asked and the filesystem can, else named with a random suffix. Never
// touches a file it did not create.
std::variant<TempFile, Problem> create_temp(int dir_fd, std::string_view for_name,
                                            mode_t permissions, bool anonymous) {
    if (anonymous && proc_fd_linkable()) {
        const int fd = ::openat(dir_fd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, permissions);
        if (fd >= 0) {
            return TempFile{fd, {}};
        }
        // Filesystems without O_TMPFILE (EOPNOTSUPP, EISDIR on old kernels)
        // take a named temp; a real refusal (EACCES, ENOSPC) is said below.
    }
    for (int attempt = 0;; ++attempt) {
        std::string name = temp_name_for(for_name);
        const int fd = ::openat(dir_fd, name.c_str(),
                                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions);
        if (fd >= 0) {
            return TempFile{fd, std::move(name)};
        }
        if (errno != EEXIST || attempt == 8) {
            return Problem{"cannot create a temp file: " + system_message(errno), std::move(name)};
        }
    }
}

// Links an anonymous temp file in as `name` (as_temp false), or as a temp
// name for `name` that it then keeps (as_temp true). Returns 0, or the errno
// (EEXIST when `name` is taken).
int link_anonymous(int dir_fd, TempFile& temp, const std::string& name, bool as_temp) {
    const std::string source = "/proc/self/fd/" + std::to_string(temp.fd);
    for (int attempt = 0;; ++attempt) {
        std::string target = as_temp ? temp_name_for(name) : name;
        if (::linkat(AT_FDCWD, source.c_str(), dir_fd, target.c_str(), AT_SYMLINK_FOLLOW) == 0) {
            if (as_temp) {
                temp.name = std::move(target);
            }
            return 0;
        }
        if (errno != EEXIST || !as_temp || attempt == 8) {
            return errno;
        }
    }
}

void remove_temp(int dir_fd, TempFile& temp) {
    if (temp.fd >= 0) {
        ::close(std::exchange(temp.fd, -1));
    }
    if (!temp.name.empty()) {
        (void)::unlinkat(dir_fd, std::exchange(temp.name, {}).c_str(), 0);
    }
}

// Replacing a file keeps its mode (and, as root, its owner): a 0600 file
// stays 0600.
void take_over_mode(int fd, const Checked& checked) {
    if (checked.target != Target::Regular) {
        return;
    }
    (void)::fchmod(fd, checked.info.st_mode & 07777);
    if (::geteuid() == 0) {
        // Root on a filesystem that refuses (root squash) keeps root's.
        [[maybe_unused]] const int owned = ::fchown(fd, checked.info.st_uid, checked.info.st_gid);
    }
}

std::optional<FileIdentity> identity_at(int dir_fd, const std::string& name) {
    struct stat info {};
    if (::fstatat(dir_fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
        return std::nullopt;
    }
    return FileIdentity::of(info);
}

constexpr std::string_view kChanged =
    "changed by another process while cachelens wrote it: left as that process wrote it, "
    "nothing written";

// Puts the written temp file in place of `name`. True when placed; false when
// CreateOnly found `name` taken (the temp file is removed then). `replacing`
// is the file Replace may swap out (none: `name` must still be absent).
std::variant<bool, Problem> place_temp(int dir_fd, TempFile& temp, const std::string& name,
                                       DirHandle::WriteMode mode,
                                       const std::optional<FileIdentity>& replacing) {
    test_seams::before_place(name);
    if (mode == DirHandle::WriteMode::CreateOnly && temp.name.empty()) {
        const int error = link_anonymous(dir_fd, temp, name, /*as_temp=*/false);
        remove_temp(dir_fd, temp);
        if (error == 0 || error == EEXIST) {
            return error == 0;
        }
        return Problem{"cannot link the new file into place: " + system_message(error), name};
    }
    if (temp.name.empty()) {
        if (const int error = link_anonymous(dir_fd, temp, name, /*as_temp=*/true); error != 0) {
            remove_temp(dir_fd, temp);
            return Problem{"cannot name the temp file: " + system_message(error), name};
        }
    }
    if (temp.fd >= 0) {
        ::close(std::exchange(temp.fd, -1));
    }
    if (mode == DirHandle::WriteMode::CreateOnly || !replacing) {
        bool linked = false;
        int placed = ::renameat2(dir_fd, temp.name.c_str(), dir_fd, name.c_str(), RENAME_NOREPLACE);
        if (placed != 0 && (errno == EINVAL || errno == ENOSYS)) {
            // A file system without RENAME_NOREPLACE: a hard link refuses to
            // replace too, and the temp name goes after it.
            linked = true;
            placed = ::linkat(dir_fd, temp.name.c_str(), dir_fd, name.c_str(), 0);
        }
        const int error = errno;
        if (placed == 0 && !linked) {
            temp.name.clear(); // renamed: nothing left to remove
        }
        remove_temp(dir_fd, temp);
        if (placed == 0) {
            return true;
        }
        if (error == EEXIST && mode == DirHandle::WriteMode::CreateOnly) {
            return false;
        }
        return Problem{error == EEXIST
                           ? std::string("created by another process while cachelens wrote it: "
                                         "left as that process wrote it, nothing written")
                           : "cannot rename the new file into place: " + system_message(error),
                       name};
    }
    // Replace: swap, then look at what was swapped out. Only the file that
    // was checked may go; anything else is swapped back.
    if (::renameat2(dir_fd, temp.name.c_str(), dir_fd, name.c_str(), RENAME_EXCHANGE) != 0) {
        const int error = errno;
        if (error == ENOENT) {
            // The file went meanwhile (deleted, or renamed away): nothing of
            // anyone's is lost by placing the new one, if the name is free.
            return place_temp(dir_fd, temp, name, DirHandle::WriteMode::Replace, std::nullopt);
        }
        if (error != EINVAL && error != ENOSYS && error != EOPNOTSUPP) {
            remove_temp(dir_fd, temp);
            return Problem{"cannot swap the new file into place: " + system_message(error), name};
        }
        // No RENAME_EXCHANGE on this file system: check, then rename over.
        // The window between the two is what cannot be closed here.
        if (identity_at(dir_fd, name) != replacing) {
            remove_temp(dir_fd, temp);
            return Problem{std::string(kChanged), name};
        }
        if (::renameat(dir_fd, temp.name.c_str(), dir_fd, name.c_str()) != 0) {
            const int rename_error = errno;
            remove_temp(dir_fd, temp);
            return Problem{"cannot rename the new file into place: " + system_message(rename_error),
                           name};
        }
        temp.name.clear();
        return true;
    }
    if (identity_at(dir_fd, temp.name) != replacing) {
        // Someone else's file: back under its name, ours removed.
        if (::renameat2(dir_fd, temp.name.c_str(), dir_fd, name.c_str(), RENAME_EXCHANGE) != 0) {
            const int error = errno;
            return Problem{"swapped out a file another process wrote meanwhile and cannot put it "
                           "back (" +
                               system_message(error) + "): it is at " + temp.name,
                           name};
        }
        remove_temp(dir_fd, temp);
        return Problem{std::string(kChanged), name};
    }
    remove_temp(dir_fd, temp); // the old file, now under the temp name
    return true;
}

// Writes `pieces` through to the device or FIFO `name` (checked): /dev/null
// stays a device.
std::variant<bool, Problem> write_through(int dir_fd, const std::string& name,
                                          const Checked& checked,
                                          std::span<const std::string_view> pieces) {
    const int fd = ::openat(dir_fd, name.c_str(), O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        return Problem{"cannot open: " + system_message(errno), name};
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0 || info.st_ino != checked.info.st_ino ||
        info.st_dev != checked.info.st_dev) {
        ::close(fd);
        return Problem{std::string(kChanged), name};
    }
    std::string problem = write_all(fd, pieces);
    if (::close(fd) != 0 && problem.empty()) {
        problem = "cannot write: " + system_message(errno);
    }
    if (!problem.empty()) {
        return Problem{problem, name};
    }
    return true;
}

Result<bool> as_result(const std::variant<bool, Problem>& outcome, const std::string& dir_path) {
    if (const auto* problem = std::get_if<Problem>(&outcome)) {
        return fail(ErrorKind::Io, problem->message, joined(dir_path, problem->name));
    }
    return std::get<bool>(outcome);
}

// The file Replace may swap out: the one the caller checked, else the one
// the name held when the write began (none: the name must stay free).
std::optional<FileIdentity> replaceable(const Checked& checked,
                                        const std::optional<FileIdentity>& replacing) {
    if (replacing) {
        return replacing;
    }
    if (checked.target == Target::Regular) {
        return FileIdentity::of(checked.info);
    }
    return std::nullopt;
}

} // namespace

Result<bool> DirHandle::write_file(std::string_view name, std::string_view bytes, WriteMode mode,
                                   mode_t permissions,
                                   const std::optional<FileIdentity>& replacing) const {
    return write_file(name, std::span(&bytes, 1), mode, permissions, replacing);
}

Result<bool> DirHandle::write_file(std::string_view name, std::span<const std::string_view> pieces,
                                   WriteMode mode, mode_t permissions,
                                   const std::optional<FileIdentity>& replacing) const {
    const std::string file(name);
    if (!is_plain_name(file)) {
        return fail(ErrorKind::InvalidArgument, "not a file name", joined(path_, file));
    }
    auto checked = check_destination(fd_, file);
    if (const auto* problem = std::get_if<std::string>(&checked)) {
        return fail(ErrorKind::InvalidArgument, *problem, joined(path_, file));
    }
    const Checked& target = std::get<Checked>(checked);
    if (target.target != Target::Absent && mode == WriteMode::CreateOnly) {
        return false;
    }
    if (replacing && target.target == Target::Regular &&
        FileIdentity::of(target.info) != *replacing) {
        return fail(ErrorKind::InvalidArgument, std::string(kChanged), joined(path_, file));
    }
    if (target.target == Target::WriteThrough) {
        return as_result(write_through(fd_, file, target, pieces), path_);
    }
    auto created = create_temp(fd_, file, permissions, /*anonymous=*/true);
    if (auto* problem = std::get_if<Problem>(&created)) {
        return fail(ErrorKind::Io, problem->message, joined(path_, problem->name));
    }
    TempFile temp = std::get<TempFile>(std::move(created));
    take_over_mode(temp.fd, target);
    std::string problem = write_all(temp.fd, pieces);
    if (problem.empty() && ::fsync(temp.fd) != 0) {
        problem = "cannot write: " + system_message(errno);
    }
    if (!problem.empty()) {
        remove_temp(fd_, temp);
        return fail(ErrorKind::Io, problem, joined(path_, file));
    }
    auto placed =
        as_result(place_temp(fd_, temp, file, mode, replaceable(target, replacing)), path_);
    if (placed && *placed) {
        (void)::fsync(fd_);
    }
    return placed;
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
    auto checked = check_destination(dir.fd(), file);
    if (const auto* problem = std::get_if<std::string>(&checked)) {
        return fail(ErrorKind::InvalidArgument, *problem, joined(dir.path(), file));
    }
    const Checked& target = std::get<Checked>(checked);
    if (target.target == Target::WriteThrough) {
        return fail(ErrorKind::InvalidArgument, "a device or FIFO: not a file of a cache",
                    joined(dir.path(), file));
    }
    struct stat dir_info {};
    StagedFile staged{.dir_fd = ::fcntl(dir.fd(), F_DUPFD_CLOEXEC, 0),
                      .dir_path = dir.path(),
                      .name = file,
                      .temp = {},
                      .mode = mode,
                      .replacing = replaceable(target, std::nullopt),
                      .device = 0};
    if (staged.dir_fd < 0 || ::fstat(staged.dir_fd, &dir_info) != 0) {
        const int error = errno;
        if (staged.dir_fd >= 0) {
            ::close(staged.dir_fd);
        }
        return fail(ErrorKind::Io, "cannot hold the directory open: " + system_message(error),
                    dir.path());
    }
    staged.device = dir_info.st_dev;
    // Named temps: a batch of hundreds holds no open file each until commit.
    auto created = create_temp(staged.dir_fd, file, permissions, /*anonymous=*/false);
    if (auto* problem = std::get_if<Problem>(&created)) {
        ::close(staged.dir_fd);
        return fail(ErrorKind::Io, problem->message, joined(dir.path(), problem->name));
    }
    TempFile temp = std::get<TempFile>(std::move(created));
    if (mode == DirHandle::WriteMode::Replace) {
        take_over_mode(temp.fd, target);
    }
    std::string problem = write_all(temp.fd, std::span(&bytes, 1));
    if (problem.empty()) {
        // A hint: the data goes to the disk while the next files are written,
        // so that the batch's syncfs has little left to wait for.
        (void)::sync_file_range(temp.fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    }
    if (::close(std::exchange(temp.fd, -1)) != 0 && problem.empty()) {
        problem = "cannot write: " + system_message(errno);
    }
    if (!problem.empty()) {
        remove_temp(staged.dir_fd, temp);
        ::close(staged.dir_fd);
        return fail(ErrorKind::Io, problem, joined(dir.path(), file));
    }
    staged.temp = std::move(temp.name);
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
    // One descriptor per filesystem the batch writes to: each is flushed.
    std::map<dev_t, int> filesystems;
    for (const auto& file : files_) {
        filesystems.emplace(file.device, file.dir_fd);
    }
    // Every temp file's bytes on the disk before any name points at them:
    // one flush per filesystem instead of an fsync per file.
    for (const auto& [device, fd] : filesystems) {
        if (::syncfs(fd) != 0) {
            const std::string problem =
                "cannot flush the new files to the disk: " + system_message(errno);
            for (const auto& file : files_) {
                outcomes.push_back(fail(ErrorKind::Io, problem, joined(file.dir_path, file.name)));
            }
            discard();
            return outcomes;
        }
    }
    bool renamed_any = false;
    for (auto& file : files_) {
        TempFile temp{-1, file.temp};
        const auto placed = as_result(
            place_temp(file.dir_fd, temp, file.name, file.mode, file.replacing), file.dir_path);
        file.temp.clear(); // placed or removed either way
        renamed_any = renamed_any || (placed && *placed);
        outcomes.push_back(placed);
    }
    // The names (and the directories made for them) durable: one more flush
    // per filesystem instead of an fsync per directory. A failure here cannot
    // take back a rename, and the files are whole either way.
    if (renamed_any) {
        for (const auto& [device, fd] : filesystems) {
            (void)::syncfs(fd);
        }
    }
    for (const auto& file : files_) {
        ::close(file.dir_fd);
    }
    files_.clear();
    bytes_ = 0;
    return outcomes;
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
    auto checked = check_destination(dir->fd(), name);
    if (const auto* problem = std::get_if<std::string>(&checked)) {
        return fail(ErrorKind::InvalidArgument, *problem, joined(dir->path(), name));
    }
    const Checked& target = std::get<Checked>(checked);
    StreamedFile streamed(std::move(*dir), name);
    if (target.target == Target::WriteThrough) {
        streamed.write_through_ = true;
        streamed.fd_ = ::openat(streamed.dir_->fd(), name.c_str(),
                                O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
        if (streamed.fd_ < 0) {
            return fail(ErrorKind::Io, "cannot open: " + system_message(errno),
                        joined(streamed.dir_->path(), name));
        }
        return streamed;
    }
    streamed.replacing_ = replaceable(target, std::nullopt);
    auto created = create_temp(streamed.dir_->fd(), name, permissions, /*anonymous=*/true);
    if (auto* problem = std::get_if<Problem>(&created)) {
        return fail(ErrorKind::Io, problem->message, joined(streamed.dir_->path(), problem->name));
    }
    TempFile temp = std::get<TempFile>(std::move(created));
    take_over_mode(temp.fd, target);
    streamed.fd_ = temp.fd;
    streamed.temp_ = std::move(temp.name);
    return streamed;
}

StreamedFile::StreamedFile(DirHandle dir, std::string name)
    : dir_(std::move(dir))
    , name_(std::move(name)) {}

StreamedFile::StreamedFile(StreamedFile&& other) noexcept
    : dir_(std::move(other.dir_))
    , name_(std::move(other.name_))
    , temp_(std::move(other.temp_))
    , fd_(std::exchange(other.fd_, -1))
    , write_through_(other.write_through_)
    , replacing_(other.replacing_) {
    other.dir_.reset();
}

StreamedFile::~StreamedFile() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
    if (dir_ && !temp_.empty()) {
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
    const DirHandle dir = std::move(*dir_);
    dir_.reset(); // placed or removed either way
    if (write_through_) {
        if (::close(std::exchange(fd_, -1)) != 0) {
            return fail(ErrorKind::Io, "cannot write: " + system_message(errno),
                        joined(dir.path(), name_));
        }
        return true;
    }
    TempFile temp{std::exchange(fd_, -1), std::exchange(temp_, {})};
    if (::fsync(temp.fd) != 0) {
        const int error = errno;
        remove_temp(dir.fd(), temp);
        return fail(ErrorKind::Io, "cannot write: " + system_message(error),
                    joined(dir.path(), name_));
    }
    auto placed = as_result(place_temp(dir.fd(), temp, name_, mode, replacing_), dir.path());
    if (placed && *placed) {
        (void)::fsync(dir.fd());
    }
    return placed;
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
