#pragma once

// A directory inside a root, opened one component at a time with openat and
// O_NOFOLLOW. Whatever is done through it (stat, unlink, rmdir) stays inside
// the root even if someone swaps a parent directory for a symlink meanwhile:
// a path string checked first and used later could not promise that.

#include <cachelens/core/error.h>

#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens {

// Which file a name held when it was checked: a file rewritten in place, or
// another file renamed onto the name, is another identity.
struct FileIdentity {
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = 0;
    timespec modified{};

    static FileIdentity of(const struct stat& info);
    bool operator==(const FileIdentity& other) const;
};

class DirHandle {
public:
    // Opens `root` itself (which may be reached through symlinks: the user named it).
    static Result<DirHandle> open_root(const std::filesystem::path& root);

    DirHandle(DirHandle&& other) noexcept;
    DirHandle& operator=(DirHandle&& other) noexcept;
    DirHandle(const DirHandle&) = delete;
    DirHandle& operator=(const DirHandle&) = delete;
    ~DirHandle();

    // The directory `relative` ('/'-separated) below this one. Fails on an
    // empty, absolute or ".." component, and when a component is a symlink
    // or not a directory.
    Result<DirHandle> open_beneath(std::string_view relative) const;

    // Like open_beneath, but creates the components that are missing (0755).
    // An existing symlink or non-directory is an error, never followed.
    Result<DirHandle> make_beneath(std::string_view relative) const;

    // The bytes of the regular file `name`; nullopt when there is none. A
    // symlink, a directory or a file over `max_size` bytes is an error.
    Result<std::optional<std::string>> read_file(std::string_view name, std::size_t max_size) const;

    enum class WriteMode { CreateOnly, Replace };
    // Writes `name` so that a reader sees the old file or the whole new one,
    // never half of either (file_writes.cpp; ARCHITECTURE.md "How cachelens
    // writes and deletes"):
    // - the bytes go to a temp file beside it (anonymous, O_TMPFILE, where the
    //   filesystem allows; else `.<name>.<random>.tmp`), fsynced;
    // - CreateOnly links it in only where no file of that name exists by then,
    //   and returns false (writing nothing) when one does;
    // - Replace swaps it with what `name` held when the call began (or with
    //   `replacing`, a file the caller checked before), keeping that file's
    //   mode, and swaps back with an error when what it swapped out is another
    //   file: a file someone else wrote meanwhile is never overwritten;
    // - a character device or FIFO (/dev/null, a pipe) is written through; a
    //   symlink, directory, block device or socket is refused, never replaced;
    // - a new file's mode is `permissions` less the umask.
    Result<bool> write_file(std::string_view name, std::string_view bytes, WriteMode mode,
                            mode_t permissions = 0666,
                            const std::optional<FileIdentity>& replacing = std::nullopt) const;
    // The same, of the bytes of `pieces` one after the other (written with
    // writev, never joined in memory).
    Result<bool> write_file(std::string_view name, std::span<const std::string_view> pieces,
                            WriteMode mode, mode_t permissions = 0666,
                            const std::optional<FileIdentity>& replacing = std::nullopt) const;

    // lstat of `name` in this directory (a single component).
    Result<struct stat> stat_entry(std::string_view name) const;
    // Unlinks the file `name`; never a directory.
    Result<void> remove_file(std::string_view name) const;
    // Removes `name` when it is an empty directory. False when it is not empty.
    Result<bool> remove_empty_dir(std::string_view name) const;
    // The names of the directories directly in this one, sorted (a symlink
    // is not one of them).
    Result<std::vector<std::string>> subdir_names() const;
    // The names of everything directly in this one, sorted.
    Result<std::vector<std::string>> entry_names() const;

    // For messages: the path this handle was opened as.
    const std::string& path() const { return path_; }
    int fd() const { return fd_; }

private:
    DirHandle(int fd, std::string path);
    Result<std::vector<std::string>> names(bool dirs_only) const;

    int fd_ = -1;
    std::string path_;
};

// Many files written so that a crash (kill -9, a power cut) leaves each of
// them whole or absent, as DirHandle::write_file does, at the cost of two
// flushes per filesystem for the whole batch instead of two per file (git's
// core.fsyncMethod=batch): stage() writes each file's bytes to a temp file
// beside its destination and starts their writeback; commit() makes them
// durable with one syncfs of each filesystem they are on, places each as
// DirHandle::write_file does, and makes the names durable with one more
// syncfs of each (which covers directories made meanwhile too).
// Until commit() nothing is visible under the files' names; temp files not
// committed are removed when the batch goes away. Each staged file holds an
// open descriptor of its directory: commit every few hundred files.
class DurableWriteBatch {
public:
    DurableWriteBatch() = default;
    DurableWriteBatch(const DurableWriteBatch&) = delete;
    DurableWriteBatch& operator=(const DurableWriteBatch&) = delete;
    ~DurableWriteBatch();

    // Writes `bytes` to a temp file in `dir` (`.<name>.<random>.tmp`). The
    // destination must be absent or a regular file. An error names the
    // file; nothing is staged then.
    Result<void> stage(const DirHandle& dir, std::string_view name, std::string_view bytes,
                       DirHandle::WriteMode mode, mode_t permissions = 0666);
    std::size_t staged() const { return files_.size(); }
    std::size_t staged_bytes() const { return bytes_; }

    // The outcome of each file staged since the last commit, in the order
    // staged: true when it was put in place, false when (CreateOnly) a file
    // of that name existed by then and nothing was written, or an error
    // naming the file (the flush failed: none of the batch was placed).
    std::vector<Result<bool>> commit();

private:
    struct StagedFile {
        int dir_fd = -1; // a duplicate of the directory's descriptor
        std::string dir_path;
        std::string name;
        std::string temp;
        DirHandle::WriteMode mode = DirHandle::WriteMode::CreateOnly;
        std::optional<FileIdentity> replacing; // what the name held when staged
        dev_t device = 0;                      // the filesystem to flush
    };
    void discard();

    std::vector<StagedFile> files_;
    std::size_t bytes_ = 0;
};

// A file written as it is produced (an archive streamed by libarchive), placed
// as DirHandle::write_file places one: the bytes go to a temp file beside it,
// and place() fsyncs it and puts it in place. Until then nothing shows under
// the file's name; one dropped unplaced (an error, a stop) removes its temp
// file. A kill -9 leaves at most a named temp (none where O_TMPFILE works). A
// character device or FIFO is written through, as write_file does.
class StreamedFile {
public:
    // `file` is a path the user named: its parent may be reached through symlinks.
    static Result<StreamedFile> create(const std::filesystem::path& file,
                                       mode_t permissions = 0666);
    StreamedFile(StreamedFile&& other) noexcept;
    StreamedFile& operator=(StreamedFile&&) = delete;
    StreamedFile(const StreamedFile&) = delete;
    StreamedFile& operator=(const StreamedFile&) = delete;
    ~StreamedFile();

    // Where the bytes go; closed by place().
    int fd() const { return fd_; }
    // The file's path, for messages.
    std::string path() const;
    // As DirHandle::write_file: false when CreateOnly finds the name taken
    // (nothing is placed then). The temp file is gone afterwards either way.
    Result<bool> place(DirHandle::WriteMode mode);

private:
    StreamedFile(DirHandle dir, std::string name);

    std::optional<DirHandle> dir_; // empty once placed
    std::string name_;
    std::string temp_; // empty while the temp file is anonymous, or written through
    int fd_ = -1;
    bool write_through_ = false;            // the name is a device or FIFO
    std::optional<FileIdentity> replacing_; // the regular file the name held at create()
};

// False for "", ".", ".." and names with a '/' or a NUL: not one directory entry.
bool is_plain_name(std::string_view name);

// Replaces `file` (a path the user named; its parent may be reached through
// symlinks) as DirHandle::write_file(.., Replace) does: a reader (PyTorch, a
// copy) sees the old file or the whole new one, never half of either; a
// device or FIFO is written through; a symlink or directory is refused.
Result<void> replace_file_atomically(const std::filesystem::path& file, std::string_view bytes);
Result<void> replace_file_atomically(const std::filesystem::path& file,
                                     std::span<const std::string_view> pieces);

} // namespace cachelens
