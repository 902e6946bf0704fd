// The Redis remote cache end to end, against a real redis-server on a free
// loopback port (issue #8's "Done when"):
// - push of the devset: one key per FX graph and AOT entry, each value JSON
//   text exactly as Python's json.dumps writes {"data": base64, "time_taken_ms":
//   N}, the base64 decoding (with Qt's decoder, not ours) to the local file's
//   bytes, N as PyTorch computes it from what `cachelens show --json` reads;
//   best_configs left out with a note; named keys with what they link to.
// - pull into an empty dir: the same files, byte for byte; again: all already
//   present; named keys (f…, a…, pt2:…) only those; a missing key a note;
//   dry runs write nothing; bundled autotune to <basename[1:3]>/<basename> in
//   json.dumps layout; a plain autotune value skipped with its note.
// - conflicts: another value left alone (exit 1), --force replaces it, the
//   same data with another time_taken_ms is "already there".
// - SCAN over 10,000 keys, --cache filtering.
// - errors: a stopped server, a wrong password, values that are not JSON or
//   not base64 (show exits 2 naming the key, pull writes nothing), a value
//   whose pickle REDUCEs os.system (refused, nothing written).
// - import safety (issue #17): a real FX graph value whose wrapper module
//   calls os.system is "code with findings", refused with its line (nothing
//   written, nothing run); --allow-code with its id pulls it where PyTorch
//   writes a remote hit; an id that is no finding's is an error before
//   anything is written; the devset's own values are "data only" or
//   "Inductor code".
// - PyTorch's exact value layout, read without the JSON parser, and every
//   other spelling of the same JSON read as the parser reads it.
// - the CLI: ls/show/push/pull, text and --json.

#include "hostile_entries.h"
#include "progress_checks.h"
#include "redis_server.h"
#include "test_paths.h"

#include <cachelens/hash/sha256.h>
#include <cachelens/remote/redis_client.h>
#include <cachelens/remote/remote_cache.h>
#include <cachelens/remote/remote_ops.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <ranges>
#include <set>
#include <tuple>

using namespace cachelens;
using namespace cachelens::remote;
using test::RedisServer;
namespace fs = std::filesystem;

namespace {

// One FX graph or AOT entry of the devset, found by walking the dir.
struct LocalEntry {
    CacheKind kind;
    std::string key;      // the key dir's name
    std::string relative; // fxgraph/<xx>/<key>/<hash> or aotautograd/<key>/<hash>
    std::string redis_key;
};

fs::path devset() {
    return test::fixture("devset/cache");
}

std::vector<LocalEntry> devset_entries() {
    std::vector<LocalEntry> entries;
    for (const auto& [top, kind, cache_id] :
         {std::tuple{"fxgraph", CacheKind::FxGraph, "fx-graph-v1"},
          std::tuple{"aotautograd", CacheKind::AotAutograd, "autograd-experimental"}}) {
        for (const auto& file : fs::recursive_directory_iterator(devset() / top)) {
            if (!file.is_regular_file()) {
                continue;
            }
            const std::string key = file.path().parent_path().filename().string();
            entries.push_back({kind, key, fs::relative(file.path(), devset()).string(),
                               std::string("pt2:") + cache_id + "::" + key + ":c1"});
        }
    }
    std::ranges::sort(entries, {}, &LocalEntry::relative);
    return entries;
}

std::string bytes_of(const fs::path& path) {
    const QByteArray bytes = test::read_file(path);
    return std::string(bytes.constData(), static_cast<std::size_t>(bytes.size()));
}

// Every path under `root` (files and dirs), relative; empty when it is missing.
std::set<std::string> walk(const fs::path& root) {
    std::set<std::string> paths;
    std::error_code error;
    if (!fs::exists(root, error)) {
        return paths;
    }
    for (const auto& item : fs::recursive_directory_iterator(root)) {
        paths.insert(fs::relative(item.path(), root).string());
    }
    return paths;
}

// The regular files under `root`, relative.
std::set<std::string> files_under(const fs::path& root) {
    std::set<std::string> files;
    for (const auto& path : walk(root)) {
        if (fs::is_regular_file(root / path)) {
            files.insert(path);
        }
    }
    return files;
}

QJsonDocument json_of(const test::CliRun& run) {
    QJsonParseError error;
    const auto document = QJsonDocument::fromJson(run.out, &error);
    if (error.error != QJsonParseError::NoError) {
        qWarning("not JSON (%s): %s", qPrintable(error.errorString()), run.out.constData());
    }
    return document;
}

// `cachelens show devset KEY --json` of the one entry under KEY.
QJsonObject shown(const std::string& key) {
    const auto run = test::run_cli(
        {"show", QString::fromStdString(devset().string()), QString::fromStdString(key), "--json"});
    return json_of(run).object();
}

// PyTorch's time_taken_ms: FX int(_time_taken_ns // 1e6); AOT int((forward +
// backward) // 1e6).
qint64 pytorch_time_taken_ms(const LocalEntry& entry) {
    const QJsonObject json = shown(entry.key);
    if (entry.kind == CacheKind::FxGraph) {
        return json["time_taken_ns"].toInteger() / 1'000'000;
    }
    return (json["forward_time_taken_ns"].toInteger() +
            json["backward_time_taken_ns"].toInteger()) /
           1'000'000;
}

// The lines of `output` whose field name is `name` ("  guards   ...").
QStringList field_lines(const QByteArray& output, const QString& name) {
    QStringList lines;
    for (const auto& line : QString::fromUtf8(output).split('\n')) {
        if (line.startsWith("  " + name + " ")) {
            lines << line;
        }
    }
    return lines;
}

// A pickle (protocol 2) of os.system("id"): what a hostile value carries.
const std::string kSystemPickle("\x80\x02"
                                "cos\nsystem\nq\x00X\x02\x00\x00\x00idq\x01\x85q\x02Rq\x03.",
                                31);

// An FX graph key that is on no server here: 'f' and 51 base32 characters.
const std::string kAbsentFxKey = "f" + std::string(51, 'q');

PullOptions pull_options(std::vector<std::string> keys, bool dry_run = false) {
    PullOptions options;
    options.keys = std::move(keys);
    options.dry_run = dry_run;
    return options;
}

PushOptions push_options(std::vector<std::string> keys, bool dry_run = false) {
    PushOptions options;
    options.keys = std::move(keys);
    options.dry_run = dry_run;
    return options;
}

std::string base64_of(std::string_view bytes) {
    return QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size())).toBase64().toStdString();
}

// A value as PyTorch's RemoteFxGraphCache stores one.
std::string fx_value(std::string_view pickle, int time_taken_ms) {
    return "{\"data\": \"" + base64_of(pickle) +
           "\", \"time_taken_ms\": " + std::to_string(time_taken_ms) + "}";
}

bool is_verdict_without_findings(safety::Verdict verdict) {
    return verdict == safety::Verdict::DataOnly || verdict == safety::Verdict::InductorCode;
}

} // namespace

class TestRemote : public QObject {
    Q_OBJECT

private:
    RedisServer server_;
    std::vector<LocalEntry> entries_;

    QString url() const { return QString("redis://127.0.0.1:%1").arg(server_.port()); }

    RedisClient client() const {
        auto connected = RedisClient::connect(server_.endpoint());
        if (!connected) {
            qFatal("%s", connected.error().describe().c_str());
        }
        return std::move(*connected);
    }

    std::string get(const std::string& key) const {
        auto redis = client();
        auto value = redis.get(key);
        if (!value || !*value) {
            qFatal("GET %s: %s", key.c_str(), value ? "missing" : value.error().describe().c_str());
        }
        return **value;
    }

    void set(const std::string& key, const std::string& value) const {
        auto redis = client();
        if (auto done = redis.set(key, value, SetMode::Always); !done || !*done) {
            qFatal("SET %s failed", key.c_str());
        }
    }

    std::vector<std::string> all_keys() const {
        auto redis = client();
        auto keys = redis.scan_all("");
        if (!keys) {
            qFatal("%s", keys.error().describe().c_str());
        }
        return *keys;
    }

    PushResult push_devset(const PushOptions& options = {}) const {
        auto redis = client();
        auto pushed = push_local(redis, devset(), options);
        if (!pushed) {
            qFatal("%s", pushed.error().describe().c_str());
        }
        return std::move(*pushed);
    }

    const LocalEntry& first_of(CacheKind kind) const {
        return *std::ranges::find(entries_, kind, &LocalEntry::kind);
    }

private slots:
    void initTestCase() {
        REQUIRE_REDIS_SERVER();
        QVERIFY2(server_.start(), qPrintable(server_.error()));
        entries_ = devset_entries();
        // The devset: 10 FX graphs and 9 AOT entries, one file per key.
        QCOMPARE(std::ranges::count(entries_, CacheKind::FxGraph, &LocalEntry::kind),
                 std::ptrdiff_t{10});
        QCOMPARE(std::ranges::count(entries_, CacheKind::AotAutograd, &LocalEntry::kind),
                 std::ptrdiff_t{9});
    }

    void init() { QCOMPARE(server_.command({"FLUSHALL"}), std::string("+OK")); }

    void pushWritesPytorchsValues() {
        const PushResult pushed = push_devset();
        QCOMPARE(pushed.items.size(), entries_.size());
        QCOMPARE(pushed.count(PushAction::Set), entries_.size());
        // Exactly one key per entry, nothing else.
        std::vector<std::string> expected;
        for (const auto& entry : entries_) {
            expected.push_back(entry.redis_key);
        }
        std::ranges::sort(expected);
        QCOMPARE(all_keys(), expected);

        // {"data": "<base64>", "time_taken_ms": N} as json.dumps lays it out.
        const QRegularExpression layout(
            "^\\{\"data\": \"([A-Za-z0-9+/]*={0,2})\", \"time_taken_ms\": (0|[1-9][0-9]*)\\}$");
        for (const auto& entry : entries_) {
            const std::string value = get(entry.redis_key);
            const auto match = layout.match(QString::fromStdString(value));
            QVERIFY2(match.hasMatch(), (entry.redis_key + ": " + value.substr(0, 80)).c_str());
            const auto data = QByteArray::fromBase64Encoding(
                match.captured(1).toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
            QVERIFY(static_cast<bool>(data));
            QVERIFY2(*data == test::read_file(devset() / entry.relative), entry.relative.c_str());
            QCOMPARE(match.captured(2).toLongLong(), pytorch_time_taken_ms(entry));
            QVERIFY2(match.captured(2).toLongLong() > 0, entry.relative.c_str());
        }
        const auto note = std::ranges::find_if(pushed.notes, [](const std::string& text) {
            return text.find("best_configs not pushed") != std::string::npos &&
                   text.find("torch build") != std::string::npos;
        });
        QVERIFY2(note != pushed.notes.end(), "no note on the best_configs");

        // Each item names the file it came from.
        for (const auto& item : pushed.items) {
            const auto local =
                std::ranges::find(entries_, item.key.redis_key, &LocalEntry::redis_key);
            QVERIFY(local != entries_.end());
            QCOMPARE(item.source, local->relative);
            QCOMPARE(item.size, fs::file_size(devset() / local->relative));
        }
    }

    void pushOfNamedKeysTakesWhatTheyLinkTo() {
        const LocalEntry& aot = first_of(CacheKind::AotAutograd);
        const QJsonObject json = shown(aot.key);
        std::set<std::string> expected = {aot.redis_key};
        for (const char* link : {"forward_key", "backward_key"}) {
            if (json[link].isString()) {
                expected.insert("pt2:fx-graph-v1::" + json[link].toString().toStdString() + ":c1");
            }
        }
        QVERIFY(expected.size() >= 2);
        const PushResult pushed = push_devset(push_options({aot.key}));
        QCOMPARE(pushed.count(PushAction::Set), expected.size());
        const auto keys = all_keys();
        QCOMPARE(std::set<std::string>(keys.begin(), keys.end()), expected);
    }

    void pushDryRunStoresNothing() {
        const PushResult pushed = push_devset(push_options({}, true));
        QCOMPARE(pushed.count(PushAction::Set), entries_.size());
        QVERIFY(all_keys().empty());

        const auto run = test::run_cli({"remote", "push", QString::fromStdString(devset().string()),
                                        url(), "--dry-run", "--json"});
        QCOMPARE(run.exit_code, 0);
        const QJsonObject json = json_of(run).object();
        QCOMPARE(json["dry_run"].toBool(), true);
        QCOMPARE(json["items"].toArray().size(), qsizetype(entries_.size()));
        for (const auto& item : json["items"].toArray()) {
            QCOMPARE(item.toObject()["action"].toString(), QString("set"));
        }
        QVERIFY(all_keys().empty());
    }

    void pushReportsItsStagesAndStopsBeforeWriting() {
        test::ProgressRecorder recorder;
        auto options = push_options({});
        options.progress = recorder.callback([](const test::SeenProgress& seen, std::size_t) {
            return seen.stage != ProgressStage::Writing;
        });
        auto redis = client();
        auto stopped = push_local(redis, devset(), options);
        QVERIFY(!stopped);
        QCOMPARE(stopped.error().kind, ErrorKind::Cancelled);
        QVERIFY2(stopped.error().message == "cancelled", stopped.error().message.c_str());
        QVERIFY(all_keys().empty());
        // The local files read, the keys compared with the server, then the
        // values to store: stopped at its first report, before any.
        QCOMPARE(recorder.stages(), (std::vector{ProgressStage::Reading, ProgressStage::Checking,
                                                 ProgressStage::Writing}));
        QVERIFY2(recorder.problems(false).isEmpty(), qPrintable(recorder.problems(false)));
        QCOMPARE(recorder.last(ProgressStage::Checking).total, entries_.size());
        QCOMPARE(recorder.last(ProgressStage::Checking).done, entries_.size());
        QCOMPARE(recorder.last(ProgressStage::Writing).total, entries_.size());
        QCOMPARE(recorder.last(ProgressStage::Writing).done, std::uint64_t{0});

        // Not stopped: every stage runs to its total.
        test::ProgressRecorder whole;
        options.progress = whole.callback();
        auto pushed = push_local(redis, devset(), options);
        QVERIFY_RESULT(pushed);
        QVERIFY2(whole.problems().isEmpty(), qPrintable(whole.problems()));
        QCOMPARE(whole.last(ProgressStage::Writing).done, entries_.size());

        // Once the server holds them all, nothing is left to write: no Writing stage.
        test::ProgressRecorder again;
        options.progress = again.callback();
        auto unchanged = push_local(redis, devset(), options);
        QVERIFY_RESULT(unchanged);
        QCOMPARE(unchanged->count(PushAction::AlreadyThere), entries_.size());
        QCOMPARE(again.stages(), (std::vector{ProgressStage::Reading, ProgressStage::Checking}));
    }

    void pullIntoAnEmptyDirGivesTheSameFiles() {
        push_devset();
        QTemporaryDir temp;
        const fs::path into = fs::path(temp.path().toStdString()) / "pulled";
        auto redis = client();

        auto pulled = pull_remote(redis, into, {});
        QVERIFY_RESULT(pulled);
        QCOMPARE(pulled->plan.count(bundle::ImportAction::Written), entries_.size());
        QVERIFY(pulled->plan.clean());
        QVERIFY(pulled->notes.empty());
        // PyTorch's own values: no findings, and the FX graphs carry Inductor's code.
        for (const auto& artifact : pulled->plan.artifacts) {
            QVERIFY2(is_verdict_without_findings(artifact.check.verdict) &&
                         artifact.check.findings.empty() &&
                         artifact.check.consent == safety::CodeConsent::NotNeeded,
                     artifact.key.c_str());
            if (artifact.type == "inductor") {
                QVERIFY2(artifact.check.verdict == safety::Verdict::InductorCode,
                         artifact.key.c_str());
            }
        }
        std::set<std::string> expected;
        for (const auto& entry : entries_) {
            expected.insert(entry.relative);
            QVERIFY2(bytes_of(into / entry.relative) == bytes_of(devset() / entry.relative),
                     entry.relative.c_str());
        }
        QCOMPARE(files_under(into), expected);

        // Again: everything is there already, nothing is written.
        auto again = pull_remote(redis, into, {});
        QVERIFY_RESULT(again);
        QCOMPARE(again->plan.count(bundle::ImportAction::AlreadyPresent), entries_.size());
        QCOMPARE(again->plan.count(bundle::ImportAction::Written), std::size_t{0});
        QCOMPARE(files_under(into), expected);
    }

    void pullOfNamedKeysTakesOnlyThose() {
        push_devset();
        QTemporaryDir temp;
        const fs::path into(temp.path().toStdString());
        const auto fx = std::ranges::find(entries_, CacheKind::FxGraph, &LocalEntry::kind);
        const auto second_fx =
            std::find_if(std::next(fx), entries_.end(),
                         [](const LocalEntry& entry) { return entry.kind == CacheKind::FxGraph; });
        const LocalEntry& aot = first_of(CacheKind::AotAutograd);
        auto redis = client();
        auto pulled =
            pull_remote(redis, into, pull_options({fx->key, aot.key, second_fx->redis_key}));
        QVERIFY_RESULT(pulled);
        QCOMPARE(pulled->plan.count(bundle::ImportAction::Written), std::size_t{3});
        QCOMPARE(files_under(into),
                 (std::set<std::string>{fx->relative, aot.relative, second_fx->relative}));

        // A key the server does not hold: a problem, nothing written, exit 1.
        QTemporaryDir other;
        const fs::path empty = fs::path(other.path().toStdString()) / "c";
        auto missing = pull_remote(redis, empty, pull_options({kAbsentFxKey}));
        QVERIFY_RESULT(missing);
        QVERIFY(missing->plan.artifacts.empty());
        QVERIFY(!missing->clean());
        QCOMPARE(missing->problems.size(), std::size_t{1});
        QVERIFY2(missing->problems[0].find("pt2:fx-graph-v1::" + kAbsentFxKey + ":c1") !=
                         std::string::npos &&
                     missing->problems[0].find("not on the server") != std::string::npos,
                 missing->problems[0].c_str());
        QVERIFY(files_under(empty).empty());
        const auto run = test::run_cli({"remote", "pull", url(), "--into",
                                        QString::fromStdString(empty.string()),
                                        QString::fromStdString(kAbsentFxKey)});
        QCOMPARE(run.exit_code, 1);
        QVERIFY2(run.out.contains("not pulled: pt2:fx-graph-v1::"), run.out.constData());

        // Something that is no key at all: an error before anything is read.
        auto bad = pull_remote(redis, empty, pull_options({"fxgraph"}));
        QVERIFY(!bad);
        QVERIFY(bad.error().message.find("'fxgraph'") != std::string::npos);
    }

    void pullDryRunWritesNothing() {
        push_devset();
        QTemporaryDir temp;
        const fs::path into = fs::path(temp.path().toStdString()) / "dry";
        auto redis = client();
        auto pulled = pull_remote(redis, into, pull_options({}, true));
        QVERIFY_RESULT(pulled);
        QCOMPARE(pulled->plan.count(bundle::ImportAction::Write), entries_.size());
        QVERIFY(walk(temp.path().toStdString()).empty());

        const auto run = test::run_cli({"remote", "pull", url(), "--into",
                                        QString::fromStdString(into.string()), "--dry-run"});
        QCOMPARE(run.exit_code, 0);
        QVERIFY2(run.out.contains("would write"), run.out.constData());
        QVERIFY(walk(temp.path().toStdString()).empty());
    }

    // What a pull writes into and a push writes to is named first, and in
    // the JSON as "target": the dir made absolute, the server.
    void pullAndPushEchoTheirTarget() {
        push_devset();
        QTemporaryDir temp;
        QVERIFY(QDir(temp.path()).mkdir("x"));
        const QString spelled = temp.path() + "/x/../into/";
        const QString target =
            QString::fromStdString((fs::canonical(temp.path().toStdString()) / "into").string());
        const auto dry = test::run_cli({"remote", "pull", url(), "--into", spelled, "--dry-run"});
        QCOMPARE(dry.exit_code, 0);
        QCOMPARE(dry.out.split('\n').first(),
                 ("into " + target + " (to be created): dry run, nothing is written").toUtf8());
        const auto pulled = test::run_cli({"remote", "pull", url(), "--into", spelled, "--json"});
        QCOMPARE(pulled.exit_code, 0);
        QCOMPARE(json_of(pulled).object()["target"].toString(), target);
        QCOMPARE(files_under(target.toStdString()).size(), entries_.size());
        const auto text = test::run_cli({"remote", "pull", url(), "--into", spelled});
        QCOMPARE(text.exit_code, 0);
        QCOMPARE(text.out.split('\n').first(), ("into " + target + ":").toUtf8());

        const auto pushed = test::run_cli(
            {"remote", "push", QString::fromStdString(devset().string()), url(), "--json"});
        QCOMPARE(pushed.exit_code, 0);
        QCOMPARE(json_of(pushed).object()["target"].toString(),
                 QString::fromStdString(server_.endpoint().display()));
    }

    // A key dir without entries (a prune leaves one while PyTorch may still
    // write into it) is a miss to PyTorch: push skips it with a note, and a
    // key named explicitly that has only such a dir is not found.
    void pushSkipsKeyDirsWithoutEntries() {
        QTemporaryDir temp;
        const fs::path dir = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(devset(), dir);
        const std::string fx_key = "f" + std::string(51, 'z');
        const std::string aot_key = "a" + std::string(51, 'z');
        fs::create_directories(dir / "fxgraph/zz" / fx_key);
        fs::create_directories(dir / "aotautograd" / aot_key);

        const auto run =
            test::run_cli({"remote", "push", QString::fromStdString(dir.string()), url()});
        QCOMPARE(run.exit_code, 0);
        for (const std::string& key_dir : {"fxgraph/zz/" + fx_key, "aotautograd/" + aot_key}) {
            QVERIFY2(run.out.contains(QByteArray::fromStdString(
                         key_dir + ": empty key dir (no entries), skipped")),
                     run.out.constData());
        }
        QCOMPARE(all_keys().size(), entries_.size());

        const auto named = test::run_cli({"remote", "push", QString::fromStdString(dir.string()),
                                          url(), QString::fromStdString(fx_key)});
        QCOMPARE(named.exit_code, 2);
        QVERIFY2(named.err.contains(QByteArray::fromStdString("no entries under key " + fx_key +
                                                              " (its dir fxgraph/zz/" + fx_key +
                                                              " is empty)")),
                 named.err.constData());
    }

    void pullReportsItsStagesAndStopsBeforeWriting() {
        push_devset();
        QTemporaryDir temp;
        const fs::path into = fs::path(temp.path().toStdString()) / "c";
        auto redis = client();
        test::ProgressRecorder recorder;
        auto options = pull_options({});
        options.progress = recorder.callback([](const test::SeenProgress& seen, std::size_t) {
            return seen.stage != ProgressStage::Writing;
        });
        auto stopped = pull_remote(redis, into, options);
        QVERIFY(!stopped);
        QCOMPARE(stopped.error().kind, ErrorKind::Cancelled);
        QVERIFY2(stopped.error().message == "cancelled", stopped.error().message.c_str());
        QVERIFY(walk(temp.path().toStdString()).empty());
        // Scanning with the keys found so far, then the values read and the
        // files to write: every entry; stopped before the first file.
        QCOMPARE(recorder.stages(), (std::vector{ProgressStage::Scanning, ProgressStage::Reading,
                                                 ProgressStage::Writing}));
        QVERIFY2(recorder.problems(false).isEmpty(), qPrintable(recorder.problems(false)));
        QCOMPARE(recorder.last(ProgressStage::Scanning).total, entries_.size());
        QCOMPARE(recorder.last(ProgressStage::Reading).done, entries_.size());
        QVERIFY(recorder.last(ProgressStage::Reading).bytes > 0);
        QCOMPARE(recorder.last(ProgressStage::Writing).total, entries_.size());
        QCOMPARE(recorder.last(ProgressStage::Writing).done, std::uint64_t{0});

        // A dry run writes nothing, so it has no Writing stage to stop at.
        test::ProgressRecorder dry_run;
        options.progress = dry_run.callback();
        options.dry_run = true;
        auto dry = pull_remote(redis, into, options);
        QVERIFY_RESULT(dry);
        QVERIFY2(dry_run.problems().isEmpty(), qPrintable(dry_run.problems()));
        QCOMPARE(dry_run.stages(), (std::vector{ProgressStage::Scanning, ProgressStage::Reading}));

        // Stopped after the second file: two whole files, nothing else.
        test::ProgressRecorder partly;
        options.dry_run = false;
        options.progress = partly.callback([](const test::SeenProgress& seen, std::size_t) {
            return seen.stage != ProgressStage::Writing || seen.done < 2;
        });
        auto half = pull_remote(redis, into, options);
        QVERIFY(!half);
        QCOMPARE(half.error().kind, ErrorKind::Cancelled);
        std::size_t files = 0;
        for (const auto& path : walk(into)) {
            files += fs::is_regular_file(into / path) ? 1 : 0;
        }
        QCOMPARE(files, std::size_t{2});
        // The next pull finishes it.
        options.progress = {};
        auto rest = pull_remote(redis, into, options);
        QVERIFY_RESULT(rest);
        QCOMPARE(rest->plan.count(bundle::ImportAction::AlreadyPresent), std::size_t{2});
        QCOMPARE(rest->plan.count(bundle::ImportAction::Written), entries_.size() - 2);
    }

    void pullWritesBundledAutotuneAsPytorchDoes() {
        const std::string first = std::string(64, '7') + ".best_config";
        const std::string second = "c" + std::string(63, 'e') + ".best_config";
        // Compact JSON on the server; the local files are json.dumps of each dict.
        set("pt2:bundled-autotune-v1::" + std::string(64, 'd') + ":c1",
            "{\"" + first +
                "\":{\"XBLOCK\":128,\"num_warps\":4,\"num_stages\":1,\"configs_hash\":\"h1\","
                "\"found_by_coordesc\":false,\"time_taken_ms\":12,\"triton_cache_hash\":null},\"" +
                second + "\":{\"XBLOCK\":8,\"R0_BLOCK\":2048,\"num_warps\":16}}");
        const std::string autotune_key =
            "pt2:" + std::string(64, 'a') + "::" + std::string(64, 'b') + ":c1";
        set(autotune_key, R"({"XBLOCK": 64, "num_warps": 4})");

        QTemporaryDir temp;
        const fs::path into(temp.path().toStdString());
        auto redis = client();
        auto pulled = pull_remote(redis, into, {});
        QVERIFY_RESULT(pulled);
        QCOMPARE(pulled->plan.count(bundle::ImportAction::Written), std::size_t{2});
        const std::string first_path = "77/" + first;
        const std::string second_path = "ee/" + second;
        QCOMPARE(files_under(into), (std::set<std::string>{first_path, second_path}));
        QCOMPARE(bytes_of(into / first_path),
                 std::string(R"({"XBLOCK": 128, "num_warps": 4, "num_stages": 1, )"
                             R"("configs_hash": "h1", "found_by_coordesc": false, )"
                             R"("time_taken_ms": 12, "triton_cache_hash": null})"));
        QCOMPARE(bytes_of(into / second_path),
                 std::string(R"({"XBLOCK": 8, "R0_BLOCK": 2048, "num_warps": 16})"));
        QCOMPARE(pulled->notes.size(), std::size_t{1});
        QVERIFY2(pulled->notes[0].starts_with(autotune_key) &&
                     pulled->notes[0].find("nothing to pull") != std::string::npos,
                 pulled->notes[0].c_str());
    }

    void pushNeverReplacesOtherData() {
        const LocalEntry& fx = first_of(CacheKind::FxGraph);
        const std::string theirs = "{\"data\": \"" + base64_of(std::string("\x80\x04K\x01.", 5)) +
                                   "\", \"time_taken_ms\": 5}";
        set(fx.redis_key, theirs);
        const PushResult pushed = push_devset();
        QCOMPARE(pushed.count(PushAction::Conflict), std::size_t{1});
        QCOMPARE(pushed.count(PushAction::Set), entries_.size() - 1);
        const auto conflict =
            std::ranges::find(pushed.items, PushAction::Conflict, &PushItem::action);
        QCOMPARE(conflict->key.redis_key, fx.redis_key);
        QCOMPARE(get(fx.redis_key), theirs);

        // The CLI: exit 1, the conflict named, the value still theirs.
        const auto run =
            test::run_cli({"remote", "push", QString::fromStdString(devset().string()), url()});
        QCOMPARE(run.exit_code, 1);
        QVERIFY2(run.out.contains(QByteArray("conflict       fx-graph")) &&
                     run.out.contains(QByteArray::fromStdString(fx.redis_key)),
                 run.out.constData());
        QVERIFY2(run.out.contains("1 conflict\n"), run.out.constData());
        QCOMPARE(get(fx.redis_key), theirs);

        // --force replaces it with ours.
        const auto forced =
            test::run_cli({"remote", "push", QString::fromStdString(devset().string()), url(),
                           "--force", "--json"});
        QCOMPARE(forced.exit_code, 0);
        std::map<QString, QString> actions;
        for (const auto& item : json_of(forced).object()["items"].toArray()) {
            actions[item.toObject()["redis_key"].toString()] = item.toObject()["action"].toString();
        }
        QCOMPARE(actions.size(), entries_.size());
        QCOMPARE(actions[QString::fromStdString(fx.redis_key)], QString("replaced"));
        QCOMPARE(std::ranges::count(actions | std::views::values, QString("already there")),
                 qsizetype(entries_.size() - 1));
        const std::string ours =
            "{\"data\": \"" + base64_of(bytes_of(devset() / fx.relative)) +
            "\", \"time_taken_ms\": " + std::to_string(pytorch_time_taken_ms(fx)) + "}";
        QCOMPARE(get(fx.redis_key), ours);
    }

    void theSameDataIsAlreadyThere() {
        const LocalEntry& aot = first_of(CacheKind::AotAutograd);
        // Our data, another compile time (another machine compiled it).
        const std::string theirs = "{\"data\": \"" + base64_of(bytes_of(devset() / aot.relative)) +
                                   "\", \"time_taken_ms\": 987654}";
        set(aot.redis_key, theirs);
        const PushResult pushed = push_devset();
        QCOMPARE(pushed.count(PushAction::AlreadyThere), std::size_t{1});
        QCOMPARE(pushed.count(PushAction::Conflict), std::size_t{0});
        QCOMPARE(std::ranges::find(pushed.items, PushAction::AlreadyThere, &PushItem::action)
                     ->key.redis_key,
                 aot.redis_key);
        QCOMPARE(get(aot.redis_key), theirs);

        const auto run = test::run_cli(
            {"remote", "push", QString::fromStdString(devset().string()), url(), "--json"});
        QCOMPARE(run.exit_code, 0);
        for (const auto& item : json_of(run).object()["items"].toArray()) {
            QCOMPARE(item.toObject()["action"].toString(), QString("already there"));
        }
        QCOMPARE(get(aot.redis_key), theirs);
    }

    void scanOver10000Keys() {
        std::vector<std::pair<std::string, std::string>> items;
        for (int i = 0; i < 10000; ++i) {
            char key[128];
            std::snprintf(key, sizeof(key), "pt2:fx-graph-v1::f%051d:c1", i);
            items.emplace_back(key, encode_value(std::to_string(i), i));
        }
        for (int i = 0; i < 7; ++i) {
            items.emplace_back("pt2:autograd-experimental::a" + std::string(50, 'b') +
                                   std::to_string(i) + ":c1",
                               encode_value("aot", 1));
        }
        const std::string autotune_key =
            "pt2:" + std::string(64, '1') + "::" + std::string(64, '2') + ":c1";
        items.emplace_back(autotune_key, R"({"XBLOCK": 1})");
        items.emplace_back("not-pytorch:fx-graph-v1::f1:c1", "{}");
        auto redis = client();
        auto written = redis.set_many(items, SetMode::Always);
        QVERIFY_RESULT(written);
        QCOMPARE(std::ranges::count(*written, true), qsizetype(items.size()));

        auto fx = list_remote(redis, CacheKind::FxGraph);
        QVERIFY_RESULT(fx);
        QCOMPARE(fx->size(), std::size_t{10000});
        std::set<std::string> seen;
        for (const auto& entry : *fx) {
            QCOMPARE(entry.key.kind, CacheKind::FxGraph);
            seen.insert(entry.key.redis_key);
        }
        QCOMPARE(seen.size(), std::size_t{10000});
        QVERIFY(seen.contains(items.front().first));
        QVERIFY(seen.contains(items[9999].first));
        QCOMPARE((*fx)[0].size, std::int64_t(items[0].second.size()));

        auto everything = list_remote(redis, std::nullopt);
        QVERIFY_RESULT(everything);
        QCOMPARE(everything->size(), std::size_t{10000 + 7 + 1});
        auto aot = list_remote(redis, CacheKind::AotAutograd);
        QVERIFY_RESULT(aot);
        QCOMPARE(aot->size(), std::size_t{7});
        auto autotune = list_remote(redis, CacheKind::Autotune);
        QVERIFY_RESULT(autotune);
        QCOMPARE(autotune->size(), std::size_t{1});
        QCOMPARE((*autotune)[0].key.redis_key, autotune_key);

        const auto run = test::run_cli({"remote", "ls", url(), "--cache", "aot", "--json"});
        QCOMPARE(run.exit_code, 0);
        QCOMPARE(json_of(run).array().size(), qsizetype(7));
        const auto all = test::run_cli({"remote", "ls", url()});
        QCOMPARE(all.exit_code, 0);
        QVERIFY2(all.out.contains("10,008 entries"), all.out.right(200).constData());
    }

    void aStoppedServerIsAnError() {
        RedisServer stopped;
        QVERIFY2(stopped.start(), qPrintable(stopped.error()));
        const auto endpoint = stopped.endpoint();
        stopped.stop();
        const std::string where = "127.0.0.1:" + std::to_string(endpoint.port);

        auto connected = RedisClient::connect(endpoint);
        QVERIFY(!connected);
        const std::string message = connected.error().describe();
        QVERIFY2(message.find("refused") != std::string::npos &&
                     message.find(where) != std::string::npos,
                 message.c_str());

        QTemporaryDir temp;
        const QString into = temp.filePath("pulled");
        const QString address = QString::fromStdString(where);
        for (const QStringList& args :
             {QStringList{"remote", "ls", address},
              QStringList{"remote", "show", address, QString::fromStdString(kAbsentFxKey)},
              QStringList{"remote", "pull", address, "--into", into},
              QStringList{"remote", "push", QString::fromStdString(devset().string()), address}}) {
            const auto run = test::run_cli(args);
            QCOMPARE(run.exit_code, 2);
            QVERIFY2(run.err.contains("refused") && run.err.contains(address.toUtf8()),
                     run.err.constData());
        }
        QVERIFY(walk(temp.path().toStdString()).empty());
    }

    void aWrongPasswordIsAnError() {
        RedisServer guarded;
        QVERIFY2(guarded.start({.password = "right-horse-battery"}), qPrintable(guarded.error()));
        auto endpoint = guarded.endpoint();
        endpoint.password = "wrong-staple";
        auto connected = RedisClient::connect(endpoint);
        QVERIFY(!connected);
        QVERIFY2(connected.error().message.find("authentication failed") != std::string::npos,
                 connected.error().describe().c_str());

        const QString where = QString("127.0.0.1:%1").arg(guarded.port());
        const auto wrong = test::run_cli({"remote", "ls", "redis://:wrong-staple@" + where});
        QCOMPARE(wrong.exit_code, 2);
        QVERIFY2(wrong.err.contains("authentication failed"), wrong.err.constData());
        QVERIFY2(!wrong.err.contains("wrong-staple"), wrong.err.constData());
        const auto none = test::run_cli({"remote", "ls", "redis://" + where});
        QCOMPARE(none.exit_code, 2);
        QVERIFY2(none.err.contains("authentication failed"), none.err.constData());
        const auto right = test::run_cli({"remote", "ls", "redis://:right-horse-battery@" + where});
        QCOMPARE(right.exit_code, 0);
        QVERIFY2(right.out.contains("0 entries"), right.out.constData());
    }

    void valuesThatAreNotJsonOrNotBase64() {
        const std::string not_json = "pt2:fx-graph-v1::f" + std::string(51, 'j') + ":c1";
        const std::string not_base64 =
            "pt2:autograd-experimental::a" + std::string(51, 'b') + ":c1";
        set(not_json, std::string("\x80\x04\x95garbage", 10));
        set(not_base64, R"({"data": "@@@ not base64 @@@", "time_taken_ms": 3})");

        for (const auto& [key, problem] :
             {std::pair{not_json, "not JSON"}, std::pair{not_base64, "not base64"}}) {
            const auto run = test::run_cli({"remote", "show", url(), QString::fromStdString(key)});
            QCOMPARE(run.exit_code, 2);
            QVERIFY2(run.err.contains(QByteArray::fromStdString(key)) && run.err.contains(problem),
                     run.err.constData());
        }

        // Pull: each one reported with its key and problem, nothing written;
        // the good entries beside them are pulled.
        push_devset();
        QTemporaryDir temp;
        const fs::path into(temp.path().toStdString());
        auto redis = client();
        auto pulled = pull_remote(redis, into, pull_options({not_json, not_base64}));
        QVERIFY_RESULT(pulled);
        QVERIFY(pulled->plan.artifacts.empty());
        QVERIFY(!pulled->clean());
        QVERIFY(pulled->notes.empty());
        QCOMPARE(pulled->problems.size(), std::size_t{2});
        QVERIFY2(pulled->problems[0].starts_with(not_json + ": ") &&
                     pulled->problems[0].find("not JSON") != std::string::npos,
                 pulled->problems[0].c_str());
        QVERIFY2(pulled->problems[1].starts_with(not_base64 + ": ") &&
                     pulled->problems[1].find("not base64") != std::string::npos,
                 pulled->problems[1].c_str());
        QVERIFY(walk(into).empty());

        auto everything = pull_remote(redis, into, {});
        QVERIFY_RESULT(everything);
        QCOMPARE(everything->plan.count(bundle::ImportAction::Written), entries_.size());
        QCOMPARE(everything->problems.size(), std::size_t{2});
        QCOMPARE(files_under(into).size(), entries_.size());

        // The CLI names each one and exits 1: a pull that left values behind.
        QTemporaryDir other;
        const auto run =
            test::run_cli({"remote", "pull", url(), "--into", other.path(),
                           QString::fromStdString(not_json), QString::fromStdString(not_base64)});
        QCOMPARE(run.exit_code, 1);
        QVERIFY2(
            run.out.contains(QByteArray::fromStdString("not pulled: " + not_json + ": ")) &&
                run.out.contains(QByteArray::fromStdString("not pulled: " + not_base64 + ": ")),
            run.out.constData());
        QVERIFY(walk(other.path().toStdString()).empty());
        const auto json = test::run_cli({"remote", "pull", url(), "--into", other.path(), "--json",
                                         QString::fromStdString(not_json)});
        QCOMPARE(json.exit_code, 1);
        const auto document = QJsonDocument::fromJson(json.out).object();
        QCOMPARE(document["clean"].toBool(), false);
        QCOMPARE(document["problems"].toArray().size(), 1);
    }

    void aHostileValueIsRefused() {
        const std::string key = "f" + std::string(51, 'h');
        const std::string redis_key = "pt2:fx-graph-v1::" + key + ":c1";
        set(redis_key, "{\"data\": \"" + base64_of(kSystemPickle) + "\", \"time_taken_ms\": 1}");

        QTemporaryDir temp;
        const fs::path into = fs::path(temp.path().toStdString()) / "c";
        auto redis = client();
        auto pulled = pull_remote(redis, into, {});
        QVERIFY_RESULT(pulled);
        QCOMPARE(pulled->plan.artifacts.size(), std::size_t{1});
        const auto& refused = pulled->plan.artifacts[0];
        QCOMPARE(refused.action, bundle::ImportAction::Refused);
        QCOMPARE(refused.check.findings.size(), std::size_t{1});
        QVERIFY(refused.check.findings[0].text.starts_with("REDUCE os.system("));
        QVERIFY(!pulled->plan.clean());
        QVERIFY(walk(into).empty());

        const auto run = test::run_cli(
            {"remote", "pull", url(), "--into", QString::fromStdString(into.string()), "--json"});
        QCOMPARE(run.exit_code, 1);
        const QJsonObject json = json_of(run).object();
        QCOMPARE(json["clean"].toBool(), false);
        const QJsonObject artifact = json["artifacts"].toArray()[0].toObject();
        QCOMPARE(artifact["action"].toString(), QString("refused"));
        QVERIFY2(artifact["problems"].toArray()[0].toString().contains("os.system"),
                 run.out.constData());
        QVERIFY(walk(into).empty());

        // show reads it without running anything: not an FX graph.
        const auto shown_run =
            test::run_cli({"remote", "show", url(), QString::fromStdString(key)});
        QCOMPARE(shown_run.exit_code, 2);
        QVERIFY2(shown_run.err.contains(QByteArray::fromStdString(redis_key)),
                 shown_run.err.constData());
    }

    // A real FX graph value whose wrapper module (which PyTorch imports on a
    // hit) calls os.system: the pickle names only PyTorch's globals, the code
    // audit finds the call.
    void hostileCodeInAValueIsRefusedUnlessAllowed() {
        QTemporaryDir scratch;
        const std::string marker = scratch.path().toStdString() + "/ran";
        const auto hostile = test::wrapperRunning("os.system('touch " + marker + "')");
        const auto& key = hostile.key;
        const auto& content = hostile.content;
        const std::string redis_key = "pt2:fx-graph-v1::" + key + ":c1";
        // The devset's values, with this one in place of the real entry under its key.
        push_devset();
        set(redis_key, fx_value(content, 41));
        // Where PyTorch writes a remote hit: fxgraph/<key[1:3]>/<key>/<sha256_hash(content)>.
        const std::string destination =
            "fxgraph/" + key.substr(1, 2) + "/" + key + "/" + hash::sha256_hash(content);
        auto redis = client();
        QTemporaryDir temp;
        const fs::path into = fs::path(temp.path().toStdString()) / "c";
        const QString into_arg = QString::fromStdString(into.string());

        // Refused with its finding, nothing written.
        auto refused = pull_remote(redis, into, pull_options({key}));
        QVERIFY_RESULT(refused);
        QCOMPARE(refused->plan.artifacts.size(), std::size_t{1});
        const auto& artifact = refused->plan.artifacts[0];
        QCOMPARE(artifact.action, bundle::ImportAction::Refused);
        QVERIFY(artifact.check.verdict == safety::Verdict::CodeWithFindings);
        QVERIFY(artifact.check.consent == safety::CodeConsent::Refused);
        QCOMPARE(artifact.check.destination, destination);
        QCOMPARE(artifact.check.findings.size(), std::size_t{1});
        const auto& finding = artifact.check.findings[0];
        QCOMPARE(finding.rule, std::string("call-outside-vocabulary"));
        QCOMPARE(finding.file, std::string("source_code"));
        QCOMPARE(finding.line, hostile.line);
        QVERIFY2(finding.text.starts_with("os.system('touch "), finding.text.c_str());
        QVERIFY(!refused->clean());
        QVERIFY(walk(into).empty());

        const auto json_run =
            test::run_cli({"remote", "pull", url(), "--into", into_arg, "--json"});
        QCOMPARE(json_run.exit_code, 1);
        QCOMPARE(json_of(json_run).object()["clean"].toBool(), false);
        QJsonObject refused_json;
        for (const auto& value : json_of(json_run).object()["artifacts"].toArray()) {
            const QJsonObject item = value.toObject();
            if (item["key"].toString().toStdString() == key) {
                refused_json = item;
            } else {
                QCOMPARE(item["action"].toString(), QString("written"));
                QVERIFY(item["findings"].toArray().isEmpty());
            }
        }
        QCOMPARE(refused_json["verdict"].toString(), QString("code-with-findings"));
        QCOMPARE(refused_json["action"].toString(), QString("refused"));
        QCOMPARE(refused_json["consent"].toString(), QString("refused"));
        const QJsonArray findings = refused_json["findings"].toArray();
        QCOMPARE(findings.size(), 1);
        const QJsonObject finding_json = findings[0].toObject();
        QCOMPARE(finding_json["file"].toString(), QString("source_code"));
        QCOMPARE(finding_json["line"].toInteger(), qint64(hostile.line));
        QCOMPARE(finding_json["rule"].toString(), QString("call-outside-vocabulary"));
        QVERIFY(finding_json["text"].toString().startsWith("os.system('touch "));
        const QString id = finding_json["id"].toString();
        QCOMPARE(id.toStdString(), finding.id);
        // The values beside it were pulled; it was not.
        QCOMPARE(files_under(into).size(), entries_.size() - 1);
        QVERIFY(!fs::exists(into / destination));

        // The text names the finding by id, file and line.
        QTemporaryDir text_temp;
        const auto text_run = test::run_cli(
            {"remote", "pull", url(), "--into", text_temp.path(), QString::fromStdString(key)});
        QCOMPARE(text_run.exit_code, 1);
        QVERIFY2(text_run.out.contains(
                     (id + " source_code:" + QString::number(hostile.line) + ": os.system('touch ")
                         .toUtf8()),
                 text_run.out.constData());
        QVERIFY(walk(text_temp.path().toStdString()).empty());

        // An id that is no finding's, alone or beside the right one: an error
        // naming it, and nothing written, not even the values without findings.
        const QString wrong = "F0123456789ab";
        for (const QStringList& ids : {QStringList{wrong}, QStringList{id, wrong}}) {
            QTemporaryDir typo_temp;
            const fs::path typo_into = fs::path(typo_temp.path().toStdString()) / "c";
            QStringList args = {"remote", "pull", url(), "--into",
                                QString::fromStdString(typo_into.string())};
            for (const auto& allowed : ids) {
                args << "--allow-code" << allowed;
            }
            const auto typo = test::run_cli(args);
            QCOMPARE(typo.exit_code, 2);
            QVERIFY2(typo.err.contains(("--allow-code " + wrong).toUtf8()), typo.err.constData());
            QVERIFY(!fs::exists(typo_into));

            PullOptions options;
            for (const auto& allowed : ids) {
                options.rules.trust.allowed_ids.push_back(allowed.toStdString());
            }
            auto engine = pull_remote(redis, typo_into, options);
            QVERIFY(!engine);
            QVERIFY2(engine.error().message.find("--allow-code " + wrong.toStdString()) !=
                         std::string::npos,
                     engine.error().message.c_str());
            QVERIFY(!fs::exists(typo_into));
        }

        // Allowed by its id: pulled where PyTorch writes a remote hit.
        QTemporaryDir allowed_temp;
        const fs::path allowed_into = fs::path(allowed_temp.path().toStdString()) / "c";
        const auto allowed = test::run_cli({"remote", "pull", url(), "--into",
                                            QString::fromStdString(allowed_into.string()),
                                            "--allow-code", id, "--json"});
        QCOMPARE(allowed.exit_code, 0);
        const QJsonObject allowed_json = json_of(allowed).object();
        QCOMPARE(allowed_json["clean"].toBool(), true);
        bool seen = false;
        for (const auto& value : allowed_json["artifacts"].toArray()) {
            const QJsonObject item = value.toObject();
            QCOMPARE(item["action"].toString(), QString("written"));
            if (item["key"].toString().toStdString() == key) {
                seen = true;
                QCOMPARE(item["verdict"].toString(), QString("code-with-findings"));
                QCOMPARE(item["consent"].toString(), QString("allowed-by-user"));
                QCOMPARE(item["destination"].toString().toStdString(), destination);
            }
        }
        QVERIFY(seen);
        QCOMPARE(bytes_of(allowed_into / destination), content);
        QCOMPARE(files_under(allowed_into).size(), entries_.size());

        // The engine's pull allows it the same way.
        QTemporaryDir engine_temp;
        PullOptions options = pull_options({key});
        options.rules.trust.allowed_ids = {finding.id};
        auto pulled = pull_remote(redis, engine_temp.path().toStdString(), options);
        QVERIFY_RESULT(pulled);
        QCOMPARE(pulled->plan.artifacts.size(), std::size_t{1});
        QCOMPARE(pulled->plan.artifacts[0].action, bundle::ImportAction::Written);
        QVERIFY(pulled->plan.artifacts[0].check.consent == safety::CodeConsent::AllowedByUser);
        QCOMPARE(files_under(engine_temp.path().toStdString()), std::set<std::string>{destination});

        QVERIFY(!fs::exists(marker)); // nothing ran
    }

    // PyTorch's exact layout is read without the JSON parser; every other
    // spelling of the same JSON must read the same, and broken ones fail.
    void valuesInOtherLayoutsReadAsJson_data() {
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("error");      // empty: decodes
        QTest::addColumn<QByteArray>("payload"); // base64 of the payload
        QTest::addColumn<qint64>("time");        // -1: none
        const QString data = "gASVAQ/+";         // the bytes 80 04 95 01 0f fe
        QTest::newRow("pytorch") << "{\"data\": \"" + data + "\", \"time_taken_ms\": 12}"
                                 << "" << data.toLatin1() << qint64(12);
        QTest::newRow("compact") << "{\"data\":\"" + data + "\",\"time_taken_ms\":12}"
                                 << "" << data.toLatin1() << qint64(12);
        QTest::newRow("reordered") << "{\"time_taken_ms\": 12, \"data\": \"" + data + "\"}"
                                   << "" << data.toLatin1() << qint64(12);
        QTest::newRow("escaped slash") << "{\"data\": \"gASVAQ\\/+\", \"time_taken_ms\": 12}"
                                       << "" << data.toLatin1() << qint64(12);
        QTest::newRow("unicode escape") << "{\"data\": \"\\u0067ASVAQ/+\", \"time_taken_ms\": 12}"
                                        << "" << data.toLatin1() << qint64(12);
        QTest::newRow("no time") << "{\"data\": \"" + data + "\"}"
                                 << "" << data.toLatin1() << qint64(-1);
        QTest::newRow("zero") << "{\"data\": \"" + data + "\", \"time_taken_ms\": 0}"
                              << "" << data.toLatin1() << qint64(0);
        QTest::newRow("float") << "{\"data\": \"" + data + "\", \"time_taken_ms\": 12.5}"
                               << "" << data.toLatin1() << qint64(-1);
        QTest::newRow("space after") << "{\"data\": \"" + data + "\", \"time_taken_ms\": 12} "
                                     << "" << data.toLatin1() << qint64(12);
        QTest::newRow("another key")
            << "{\"data\": \"" + data + "\", \"time_taken_ms\": 1, \"x\": 2}"
            << "" << data.toLatin1() << qint64(1);
        QTest::newRow("leading zero") << "{\"data\": \"" + data + "\", \"time_taken_ms\": 012}"
                                      << "not JSON" << QByteArray() << qint64(-1);
        QTest::newRow("minus alone") << "{\"data\": \"" + data + "\", \"time_taken_ms\": -}"
                                     << "not JSON" << QByteArray() << qint64(-1);
        QTest::newRow("trailing") << "{\"data\": \"" + data + "\", \"time_taken_ms\": 12}x"
                                  << "not JSON" << QByteArray() << qint64(-1);
        QTest::newRow("unclosed") << "{\"data\": \"" + data << "not JSON" << QByteArray()
                                  << qint64(-1);
        QTest::newRow("raw newline") << "{\"data\": \"gASV\nAQ/+\", \"time_taken_ms\": 12}"
                                     << "not JSON" << QByteArray() << qint64(-1);
        QTest::newRow("not base64") << "{\"data\": \"gASVAQ/\", \"time_taken_ms\": 12}"
                                    << "not base64" << QByteArray() << qint64(-1);
    }

    void valuesInOtherLayoutsReadAsJson() {
        QFETCH(QString, value);
        QFETCH(QString, error);
        QFETCH(QByteArray, payload);
        QFETCH(qint64, time);
        const auto decoded = decode_value(CacheKind::FxGraph, value.toStdString());
        if (!error.isEmpty()) {
            QVERIFY(!decoded);
            QVERIFY2(decoded.error().message.find(error.toStdString()) != std::string::npos,
                     decoded.error().message.c_str());
            return;
        }
        QVERIFY_RESULT(decoded);
        const QByteArray expected = QByteArray::fromBase64(payload);
        QCOMPARE(QByteArray::fromStdString(decoded->payload), expected);
        QCOMPARE(decoded->time_taken_ms ? *decoded->time_taken_ms : qint64(-1), time);
    }

    void cliListsEveryEntry() {
        push_devset();
        const LocalEntry& fx = first_of(CacheKind::FxGraph);
        QCOMPARE(server_.command({"EXPIRE", fx.redis_key, "5000"}), std::string(":1"));
        const auto run = test::run_cli({"remote", "ls", url(), "--json"});
        QCOMPARE(run.exit_code, 0);
        const QJsonArray listed = json_of(run).array();
        QCOMPARE(listed.size(), qsizetype(entries_.size()));
        const QStringList fields = {"cache", "cache_id", "key", "redis_key", "size", "ttl"};
        for (const auto& value : listed) {
            const QJsonObject item = value.toObject();
            QCOMPARE(item.keys(), fields);
            const std::string redis_key = item["redis_key"].toString().toStdString();
            const auto local = std::ranges::find(entries_, redis_key, &LocalEntry::redis_key);
            QVERIFY2(local != entries_.end(), redis_key.c_str());
            QCOMPARE(item["key"].toString().toStdString(), local->key);
            QCOMPARE(item["cache"].toString(),
                     QString(local->kind == CacheKind::FxGraph ? "fx-graph" : "aot"));
            QCOMPARE(item["cache_id"].toString(),
                     QString(local->kind == CacheKind::FxGraph ? "fx-graph-v1"
                                                               : "autograd-experimental"));
            QCOMPARE(item["size"].toInteger(), qint64(get(redis_key).size()));
            if (redis_key == fx.redis_key) {
                QVERIFY(item["ttl"].toInteger() > 4900 && item["ttl"].toInteger() <= 5000);
            } else {
                QCOMPARE(item["ttl"].toInteger(), qint64{-1});
            }
        }
        const auto text = test::run_cli({"remote", "ls", url(), "--cache", "fx-graph"});
        QCOMPARE(text.exit_code, 0);
        QVERIFY2(text.out.contains(("10 entries, ")) &&
                     text.out.contains(
                         QString("on redis://127.0.0.1:%1/0").arg(server_.port()).toUtf8()),
                 text.out.constData());
        const auto bad = test::run_cli({"remote", "ls", url(), "--cache", "fxgraph"});
        QCOMPARE(bad.exit_code, 2);
    }

    void cliShowsARemoteEntryAsShowDoes() {
        push_devset();
        for (const LocalEntry* entry :
             {&first_of(CacheKind::FxGraph), &first_of(CacheKind::AotAutograd)}) {
            const QString key = QString::fromStdString(entry->key);
            const auto remote = test::run_cli({"remote", "show", url(), key});
            QCOMPARE(remote.exit_code, 0);
            const auto local =
                test::run_cli({"show", QString::fromStdString(devset().string()), key});
            QCOMPARE(local.exit_code, 0);
            QVERIFY(!field_lines(local.out, "guards").isEmpty());
            QCOMPARE(field_lines(remote.out, "guards"), field_lines(local.out, "guards"));
            QCOMPARE(field_lines(remote.out, "debug lines"), field_lines(local.out, "debug lines"));
            QCOMPARE(field_lines(remote.out, "compile time"),
                     field_lines(local.out, "compile time"));
            QCOMPARE(field_lines(remote.out, "time_taken_ms"),
                     QStringList{QString("  %1 %2 ms")
                                     .arg("time_taken_ms", -22)
                                     .arg(pytorch_time_taken_ms(*entry))});

            const auto json_run = test::run_cli({"remote", "show", url(), key, "--json"});
            QCOMPARE(json_run.exit_code, 0);
            const QJsonObject json = json_of(json_run).object();
            const QJsonObject expected = shown(entry->key);
            for (const char* field :
                 {"kind", "key", "size", "class", "guards_expr", "debug_lines", "time_taken_ns",
                  "forward_key", "backward_key", "forward_time_taken_ns", "kernels"}) {
                QCOMPARE(json[field], expected[field]);
            }
            QCOMPARE(json["redis_key"].toString().toStdString(), entry->redis_key);
            QCOMPARE(json["time_taken_ms"].toInteger(), pytorch_time_taken_ms(*entry));
            QCOMPARE(json["ttl"].toInteger(), qint64{-1});
        }
        const LocalEntry& fx = first_of(CacheKind::FxGraph);
        QVERIFY(shown(fx.key)["debug_lines"].toArray().size() > 0);

        const auto missing =
            test::run_cli({"remote", "show", url(), QString::fromStdString(kAbsentFxKey)});
        QCOMPARE(missing.exit_code, 2);
        QVERIFY2(missing.err.contains("no such key"), missing.err.constData());
    }

    void cliPushesAndPullsWithJson() {
        const auto pushed = test::run_cli(
            {"remote", "push", QString::fromStdString(devset().string()), url(), "--json"});
        QCOMPARE(pushed.exit_code, 0);
        const QJsonObject push_json = json_of(pushed).object();
        QCOMPARE(push_json["server"].toString(),
                 QString("redis://127.0.0.1:%1/0").arg(server_.port()));
        QCOMPARE(push_json["dry_run"].toBool(), false);
        const QJsonArray items = push_json["items"].toArray();
        QCOMPARE(items.size(), qsizetype(entries_.size()));
        for (const auto& value : items) {
            const QJsonObject item = value.toObject();
            QCOMPARE(item.keys(),
                     (QStringList{"action", "cache", "key", "redis_key", "size", "source"}));
            QCOMPARE(item["action"].toString(), QString("set"));
            const auto local = std::ranges::find(
                entries_, item["redis_key"].toString().toStdString(), &LocalEntry::redis_key);
            QVERIFY(local != entries_.end());
            QCOMPARE(item["source"].toString().toStdString(), local->relative);
        }
        QVERIFY(push_json["notes"].toArray().size() >= 1);
        QCOMPARE(all_keys().size(), entries_.size());

        QTemporaryDir temp;
        const fs::path into = fs::path(temp.path().toStdString()) / "pulled";
        const auto pulled = test::run_cli(
            {"remote", "pull", url(), "--into", QString::fromStdString(into.string()), "--json"});
        QCOMPARE(pulled.exit_code, 0);
        const QJsonObject pull_json = json_of(pulled).object();
        QCOMPARE(pull_json["clean"].toBool(), true);
        QCOMPARE(pull_json["dry_run"].toBool(), false);
        QCOMPARE(pull_json["into"].toString().toStdString(), into.string());
        std::set<std::string> destinations;
        for (const auto& value : pull_json["artifacts"].toArray()) {
            const QJsonObject artifact = value.toObject();
            QCOMPARE(artifact["action"].toString(), QString("written"));
            QVERIFY(artifact["problems"].toArray().isEmpty());
            const QString verdict = artifact["verdict"].toString();
            QVERIFY2(verdict == "data-only" || verdict == "inductor-code", pulled.out.constData());
            if (artifact["type"].toString() == "inductor") {
                QCOMPARE(verdict, QString("inductor-code"));
            }
            QVERIFY(artifact["findings"].toArray().isEmpty());
            QCOMPARE(artifact["consent"].toString(), QString("not-needed"));
            destinations.insert(artifact["destination"].toString().toStdString());
        }
        QCOMPARE(destinations, files_under(into));
        QCOMPARE(destinations.size(), entries_.size());
        for (const auto& path : destinations) {
            QVERIFY2(bytes_of(into / path) == bytes_of(devset() / path), path.c_str());
        }

        const auto again = test::run_cli(
            {"remote", "pull", url(), "--into", QString::fromStdString(into.string())});
        QCOMPARE(again.exit_code, 0);
        QVERIFY2(again.out.contains(
                     QString("0 written, %1 already present").arg(entries_.size()).toUtf8()),
                 again.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestRemote)
#include "tst_remote.moc"
