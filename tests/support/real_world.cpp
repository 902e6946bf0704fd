#include "real_world.h"

#include "test_paths.h"

#include <QProcess>
#include <QtTest>

#include <algorithm>

namespace cachelens::test {

namespace {

namespace fs = std::filesystem;

QString qs(const fs::path& path) {
    return QString::fromStdString(path.string());
}

void run_python(const QStringList& args) {
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(QStringLiteral("python3"), args);
    if (!process.waitForFinished(600'000) || process.exitStatus() != QProcess::NormalExit ||
        process.exitCode() != 0) {
        qFatal("python3 %s failed: %s", qPrintable(args.join(u' ')), process.readAll().constData());
    }
}

void add_sources(const fs::path& root, const fs::path& work, bool miniatures,
                 std::vector<RealWorldSource>& out) {
    std::error_code error;
    std::vector<fs::path> dirs;
    for (const auto& item : fs::directory_iterator(root, error)) {
        if (item.is_directory(error) && fs::is_directory(item.path() / "cache", error)) {
            dirs.push_back(item.path());
        }
    }
    std::ranges::sort(dirs);
    for (const auto& dir : dirs) {
        const QString prefix = miniatures ? QStringLiteral("mini/") : QStringLiteral("real/");
        const fs::path facts =
            work / "facts" /
            (prefix.chopped(1).toStdString() + "-" + dir.filename().string() + ".json");
        fs::create_directories(facts.parent_path());
        run_python({qs(source_dir() / "tests/data/real-world/facts.py"), qs(dir),
                    QStringLiteral("-o"), qs(facts)});
        out.push_back({prefix + QString::fromStdString(dir.filename().string()), dir, dir / "cache",
                       read_json(facts).object()});
    }
}

} // namespace

std::vector<RealWorldSource> real_world_sources(const fs::path& work) {
    std::vector<RealWorldSource> out;
    const fs::path minis = work / "releases";
    run_python({qs(source_dir() / "tests/data/releases/make_release_caches.py"), qs(minis)});
    add_sources(minis, work, true, out);
    std::vector<fs::path> real_roots;
    if (const QString listed = qEnvironmentVariable("CACHELENS_REAL_WORLD"); !listed.isEmpty()) {
        for (const auto& root : listed.split(u':', Qt::SkipEmptyParts)) {
            real_roots.emplace_back(root.toStdString());
        }
    } else if (fs::is_directory(shared_dir() / "real-world")) {
        real_roots.push_back(shared_dir() / "real-world");
    }
    for (const auto& root : real_roots) {
        if (!fs::is_directory(root)) {
            qFatal("CACHELENS_REAL_WORLD names %s, which is no dir", root.c_str());
        }
        add_sources(root, work, false, out);
    }
    return out;
}

} // namespace cachelens::test
