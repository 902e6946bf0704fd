#pragma once

// The one way cachelens deletes a cache file: moved first into a private
// dir on the root's filesystem (`.cachelens-trash-<random>`, held by an flock
// while in use), checked there to be the very file planned (device, inode,
// size, mtime), put back when it is another (a writer renamed a new file onto
// the name after the last check), and unlinked only then. A group of files
// that must go whole (a prune unit) is taken file by file and put back whole
// when one of them must stay. Work dirs left by killed runs (their lock free)
// are removed by the next run; the cache walkers skip them.

#include <cachelens/core/dir_handle.h>
#include <cachelens/core/error.h>
#include <cachelens/core/work_dir.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens {

class Trash {
public:
    // Makes and locks a trash dir in `root` (a WorkDir: after removing any a
    // killed run left).
    static Result<Trash> open(const DirHandle& root);
    Trash(Trash&& other) noexcept;
    Trash& operator=(Trash&&) = delete;
    Trash(const Trash&) = delete;
    Trash& operator=(const Trash&) = delete;
    // Unlinks what is still taken, removes the dir, releases the lock.
    ~Trash();

    enum class Taken {
        Taken,   // moved into the trash: it is the file planned
        Changed, // another file had the name: left (or put back) where it was
        Gone,    // nothing had the name
    };
    // Moves `name` of `dir` into the trash when it is the file `planned`.
    Result<Taken> take(const DirHandle& dir, std::string_view name, const FileIdentity& planned);
    // Moves the directory `name` of `dir` into the trash when `unchanged`,
    // asked of it once moved (where no one writes into it any more), says it
    // is as planned; else puts it back. Its tree is removed by empty(),
    // through descriptors, never following a symlink.
    Result<Taken> take_dir(const DirHandle& dir, std::string_view name,
                           const std::function<bool(const DirHandle& moved)>& unchanged);
    // Everything taken since the last empty() back under its name (with
    // RENAME_NOREPLACE: a file written there meanwhile wins). Errors name
    // what could not go back (it stays in the trash dir, named).
    std::vector<Error> put_back();
    // Unlinks everything taken since the last empty(): how many files went;
    // what could not go is in `errors`.
    std::size_t empty(std::vector<Error>& errors);

private:
    explicit Trash(WorkDir dir);

    // A duplicate of a dir's descriptor, shared by every item taken from it
    // (a unit of thousands of files in hundreds of dirs holds one each).
    struct HeldDir {
        int fd = -1;
        std::string path;
        ~HeldDir();
    };
    Result<std::shared_ptr<HeldDir>> hold(const DirHandle& dir);

    struct Item {
        std::shared_ptr<HeldDir> dir;
        std::string name;    // its name there
        std::string trashed; // its name in the trash; empty when unlinked in place
        FileIdentity identity;
        bool is_dir = false;
    };

    std::optional<WorkDir> dir_;
    std::size_t counter_ = 0;
    std::vector<Item> taken_;
    std::map<std::pair<dev_t, ino_t>, std::shared_ptr<HeldDir>> held_;
};

} // namespace cachelens
