#include <cachelens/core/mapped_file.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

namespace cachelens {

namespace {

Error io_error(const std::filesystem::path& path, std::string_view what, int err) {
    const ErrorKind kind = err == ENOENT || err == ENOTDIR ? ErrorKind::NotFound : ErrorKind::Io;
    return Error{kind, std::string(what) + ": " + std::strerror(err), path.string()};
}

class FileDescriptor {
public:
    explicit FileDescriptor(int fd)
        : fd_(fd) {}
    ~FileDescriptor() {
        if (fd_ >= 0) {
            ::close(fd_);
        }
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

// Reads to the end. `expected_size` (a regular file's size) is read straight
// into a buffer of that size: reading in 64 KiB pieces and appending them
// copied every byte twice or more (the string's growth), a tenth of a Redis
// push's CPU (perf). A file that grew meanwhile is read on in pieces.
Result<std::string> read_all(int fd, const std::filesystem::path& path, std::size_t max_size,
                             std::size_t expected_size = 0) {
    std::string out;
    if (expected_size > 0 && expected_size <= max_size) {
        std::optional<int> read_error;
        // expected_size, not the callback's argument: libstdc++ 12 passes
        // the capacity there.
        out.resize_and_overwrite(expected_size, [&](char* to, std::size_t) {
            const std::size_t size = expected_size;
            std::size_t done = 0;
            while (done < size) {
                const ssize_t n = ::read(fd, to + done, size - done);
                if (n < 0) {
                    if (errno == EINTR) {
                        continue;
                    }
                    read_error = errno;
                    break;
                }
                if (n == 0) {
                    break; // it shrank meanwhile
                }
                done += static_cast<std::size_t>(n);
            }
            return done;
        });
        if (read_error) {
            return std::unexpected(io_error(path, "cannot read", *read_error));
        }
        if (out.size() < expected_size) {
            return out;
        }
    }
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return std::unexpected(io_error(path, "cannot read", errno));
        }
        if (n == 0) {
            return out;
        }
        if (out.size() + static_cast<std::size_t>(n) > max_size) {
            return fail(ErrorKind::LimitExceeded,
                        "file is larger than the limit of " + std::to_string(max_size) + " bytes",
                        path.string());
        }
        out.append(buffer, static_cast<std::size_t>(n));
    }
}

// O_NOFOLLOW with Links::Refuse (ELOOP on a symlink), and O_NONBLOCK then
// too, so that a FIFO swapped in does not hang the open.
int open_for_reading(const std::filesystem::path& path, Links links) {
    return ::open(path.c_str(),
                  O_RDONLY | O_CLOEXEC | (links == Links::Refuse ? O_NOFOLLOW | O_NONBLOCK : 0));
}

} // namespace

Result<std::shared_ptr<const MappedFile>> MappedFile::open(const std::filesystem::path& path,
                                                           std::size_t max_size, Links links) {
    FileDescriptor fd(open_for_reading(path, links));
    if (fd.get() < 0) {
        return std::unexpected(io_error(path, "cannot open", errno));
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) {
        return std::unexpected(io_error(path, "cannot stat", errno));
    }
    if (S_ISDIR(st.st_mode)) {
        return fail(ErrorKind::InvalidArgument, "is a directory, not a file", path.string());
    }
    if (links == Links::Refuse && !S_ISREG(st.st_mode)) {
        return fail(ErrorKind::InvalidArgument, "not a regular file", path.string());
    }
    std::shared_ptr<MappedFile> file(new MappedFile());
    file->path_ = path;
    std::size_t expected_size = 0;
    if (S_ISREG(st.st_mode)) {
        const auto size = static_cast<std::size_t>(st.st_size);
        if (size > max_size) {
            return fail(ErrorKind::LimitExceeded,
                        "file is " + std::to_string(size) + " bytes, over the limit of " +
                            std::to_string(max_size),
                        path.string());
        }
        if (size == 0) {
            file->data_ = file->owned_.data();
            return file;
        }
        if (size >= kReadBelowBytes) {
            void* mapping = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
            if (mapping != MAP_FAILED) {
                file->mapping_ = mapping;
                file->data_ = static_cast<const char*>(mapping);
                file->size_ = size;
                return file;
            }
        }
        expected_size = size;
    }
    // Small files, files mmap refused, and what is not a regular file.
    auto bytes = read_all(fd.get(), path, max_size, expected_size);
    if (!bytes) {
        return std::unexpected(bytes.error());
    }
    file->owned_ = std::move(*bytes);
    file->data_ = file->owned_.data();
    file->size_ = file->owned_.size();
    return file;
}

std::shared_ptr<const MappedFile> MappedFile::from_bytes(std::string bytes,
                                                         std::filesystem::path label) {
    std::shared_ptr<MappedFile> file(new MappedFile());
    file->path_ = std::move(label);
    file->owned_ = std::move(bytes);
    file->data_ = file->owned_.data();
    file->size_ = file->owned_.size();
    return file;
}

MappedFile::~MappedFile() {
    if (mapping_ != nullptr) {
        ::munmap(mapping_, size_);
    }
}

Result<std::string> read_text_file(const std::filesystem::path& path, std::size_t max_size,
                                   Links links) {
    FileDescriptor fd(open_for_reading(path, links));
    if (fd.get() < 0) {
        return std::unexpected(io_error(path, "cannot open", errno));
    }
    struct stat st {};
    const bool known = ::fstat(fd.get(), &st) == 0;
    if (known && S_ISDIR(st.st_mode)) {
        return fail(ErrorKind::InvalidArgument, "is a directory, not a file", path.string());
    }
    if (links == Links::Refuse && !(known && S_ISREG(st.st_mode))) {
        return fail(ErrorKind::InvalidArgument, "not a regular file", path.string());
    }
    const bool regular = known && S_ISREG(st.st_mode) && st.st_size > 0;
    return read_all(fd.get(), path, max_size, regular ? static_cast<std::size_t>(st.st_size) : 0);
}

} // namespace cachelens
