// core/dir_handle.h's writers, the one way cachelens puts a file in place:
// nothing under the file's name until it is placed, CreateOnly never
// replaces, Replace swaps out only the file it checked (a race forced at its
// exact step through test_seams.h), devices and FIFOs are written through,
// symlinks and directories refused, modes kept or taken from the umask, temp
// names that no other process can hold, and a writer dropped half way leaves
// nothing behind.

#include "test_paths.h"

#include <cachelens/core/dir_handle.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/core/test_seams.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <thread>

using namespace cachelens;
namespace fs = std::filesystem;

namespace {

std::string text_of(const fs::path& path) {
    return test::read_file(path).toStdString();
}

mode_t mode_of(const fs::path& path) {
    struct stat info {};
    return ::lstat(path.c_str(), &info) == 0 ? info.st_mode : 0;
}

void write_plain(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

// Another process's write: a whole new file renamed onto `path`.
void rename_new_file_onto(const fs::path& path, const std::string& text) {
    const fs::path other = path.string() + ".other";
    write_plain(other, text);
    fs::rename(other, path);
}

// A temp file's name as the writers make it: `.<name>.<16 hex>.tmp`.
bool is_temp_of(const std::string& file, const std::string& name) {
    const std::string prefix = "." + name + ".";
    if (!file.starts_with(prefix) || !file.ends_with(".tmp") ||
        file.size() != prefix.size() + 16 + 4) {
        return false;
    }
    return file.substr(prefix.size(), 16).find_first_not_of("0123456789abcdef") ==
           std::string::npos;
}

// Every name in `dir`, whatever it is (files_under counts regular files only).
std::vector<std::string> names_in(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& item : fs::directory_iterator(dir)) {
        names.push_back(item.path().filename().string());
    }
    std::ranges::sort(names);
    return names;
}

struct SeamReset {
    ~SeamReset() { test_seams::set_before_place({}); }
};

struct UmaskScope {
    explicit UmaskScope(mode_t mask)
        : old(::umask(mask)) {}
    ~UmaskScope() { ::umask(old); }
    mode_t old;
};

} // namespace

class TestDirHandle : public QObject {
    Q_OBJECT

private slots:
    void writeFilePlacesWholeFiles() {
        QTemporaryDir temp;
        const fs::path dir = temp.path().toStdString();
        auto handle = DirHandle::open_root(dir);
        QVERIFY(handle.has_value());
        auto made = handle->write_file("a", "one", DirHandle::WriteMode::CreateOnly, 0600);
        QVERIFY(made && *made);
        auto again = handle->write_file("a", "two", DirHandle::WriteMode::CreateOnly);
        QVERIFY(again && !*again); // never replaced
        QCOMPARE(text_of(dir / "a"), std::string("one"));
        struct stat info {};
        QCOMPARE(::stat((dir / "a").c_str(), &info), 0);
        QCOMPARE(info.st_mode & 07777, 0600u);
        auto replaced = handle->write_file("a", "three", DirHandle::WriteMode::Replace);
        QVERIFY(replaced && *replaced);
        QCOMPARE(text_of(dir / "a"), std::string("three"));
        QCOMPARE(test::files_under(dir), std::vector<std::string>{"a"}); // no temp left
        QVERIFY(!handle->write_file("../b", "x", DirHandle::WriteMode::Replace));
    }

    void streamedFileShowsOnlyOncePlaced() {
        QTemporaryDir temp;
        const fs::path dir = temp.path().toStdString();
        auto streamed = StreamedFile::create(dir / "out.bin", 0640);
        QVERIFY(streamed.has_value());
        QVERIFY(::write(streamed->fd(), "abc", 3) == 3);
        QVERIFY(!fs::exists(dir / "out.bin"));
        // Anonymous (O_TMPFILE) where the filesystem allows, else one named temp.
        const auto during = test::files_under(dir);
        QVERIFY(during.size() <= 1u);
        QVERIFY(during.empty() || is_temp_of(during[0], "out.bin"));
        auto placed = streamed->place(DirHandle::WriteMode::CreateOnly);
        QVERIFY(placed && *placed);
        QCOMPARE(text_of(dir / "out.bin"), std::string("abc"));
        QCOMPARE(test::files_under(dir), std::vector<std::string>{"out.bin"});
        QVERIFY(!streamed->place(DirHandle::WriteMode::Replace)); // once

        // CreateOnly over a file that showed meanwhile: nothing placed, no temp left.
        auto late = StreamedFile::create(dir / "out.bin");
        QVERIFY(late.has_value());
        QVERIFY(::write(late->fd(), "later", 5) == 5);
        auto refused = late->place(DirHandle::WriteMode::CreateOnly);
        QVERIFY(refused && !*refused);
        QCOMPARE(text_of(dir / "out.bin"), std::string("abc"));
        QCOMPARE(test::files_under(dir), std::vector<std::string>{"out.bin"});
    }

    void streamedFileDroppedLeavesNothing() {
        QTemporaryDir temp;
        const fs::path dir = temp.path().toStdString();
        {
            auto streamed = StreamedFile::create(dir / "gone.bin");
            QVERIFY(streamed.has_value());
            QVERIFY(::write(streamed->fd(), "half", 4) == 4);
            StreamedFile moved = std::move(*streamed); // the temp travels with it
        }
        QVERIFY(test::files_under(dir).empty());
        QVERIFY(!StreamedFile::create(dir / "missing" / "x.bin")); // no such dir: an error
        QVERIFY(!StreamedFile::create(dir / ".."));
    }

    // Replace swaps out only the file it checked: another process's file
    // renamed onto the name between the write and the swap is swapped back,
    // whole, and the error says so; nothing of ours is left.
    void replaceNeverOverwritesAFileWrittenMeanwhile() {
        QTemporaryDir temp;
        const fs::path dir = temp.path().toStdString();
        auto handle = DirHandle::open_root(dir);
        QVERIFY(handle.has_value());
        write_plain(dir / "best", "ours before");
        SeamReset reset;
        int calls = 0;
        test_seams::set_before_place([&](std::string_view name) {
            if (name == "best" && calls++ == 0) {
                rename_new_file_onto(dir / "best", "pytorch's");
            }
        });
        auto written = handle->write_file("best", "cachelens'", DirHandle::WriteMode::Replace);
        QVERIFY(!written);
        QVERIFY2(written.error().message.find("changed by another process") != std::string::npos,
                 written.error().describe().c_str());
        QCOMPARE(text_of(dir / "best"), std::string("pytorch's"));
        QCOMPARE(test::files_under(dir), std::vector<std::string>{"best"});

        // A file checked earlier (bench accept's read): only that one goes.
        test_seams::set_before_place({});
        struct stat checked {};
        QCOMPARE(::stat((dir / "best").c_str(), &checked), 0);
        rename_new_file_onto(dir / "best", "tuned again");
        auto stale = handle->write_file("best", "cachelens'", DirHandle::WriteMode::Replace, 0666,
                                        FileIdentity::of(checked));
        QVERIFY(!stale);
        QCOMPARE(text_of(dir / "best"), std::string("tuned again"));
        QCOMPARE(::stat((dir / "best").c_str(), &checked), 0);
        auto fresh = handle->write_file("best", "cachelens'", DirHandle::WriteMode::Replace, 0666,
                                        FileIdentity::of(checked));
        QVERIFY(fresh && *fresh);
        QCOMPARE(text_of(dir / "best"), std::string("cachelens'"));

        // A name that was free when the write began and taken meanwhile.
        calls = 0;
        test_seams::set_before_place([&](std::string_view name) {
            if (name == "new" && calls++ == 0) {
                write_plain(dir / "new", "someone's");
            }
        });
        auto late = handle->write_file("new", "cachelens'", DirHandle::WriteMode::Replace);
        QVERIFY(!late);
        QCOMPARE(text_of(dir / "new"), std::string("someone's"));
        QCOMPARE(test::files_under(dir), (std::vector<std::string>{"best", "new"}));
    }

    // `-o /dev/null` as root once replaced the device with a file: a
    // character device or FIFO is written through, and stays what it was.
    void devicesAndFifosAreWrittenThrough() {
        QTemporaryDir temp;
        const fs::path dir = temp.path().toStdString();
        fs::path null_device = "/dev/null";
        if (::geteuid() == 0) {
            // As root a regression would break the machine's /dev/null: a twin here.
            null_device = dir / "null";
            QCOMPARE(::mknod(null_device.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
        }
        QVERIFY(replace_file_atomically(null_device, "discarded").has_value());
        QVERIFY(S_ISCHR(mode_of(null_device)));
        auto streamed = StreamedFile::create(null_device);
        QVERIFY(streamed.has_value());
        QVERIFY(::write(streamed->fd(), "abc", 3) == 3);
        auto placed = streamed->place(DirHandle::WriteMode::Replace);
        QVERIFY(placed && *placed);
        QVERIFY(S_ISCHR(mode_of(null_device)));

        const fs::path fifo = dir / "pipe";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        std::string received;
        std::thread reader([&] {
            std::ifstream in(fifo, std::ios::binary);
            received.assign(std::istreambuf_iterator<char>(in), {});
        });
        const std::string_view pieces[] = {"through ", "the pipe"};
        const bool written = replace_file_atomically(fifo, pieces).has_value();
        reader.join();
        QVERIFY(written);
        QCOMPARE(received, std::string("through the pipe"));
        QVERIFY(S_ISFIFO(mode_of(fifo)));
        const std::vector<std::string> expected = ::geteuid() == 0
                                                      ? std::vector<std::string>{"null", "pipe"}
                                                      : std::vector<std::string>{"pipe"};
        QCOMPARE(names_in(dir), expected);
    }

    // A symlink or directory as the destination is refused, never replaced:
    // the link and what it points to stay as they were.
    void symlinksAndDirectoriesAreRefused() {
        QTemporaryDir temp;
        const fs::path dir = temp.path().toStdString();
        write_plain(dir / "target", "kept");
        fs::create_symlink("target", dir / "link");
        fs::create_directory(dir / "sub");
        for (const char* name : {"link", "sub"}) {
            auto written = replace_file_atomically(dir / name, "new");
            QVERIFY(!written);
            QVERIFY2(written.error().path == (dir / name).string(),
                     written.error().describe().c_str());
            QVERIFY(!StreamedFile::create(dir / name));
            DurableWriteBatch batch;
            auto handle = DirHandle::open_root(dir);
            QVERIFY(!batch.stage(*handle, name, "new", DirHandle::WriteMode::Replace));
        }
        QVERIFY(fs::is_symlink(dir / "link"));
        QCOMPARE(text_of(dir / "target"), std::string("kept"));
        QVERIFY(fs::is_directory(dir / "sub") && fs::is_empty(dir / "sub"));
        QCOMPARE(names_in(dir), (std::vector<std::string>{"link", "sub", "target"}));
    }

    // A replaced file keeps its mode (a 0600 file stays private); a new one
    // takes `permissions` less the umask (umask 077 makes it 0600).
    void modesKeptOrFromTheUmask() {
        QTemporaryDir temp;
        const fs::path dir = temp.path().toStdString();
        write_plain(dir / "private", "secret");
        fs::permissions(dir / "private", fs::perms::owner_read | fs::perms::owner_write);
        QVERIFY(replace_file_atomically(dir / "private", "still secret").has_value());
        QCOMPARE(mode_of(dir / "private") & 07777, 0600u);
        auto streamed = StreamedFile::create(dir / "private");
        QVERIFY(streamed.has_value());
        QVERIFY(streamed->place(DirHandle::WriteMode::Replace).has_value());
        QCOMPARE(mode_of(dir / "private") & 07777, 0600u);

        const UmaskScope strict(077);
        QVERIFY(replace_file_atomically(dir / "new", "made").has_value());
        QCOMPARE(mode_of(dir / "new") & 07777, 0600u);
        auto bundle = StreamedFile::create(dir / "bundle");
        QVERIFY(bundle.has_value());
        QVERIFY(bundle->place(DirHandle::WriteMode::CreateOnly).has_value());
        QCOMPARE(mode_of(dir / "bundle") & 07777, 0600u);
        auto handle = DirHandle::open_root(dir);
        DurableWriteBatch batch;
        QVERIFY(batch.stage(*handle, "batched", "x", DirHandle::WriteMode::CreateOnly).has_value());
        const auto outcomes = batch.commit();
        QVERIFY(outcomes.size() == 1 && outcomes[0] && *outcomes[0]);
        QCOMPARE(mode_of(dir / "batched") & 07777, 0600u);
    }

    // What pack and export put into a shareable archive is read with
    // Links::Refuse: a symlink swapped in for a cache file after the walk (to
    // a key file) is refused, never followed; a FIFO does not hang the read.
    void archiveReadsRefuseSymlinksAndFifos() {
        QTemporaryDir temp;
        const fs::path dir = temp.path().toStdString();
        write_plain(dir / "secret.key", "PRIVATE KEY");
        fs::create_symlink(dir / "secret.key", dir / "cabc.py");
        QCOMPARE(read_text_file(dir / "cabc.py").value_or(""), std::string("PRIVATE KEY"));
        auto refused = read_text_file(dir / "cabc.py", 1 << 20, Links::Refuse);
        QVERIFY(!refused);
        QCOMPARE(refused.error().path, (dir / "cabc.py").string());
        QVERIFY(!MappedFile::open(dir / "cabc.py", MappedFile::kDefaultMaxSize, Links::Refuse));
        QCOMPARE(::mkfifo((dir / "fifo.py").c_str(), 0600), 0);
        QVERIFY(!read_text_file(dir / "fifo.py", 1 << 20, Links::Refuse));
        QVERIFY(!MappedFile::open(dir / "fifo.py", MappedFile::kDefaultMaxSize, Links::Refuse));
        write_plain(dir / "real.py", "print()");
        QCOMPARE(read_text_file(dir / "real.py", 1 << 20, Links::Refuse).value_or(""),
                 std::string("print()"));
    }

    // Temp names are random: a temp file another process holds (in a
    // container every cachelens is pid 1), or one a killed run left, never
    // blocks a write and is never removed by one.
    void tempNamesBelongToNoOtherProcess() {
        QTemporaryDir temp;
        const fs::path dir = temp.path().toStdString();
        const std::string pid = std::to_string(::getpid());
        for (const std::string& name :
             {".out.bin." + pid + ".tmp", ".k.pub." + pid + ".tmp", ".batched." + pid + ".tmp"}) {
            write_plain(dir / name, "another process's");
        }
        auto streamed = StreamedFile::create(dir / "out.bin");
        QVERIFY(streamed.has_value());
        QVERIFY(streamed->place(DirHandle::WriteMode::CreateOnly).value_or(false));
        QVERIFY(replace_file_atomically(dir / "k.pub", "key").has_value());
        auto handle = DirHandle::open_root(dir);
        {
            DurableWriteBatch dropped; // staged, never committed: only its own temp goes
            QVERIFY(dropped.stage(*handle, "batched", "x", DirHandle::WriteMode::CreateOnly));
        }
        for (const std::string& name :
             {".out.bin." + pid + ".tmp", ".k.pub." + pid + ".tmp", ".batched." + pid + ".tmp"}) {
            QCOMPARE(text_of(dir / name), std::string("another process's"));
        }
        QCOMPARE(test::files_under(dir).size(), 5u);
    }
};

QTEST_GUILESS_MAIN(TestDirHandle)
#include "tst_dir_handle.moc"
