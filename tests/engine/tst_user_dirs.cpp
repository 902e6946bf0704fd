// Where cachelens keeps the user's own data (core/user_dirs.h): never /tmp
// when HOME is unset (cron, systemd units), and a data or tune dir another
// user made, owns or links elsewhere is refused, never used: the catalog
// would be readable, and planted Triton launchers or Inductor modules would
// be handed to the user's Python.

#include <cachelens/bench/tune.h>
#include <cachelens/catalog/catalog.h>
#include <cachelens/core/user_dirs.h>

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QTemporaryDir>
#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

using namespace cachelens;
namespace fs = std::filesystem;

namespace {

// Sets (or, with nullopt, unsets) an environment variable for one scope.
class EnvScope {
public:
    EnvScope(const char* name, std::optional<std::string> value)
        : name_(name) {
        if (const char* old = std::getenv(name)) {
            old_ = old;
        }
        value ? ::setenv(name, value->c_str(), 1) : ::unsetenv(name);
    }
    ~EnvScope() { old_ ? ::setenv(name_, old_->c_str(), 1) : ::unsetenv(name_); }
    EnvScope(const EnvScope&) = delete;
    EnvScope& operator=(const EnvScope&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

mode_t mode_of(const fs::path& path) {
    struct stat info {};
    return ::lstat(path.c_str(), &info) == 0 ? info.st_mode : 0;
}

} // namespace

class TestUserDirs : public QObject {
    Q_OBJECT

private slots:
    void homeUnsetTakesThePasswordDatabase() {
        const EnvScope no_xdg("XDG_DATA_HOME", std::nullopt);
        const EnvScope no_home("HOME", std::nullopt);
        const passwd* me = ::getpwuid(::geteuid());
        QVERIFY(me != nullptr);
        const fs::path expected = fs::path(me->pw_dir) / ".local" / "share" / "cachelens";
        QCOMPARE(default_data_dir().string(), expected.string());
        QCOMPARE(catalog::default_catalog_path().string(), (expected / "catalog.sqlite").string());
        QVERIFY(!default_data_dir().string().starts_with("/tmp"));
        {
            const EnvScope relative("HOME", "not/absolute");
            QCOMPARE(default_data_dir().string(), expected.string());
        }
        const EnvScope xdg("XDG_DATA_HOME", "/srv/data");
        QCOMPARE(default_data_dir().string(), std::string("/srv/data/cachelens"));
    }

    void privateDirsAreMadeAndChecked() {
        QTemporaryDir temp;
        const fs::path base = temp.path().toStdString();
        // Made 0700 whatever the umask, parents as usual.
        const fs::path fresh = base / "a" / "b" / "cachelens";
        QVERIFY(ensure_private_dir(fresh).has_value());
        QCOMPARE(mode_of(fresh) & 07777, 0700u);
        // An existing dir of the user's that others could enter is narrowed.
        const fs::path open = base / "open";
        fs::create_directory(open);
        fs::permissions(open, fs::perms::all);
        QVERIFY(ensure_private_dir(open).has_value());
        QCOMPARE(mode_of(open) & 07777, 0700u);

        // A symlink (to a dir someone else controls) or a file: refused.
        fs::create_directory(base / "elsewhere");
        fs::create_directory_symlink(base / "elsewhere", base / "link");
        auto linked = ensure_private_dir(base / "link");
        QVERIFY(!linked);
        QCOMPARE(linked.error().path, (base / "link").string());
        QVERIFY2(linked.error().message.starts_with("a symlink"), linked.error().message.c_str());
        std::ofstream(base / "file") << "x";
        QVERIFY(!ensure_private_dir(base / "file"));
    }

    // Another user's dir, e.g. a `tune` dir planted before the user's first
    // tune: refused, and left as it was.
    void anotherUsersDirIsRefused() {
        if (::geteuid() != 0) {
            // Only root can make a dir owned by someone else; /proc is one.
            auto refused = ensure_private_dir("/proc");
            QVERIFY(!refused);
            QVERIFY(refused.error().message.starts_with("owned by uid 0"));
            return;
        }
        QTemporaryDir temp;
        const fs::path catalog = fs::path(temp.path().toStdString()) / "catalog.sqlite";
        const fs::path planted = catalog.parent_path() / "tune";
        fs::create_directory(planted);
        fs::permissions(planted, fs::perms::all);
        QCOMPARE(::chown(planted.c_str(), 65534, 65534), 0);
        auto scratch = bench::tune::scratch_dir_for(catalog, "cabc123");
        QVERIFY(!scratch);
        QCOMPARE(scratch.error().path, planted.string());
        QVERIFY2(scratch.error().message.starts_with("owned by uid 65534, not by you"),
                 scratch.error().message.c_str());
        QCOMPARE(mode_of(planted) & 07777, 0777u); // left as it was

        QCOMPARE(::chown(planted.c_str(), 0, 0), 0);
        auto mine = bench::tune::scratch_dir_for(catalog, "cabc123");
        QVERIFY(mine.has_value());
        QCOMPARE(mine->string(), (planted / "cabc123").string());
        QCOMPARE(mode_of(planted) & 07777, 0700u);
        QVERIFY(!bench::tune::scratch_dir_for(catalog, "../escape"));
    }
};

QTEST_GUILESS_MAIN(TestUserDirs)
#include "tst_user_dirs.moc"
