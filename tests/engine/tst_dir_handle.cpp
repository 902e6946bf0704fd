// core/dir_handle.h's writers, the one way cachelens puts a file in place:
// nothing under the file's name until the rename, CreateOnly never replaces,
// a writer dropped half way leaves nothing behind.

#include "test_paths.h"

#include <cachelens/core/dir_handle.h>

#include <sys/stat.h>
#include <unistd.h>

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

using namespace cachelens;
namespace fs = std::filesystem;

namespace {

std::string text_of(const fs::path& path) {
    return test::read_file(path).toStdString();
}

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
        const auto during = test::files_under(dir);
        QCOMPARE(during.size(), 1u);
        QVERIFY(during[0].starts_with(".out.bin.") && during[0].ends_with(".tmp"));
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
};

QTEST_GUILESS_MAIN(TestDirHandle)
#include "tst_dir_handle.moc"
