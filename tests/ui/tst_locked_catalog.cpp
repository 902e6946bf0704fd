// The window while another process holds the catalog: an index run in a
// second cachelens takes SQLite's exclusive lock for as long as it writes.
// Browsing and searching then must wait in jobs, never in the event loop:
// with the lock held, the window is driven as a user would (search, sort,
// scroll, select an entry by key, follow it to the Compare page) and the
// longest stall of its event loop is measured. Once the lock goes, what was
// asked for arrives.

#include "main_window.h"
#include "models/entry_table_model.h"
#include "pages/browse_page.h"
#include "stall_meter.h"
#include "startup_script.h"
#include "test_paths.h"

#include <sqlite3.h>

#include <QElapsedTimer>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <optional>

using namespace cachelens;
using namespace cachelens::ui;
namespace fs = std::filesystem;

namespace {

const QString kForward = QStringLiteral("flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e");

// A writer holding the catalog as an index run does, excluding readers too
// (WAL mode lets readers in beside an ordinary write transaction).
class CatalogWriter {
public:
    explicit CatalogWriter(const QString& path) {
        if (sqlite3_open(path.toUtf8().constData(), &db_) != SQLITE_OK) {
            return;
        }
        held_ = exec("PRAGMA locking_mode = EXCLUSIVE") && exec("BEGIN EXCLUSIVE") &&
                exec("CREATE TABLE IF NOT EXISTS held_by_test (x)") &&
                exec("INSERT INTO held_by_test VALUES (1)");
    }
    ~CatalogWriter() { sqlite3_close(db_); }
    bool held() const { return held_; }
    // Rolls back and closes: an exclusive WAL connection lets go only then.
    bool release() {
        const bool ok = exec("ROLLBACK");
        sqlite3_close(db_);
        db_ = nullptr;
        return ok;
    }

private:
    bool exec(const char* sql) {
        char* error = nullptr;
        const bool ok = sqlite3_exec(db_, sql, nullptr, nullptr, &error) == SQLITE_OK;
        if (!ok) {
            qWarning("%s: %s", sql, error != nullptr ? error : "?");
        }
        sqlite3_free(error);
        return ok;
    }
    sqlite3* db_ = nullptr;
    bool held_ = false;
};

// Whether another connection can read the catalog right now.
bool readable(const QString& path) {
    sqlite3* db = nullptr;
    bool ok =
        sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK;
    ok = ok && sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr) ==
                   SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

} // namespace

class TestLockedCatalog : public QObject {
    Q_OBJECT

private slots:
    void aWriterHoldingTheCatalogNeverStallsTheWindow() {
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const fs::path cache = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::sample_cache(), cache);
        const QString catalogPath = temp.filePath("catalog.sqlite");
        MainWindow window(catalogPath);
        window.resize(1200, 800);
        window.show();
        {
            QSignalSpy done(&window, &MainWindow::requestDone);
            StartupRequest request;
            request.open = {cache};
            window.runStartupRequest(request);
            QVERIFY(done.wait(60'000));
        }
        BrowsePage* browse = window.browsePage();
        const int allRows = browse->entryModel()->rowCount();
        QVERIFY(allRows > 20);

        CatalogWriter writer(catalogPath);
        QVERIFY(writer.held());
        QVERIFY2(!readable(catalogPath), "the test's writer does not keep readers out");

        QSignalSpy shown(browse, &BrowsePage::entryShown);
        QSignalSpy loaded(browse->entryModel(), &EntryTableModel::loaded);
        test::StallMeter meter(5);
        QTest::keyClicks(browse->searchField(), "triton");
        QTest::qWait(300);
        browse->entryTable()->sortByColumn(EntryTableModel::Size, Qt::DescendingOrder);
        browse->entryTable()->verticalScrollBar()->setValue(
            browse->entryTable()->verticalScrollBar()->maximum());
        QVERIFY(browse->selectEntry(kForward.left(10)));
        browse->browseAllRoots();
        QTest::qWait(1'500);
        const auto longest = static_cast<qint64>(meter.longestMs());
        qInfo("the longest event-loop stall while the catalog was locked: %lld ms", longest);
        QVERIFY2(longest < 100, qPrintable(QStringLiteral("the event loop stalled %1 ms while "
                                                          "the catalog was locked")
                                               .arg(longest)));
        // Nothing read yet: it all waits for the writer.
        QCOMPARE(shown.count(), 0);

        QVERIFY(writer.release());
        QVERIFY(readable(catalogPath));
        QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1, 20'000);
        QCOMPARE(QString::fromStdString(browse->currentEntry()->entry.key), kForward);
        QTRY_VERIFY_WITH_TIMEOUT(!browse->isLoading() && browse->entryModel()->rowCount() > 0,
                                 20'000);
        QVERIFY(loaded.count() > 0);
    }
};

QTEST_MAIN(TestLockedCatalog)
#include "tst_locked_catalog.moc"
