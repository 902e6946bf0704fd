#pragma once

// Where tests find their data: the shared PyTorch fixtures (../shared beside
// the checkout, or $CACHELENS_SHARED_DIR), the repository's own resources, and
// the built CLI.

#include <QByteArray>
#include <QJsonDocument>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::test {

// The shared/ folder; a test that needs it fails (not skips) when it is missing.
std::filesystem::path shared_dir();
// shared/fixtures/torch-2.11-cu130-h100/<relative>
std::filesystem::path fixture(const std::string& relative);
// The real caches of PyTorch 2.11 on an H200 (tests/data/real-fixtures, unpacked
// into the build tree by CMake): <relative> under torch-2.11-cu130-h200/, e.g.
// "transformer/cache" or "aoti_cuda/mlp_cuda.pt2".
std::filesystem::path real_fixture(const std::string& relative);
// The repository root (resources/, tests/data/).
std::filesystem::path source_dir();
std::filesystem::path sample_cache();
std::filesystem::path test_data(const std::string& relative);
// The built `cachelens` binary.
QString cli_path();

QByteArray read_file(const std::filesystem::path& path);
QJsonDocument read_json(const std::filesystem::path& path);

// Keeps the user's settings (splitters, recent roots) out of a GUI test: while
// it lives, QSettings of this process read and write a temporary
// XDG_CONFIG_HOME, under organization "cachelens-tests" and `application`.
class PrivateSettings {
public:
    explicit PrivateSettings(const char* application);
    bool isValid() const { return dir_.isValid(); }

private:
    QTemporaryDir dir_;
};

// Copies a directory tree into a fresh temporary directory owned by the caller.
void copy_tree(const std::filesystem::path& from, const std::filesystem::path& to);

// The regular files under `dir`, relative to it, sorted.
std::vector<std::string> files_under(const std::filesystem::path& dir);

// Sets the mtime (and atime) of `path`, or of every file under it, to `ago`
// before now: old enough for a prune, or no longer "being written"
// (cachedir::kBeingWrittenNs). A file it cannot touch stops the test binary.
void age_files(const std::filesystem::path& path, std::chrono::seconds ago);

// A file's bytes; a file that cannot be read stops the test binary.
std::string read_bytes(const std::filesystem::path& path);

// Writes `bytes` to `path`, making its parent dirs; a write that fails stops
// the test binary, so no test compares against a setup that did not happen.
void write_bytes(const std::filesystem::path& path, std::string_view bytes);

// Copies one fixture file; the copy is writable by its owner even though the
// fixture is read-only (root ignores the mode, every other user does not).
void copy_file_writable(const std::filesystem::path& from, const std::filesystem::path& to);

struct CliRun {
    int exit_code = -1;
    QByteArray out;
    QByteArray err;
};
// Runs the CLI with `args`, waiting up to two minutes; `environment`, when
// given, replaces the test's own.
CliRun run_cli(const QStringList& args,
               const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment());

} // namespace cachelens::test

// QVERIFY that a Result holds a value, printing its Error when it does not.
// `result` is evaluated once: it may be a call that writes.
#define QVERIFY_RESULT(result)                                                                     \
    do {                                                                                           \
        const auto& verified_result_ = (result);                                                   \
        QVERIFY2(verified_result_.has_value(),                                                     \
                 verified_result_.has_value()                                                      \
                     ? ""                                                                          \
                     : qPrintable(QString::fromStdString(verified_result_.error().describe())));   \
    } while (false)
