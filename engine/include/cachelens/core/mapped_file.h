#pragma once

// Read-only view of a whole file. Regular files of 1 MiB or more are
// memory-mapped so that the pickle reader can hand out string views into them
// without copying; smaller ones (kReadBelowBytes) and anything else (pipes,
// /proc) are read into memory.

#include <cachelens/core/error.h>

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace cachelens {

// Whether a path's last component may be a symlink. Refuse: it must be a
// regular file itself (O_NOFOLLOW), as a cache file listed by a walk is;
// what `pack` and `export` put into a shareable archive is read so, so that a
// symlink swapped in after the walk (to a key file) is never followed.
enum class Links { Follow, Refuse };

class MappedFile {
public:
    // Fails with NotFound/Io naming the path, or LimitExceeded when the file is
    // larger than `max_size` bytes.
    static Result<std::shared_ptr<const MappedFile>> open(const std::filesystem::path& path,
                                                          std::size_t max_size = kDefaultMaxSize,
                                                          Links links = Links::Follow);

    // A file's bytes held in memory rather than mapped (for data that did not
    // come from disk, e.g. an artifact inside a bundle).
    static std::shared_ptr<const MappedFile> from_bytes(std::string bytes,
                                                        std::filesystem::path label = {});

    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    std::string_view bytes() const { return {data_, size_}; }
    std::size_t size() const { return size_; }
    const std::filesystem::path& path() const { return path_; }

    static constexpr std::size_t kDefaultMaxSize = std::size_t{4} << 30;
    // Files smaller than this are read, not mapped. A file its writer
    // truncates while it is mapped (vLLM rewrites its index in place, open
    // "w") raises SIGBUS on the next access to the lost pages; a read sees a
    // short file, which the parsers report as cut short. The files written in
    // place are small; PyTorch's large ones land by rename, a new inode.
    static constexpr std::size_t kReadBelowBytes = std::size_t{1} << 20;

private:
    MappedFile() = default;

    std::filesystem::path path_;
    const char* data_ = nullptr;
    std::size_t size_ = 0;
    void* mapping_ = nullptr; // non-null when mmap'ed
    std::string owned_;       // used when the bytes are held in memory
};

// Reads a whole (small) file into a string: JSON, best_config, source text.
Result<std::string> read_text_file(const std::filesystem::path& path,
                                   std::size_t max_size = std::size_t{256} << 20,
                                   Links links = Links::Follow);

} // namespace cachelens
