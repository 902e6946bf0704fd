#include "test_paths.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <QCoreApplication>
#include <QFile>
#include <QProcess>
#include <QtTest>

#include <algorithm>
#include <cstdlib>
#include <fstream>

namespace cachelens::test {

std::filesystem::path shared_dir() {
    if (const char* env = std::getenv("CACHELENS_SHARED_DIR"); env != nullptr && *env != 0) {
        return env;
    }
    return CACHELENS_DEFAULT_SHARED_DIR;
}

std::filesystem::path fixture(const std::string& relative) {
    const auto root = shared_dir() / "fixtures" / "torch-2.11-cu130-h100";
    if (!std::filesystem::is_directory(root)) {
        qFatal("the PyTorch fixtures are missing: %s (check out shared/ beside the repository "
               "or set CACHELENS_SHARED_DIR)",
               root.c_str());
    }
    return root / relative;
}

std::filesystem::path real_fixture(const std::string& relative) {
    const std::filesystem::path root =
        std::filesystem::path(CACHELENS_REAL_FIXTURES_DIR) / "torch-2.11-cu130-h200";
    if (!std::filesystem::is_directory(root)) {
        qFatal("the real fixtures are not unpacked: %s (building any test unpacks them)",
               root.c_str());
    }
    return root / relative;
}

std::filesystem::path source_dir() {
    return CACHELENS_SOURCE_DIR;
}

std::filesystem::path sample_cache() {
    return source_dir() / "resources" / "sample-cache";
}

std::filesystem::path test_data(const std::string& relative) {
    return source_dir() / "tests" / "data" / relative;
}

QString cli_path() {
    const QByteArray env = qgetenv("CACHELENS_CLI");
    if (env.isEmpty()) {
        qFatal("CACHELENS_CLI is not set (CTest sets it to the built cachelens binary)");
    }
    return QString::fromLocal8Bit(env);
}

QByteArray read_file(const std::filesystem::path& path) {
    QFile file(QString::fromStdString(path.string()));
    if (!file.open(QIODevice::ReadOnly)) {
        qFatal("cannot read %s", path.c_str());
    }
    return file.readAll();
}

QJsonDocument read_json(const std::filesystem::path& path) {
    QJsonParseError error{};
    auto doc = QJsonDocument::fromJson(read_file(path), &error);
    if (error.error != QJsonParseError::NoError) {
        qFatal("%s is not JSON: %s", path.c_str(), qPrintable(error.errorString()));
    }
    return doc;
}

std::string read_bytes(const std::filesystem::path& path) {
    const QByteArray bytes = read_file(path);
    return std::string(bytes.constData(), static_cast<std::size_t>(bytes.size()));
}

void write_bytes(const std::filesystem::path& path, std::string_view bytes) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) {
        qFatal("cannot write %s", path.c_str());
    }
}

void copy_tree(const std::filesystem::path& from, const std::filesystem::path& to) {
    namespace fs = std::filesystem;
    // Made dir by dir, not with fs::copy(recursive): that gives each copy the
    // fixture's mode first (dirs are 0555), and a user who is not root then
    // cannot fill it. Copies are writable so tests can damage them.
    fs::create_directories(to);
    for (const auto& entry : fs::recursive_directory_iterator(from)) {
        const fs::path target = to / entry.path().lexically_relative(from);
        if (entry.is_directory()) {
            fs::create_directories(target);
        } else {
            copy_file_writable(entry.path(), target);
        }
    }
}

std::vector<std::string> files_under(const std::filesystem::path& dir) {
    namespace fs = std::filesystem;
    std::vector<std::string> out;
    for (const auto& item : fs::recursive_directory_iterator(dir)) {
        if (item.is_regular_file()) {
            out.push_back(fs::relative(item.path(), dir).string());
        }
    }
    std::ranges::sort(out);
    return out;
}

void age_files(const std::filesystem::path& path, std::chrono::seconds ago) {
    namespace fs = std::filesystem;
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now - ago).count();
    const timespec times[2] = {{seconds, 0}, {seconds, 0}};
    const auto touch = [&](const fs::path& file) {
        if (::utimensat(AT_FDCWD, file.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0) {
            qFatal("cannot set the mtime of %s", file.c_str());
        }
    };
    if (!fs::is_directory(path)) {
        touch(path);
        return;
    }
    for (const auto& item : fs::recursive_directory_iterator(path)) {
        if (item.is_regular_file()) {
            touch(item.path());
        }
    }
}

void copy_file_writable(const std::filesystem::path& from, const std::filesystem::path& to) {
    namespace fs = std::filesystem;
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    fs::permissions(to, fs::perms::owner_write | fs::perms::owner_read, fs::perm_options::add);
}

CliRun run_cli(const QStringList& args, const QProcessEnvironment& environment) {
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(cli_path(), args);
    CliRun run;
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished();
        run.err = "timed out or failed to start";
        return run;
    }
    run.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

PrivateSettings::PrivateSettings(const char* application) {
    if (dir_.isValid()) {
        qputenv("XDG_CONFIG_HOME", dir_.path().toUtf8());
    }
    QCoreApplication::setOrganizationName("cachelens-tests");
    QCoreApplication::setApplicationName(application);
}

} // namespace cachelens::test
