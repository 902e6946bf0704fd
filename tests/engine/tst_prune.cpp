// Pruning a real cache: what goes, goes whole and oldest first, and leaves a
// cache PyTorch's own links still hold in (verify clean); what is recent,
// being written, not ours, or changed since the plan stays; symlinks are never
// followed out of the root; the catalog matches the dir afterwards.

#include "catalog_checks.h"
#include "test_paths.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/verify.h>
#include <cachelens/catalog/catalog.h>
#include <cachelens/core/dir_handle.h>
#include <cachelens/core/test_seams.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>

using namespace cachelens;
using test::write_bytes;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kDayNs = 86400LL * 1'000'000'000;

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

void set_mtime(const fs::path& file, std::int64_t mtime_ns) {
    const timespec times[2] = {{mtime_ns / 1'000'000'000, mtime_ns % 1'000'000'000},
                               {mtime_ns / 1'000'000'000, mtime_ns % 1'000'000'000}};
    QVERIFY2(::utimensat(AT_FDCWD, file.c_str(), times, AT_SYMLINK_NOFOLLOW) == 0, file.c_str());
}

// Every file under `dir` (recursively) last written `days` ago.
void age_files(const fs::path& dir, double days) {
    const auto mtime = now_ns() - static_cast<std::int64_t>(days * kDayNs);
    for (const auto& item : fs::recursive_directory_iterator(dir)) {
        if (item.is_regular_file()) {
            set_mtime(item.path(), mtime);
        }
    }
}

// Every dir under fxgraph/ and aotautograd/ (shards, key dirs) last written `days` ago.
void age_key_dirs(const fs::path& dir, double days) {
    const auto mtime = now_ns() - static_cast<std::int64_t>(days * kDayNs);
    for (const char* top : {"fxgraph", "aotautograd"}) {
        for (const auto& item : fs::recursive_directory_iterator(dir / top)) {
            if (item.is_directory()) {
                set_mtime(item.path(), mtime);
            }
        }
    }
}

std::string fx_key_dir(const std::string& key) {
    return "fxgraph/" + key.substr(1, 2) + "/" + key;
}

QJsonObject json_of(const test::CliRun& run) {
    return QJsonDocument::fromJson(run.out).object();
}

std::set<std::string> strings_of(const QJsonArray& array) {
    std::set<std::string> out;
    for (const auto& value : array) {
        out.insert(value.toString().toStdString());
    }
    return out;
}

// path -> (size, mtime, inode) of every file under `dir`.
std::map<std::string, std::tuple<std::uintmax_t, std::int64_t, std::uint64_t>>
snapshot(const fs::path& dir) {
    std::map<std::string, std::tuple<std::uintmax_t, std::int64_t, std::uint64_t>> files;
    for (const auto& item : fs::recursive_directory_iterator(dir)) {
        struct stat info {};
        if (::lstat(item.path().c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
            files[fs::relative(item.path(), dir).string()] = {
                static_cast<std::uintmax_t>(info.st_size),
                info.st_mtim.tv_sec * 1'000'000'000LL + info.st_mtim.tv_nsec,
                static_cast<std::uint64_t>(info.st_ino)};
        }
    }
    return files;
}

std::uint64_t total_bytes(const fs::path& dir) {
    std::uint64_t total = 0;
    for (const auto& [path, file] : snapshot(dir)) {
        total += std::get<0>(file);
    }
    return total;
}

// The FX key dirs under `dir`, each with its entry files.
std::map<std::string, std::set<std::string>> fx_keys(const fs::path& dir) {
    std::map<std::string, std::set<std::string>> keys;
    if (!fs::exists(dir / "fxgraph")) {
        return keys;
    }
    for (const auto& item : fs::recursive_directory_iterator(dir / "fxgraph")) {
        if (item.is_regular_file() && !cachedir::is_temp_name(item.path().filename().string())) {
            keys[item.path().parent_path().filename()].insert(item.path().filename());
        }
    }
    return keys;
}

// What `verify` finds that a prune could cause: links to what is gone, Triton
// kernel dirs missing files, entries that no longer parse.
std::string verify_problems(const fs::path& dir) {
    auto scan = cachedir::scan_cache_dir(dir);
    if (!scan) {
        return scan.error().describe();
    }
    std::string problems;
    for (const auto& problem : cachedir::verify_cache_dir(*scan).problems) {
        using cachedir::ProblemKind;
        if (problem.kind != ProblemKind::DanglingLink && problem.kind != ProblemKind::Incomplete &&
            problem.kind != ProblemKind::ParseError) {
            continue;
        }
        problems += problem.path + ": " + problem.message + "\n";
    }
    return problems;
}

bool defined_by_fx(const catalog::PruneUnit& unit) {
    for (std::size_t i = 0; i < unit.defining_entries; ++i) {
        if (unit.entries[i].kind == cachedir::FileKind::FxGraph) {
            return true;
        }
    }
    return false;
}

const catalog::PruneEntry* first_fx(const catalog::PruneUnit& unit) {
    for (const auto& entry : unit.entries) {
        if (entry.kind == cachedir::FileKind::FxGraph) {
            return &entry;
        }
    }
    return nullptr;
}

const catalog::PruneEntry* find_planned(const catalog::PrunePlan& plan, cachedir::FileKind kind) {
    for (const auto& unit : plan.units) {
        for (const auto& entry : unit.entries) {
            if (entry.kind == kind) {
                return &entry;
            }
        }
    }
    return nullptr;
}

// A copy of the devset cache, every file 40 days old, and a catalog of it.
// Starts `holder` keeping `file` open (fd 3) until it is killed, as a run
// loading its kernels does; true once the file is open.
bool hold_open(QProcess& holder, const fs::path& file) {
    holder.start("bash", {"-c", "exec 3<\"$1\"; echo ready; exec sleep 60", "holder",
                          QString::fromStdString(file.string())});
    return holder.waitForReadyRead(10000);
}

struct AgedCache {
    QTemporaryDir temp;
    fs::path dir;
    fs::path catalog_path;
    std::optional<catalog::Catalog> catalog;

    bool make() {
        if (!temp.isValid()) {
            return false;
        }
        dir = fs::path(temp.path().toStdString()) / "cache";
        catalog_path = fs::path(temp.path().toStdString()) / "catalog.sqlite";
        test::copy_tree(test::fixture("devset/cache"), dir);
        age_files(dir, 40);
        return reopen();
    }
    bool reopen() {
        catalog.reset();
        auto opened = catalog::Catalog::open(catalog_path);
        if (!opened) {
            qWarning("%s", opened.error().describe().c_str());
            return false;
        }
        catalog.emplace(std::move(*opened));
        auto indexed = catalog->index(dir);
        return indexed && indexed->parse_errors == 0;
    }
    QString path() const { return QString::fromStdString(dir.string()); }
    QString catalog_arg() const { return QString::fromStdString(catalog_path.string()); }
    // The plan of deleting what was last written longer ago than `age_ns`.
    Result<catalog::PrunePlan> plan_older_than(std::int64_t age_ns) const {
        catalog::PruneOptions options;
        options.older_than_ns = age_ns;
        return catalog->plan_prune(dir, options);
    }
};

} // namespace

class TestPrune : public QObject {
    Q_OBJECT

private slots:
    void dryRunDeletesNothing() {
        AgedCache cache;
        QVERIFY(cache.make());
        const auto before = snapshot(cache.dir);
        const auto run = test::run_cli({"prune", cache.path(), "--max-size", "1M", "--dry-run",
                                        "--json", "--catalog", cache.catalog_arg()});
        QCOMPARE(run.exit_code, 0);
        QCOMPARE(snapshot(cache.dir), before);
        const QJsonObject json = QJsonDocument::fromJson(run.out).object();
        QVERIFY(json["dry_run"].toBool());
        // Where it deletes: first in the text, "target" in the JSON.
        const QString target = QString::fromStdString(fs::canonical(cache.dir).string());
        QCOMPARE(json["target"].toString(), target);
        const auto text = test::run_cli({"prune", cache.path(), "--max-size", "1M", "--dry-run",
                                         "--catalog", cache.catalog_arg()});
        QVERIFY2(text.out.startsWith((target + ": ").toUtf8()), text.out.constData());
        QVERIFY(json["bytes_after"].toDouble() <= 1024 * 1024);
        QCOMPARE(json["bytes_before"].toDouble(), double(total_bytes(cache.dir)));
        // The JSON lists exactly what the engine plans.
        catalog::PruneOptions options;
        options.max_size = 1024 * 1024;
        auto plan = cache.catalog->plan_prune(cache.dir, options);
        QVERIFY_RESULT(plan);
        const QJsonArray units = json["units"].toArray();
        QCOMPARE(units.size(), qsizetype(plan->units.size()));
        for (qsizetype u = 0; u < units.size(); ++u) {
            const QJsonArray entries = units[u].toObject()["entries"].toArray();
            QCOMPARE(entries.size(), qsizetype(plan->units[u].entries.size()));
            for (qsizetype e = 0; e < entries.size(); ++e) {
                QCOMPARE(entries[e].toObject()["path"].toString().toStdString(),
                         plan->units[u].entries[e].path);
            }
        }
    }

    void maxSizeEvictsOldestGroupsWhole() {
        AgedCache cache;
        QVERIFY(cache.make());
        const auto keys_before = fx_keys(cache.dir);
        QVERIFY(keys_before.size() > 4);
        // One key written 5 days ago: the newest group, the last to go.
        const std::string newest_key = keys_before.rbegin()->first;
        for (const auto& item : fs::recursive_directory_iterator(cache.dir / "fxgraph")) {
            if (item.is_regular_file() && item.path().parent_path().filename() == newest_key) {
                set_mtime(item.path(), now_ns() - 5 * kDayNs);
            }
        }
        QVERIFY(cache.reopen());
        const std::uint64_t limit = total_bytes(cache.dir) / 2;
        catalog::PruneOptions options;
        options.max_size = limit;
        auto plan = cache.catalog->plan_prune(cache.dir, options);
        QVERIFY_RESULT(plan);
        QVERIFY(plan->size_reached);
        QVERIFY(!plan->units.empty());
        std::int64_t previous = 0;
        for (const auto& unit : plan->units) {
            QCOMPARE(unit.reason, catalog::PruneReason::MaxSize);
            QVERIFY2(unit.mtime_ns >= previous, "units must go oldest first");
            previous = unit.mtime_ns;
        }
        auto outcome = cache.catalog->prune(*plan);
        QVERIFY_RESULT(outcome);
        QVERIFY(outcome->errors.empty());
        QVERIFY2(outcome->kept.empty(), outcome->kept.empty() ? "" : outcome->kept[0].c_str());
        QCOMPARE(outcome->bytes_freed, plan->bytes_before - plan->bytes_after);
        QVERIFY(total_bytes(cache.dir) <= limit);
        QCOMPARE(total_bytes(cache.dir), plan->bytes_after);
        // Whole keys: every key left has all its entries.
        const auto keys_after = fx_keys(cache.dir);
        QVERIFY(keys_after.size() < keys_before.size());
        for (const auto& [key, files] : keys_after) {
            QCOMPARE(files, keys_before.at(key));
        }
        QVERIFY(keys_after.contains(newest_key));
        // Nothing left behind points at something that went.
        const std::string problems = verify_problems(cache.dir);
        QVERIFY2(problems.empty(), problems.c_str());
    }

    void olderThanKeepsWhatNewerEntriesUse() {
        AgedCache cache;
        QVERIFY(cache.make());
        // Everything an FX key uses, rewritten 5 days ago: that key and what it
        // uses must survive --older-than 30d, the rest goes.
        catalog::PruneOptions everything;
        everything.older_than_ns = 0;
        auto full = cache.catalog->plan_prune(cache.dir, everything);
        QVERIFY_RESULT(full);
        const catalog::PruneUnit* kept_unit = nullptr;
        for (const auto& unit : full->units) {
            if (defined_by_fx(unit) && unit.entries.size() > unit.defining_entries + 2) {
                kept_unit = &unit;
                break;
            }
        }
        QVERIFY2(kept_unit != nullptr, "no FX group using modules in the devset");
        for (const auto& entry : kept_unit->entries) {
            for (const auto& file : entry.files) {
                set_mtime(cache.dir / file.path, now_ns() - 5 * kDayNs);
            }
        }
        QVERIFY(cache.reopen());
        catalog::PruneOptions options;
        options.older_than_ns = 30 * kDayNs;
        auto plan = cache.catalog->plan_prune(cache.dir, options);
        QVERIFY_RESULT(plan);
        auto outcome = cache.catalog->prune(*plan);
        QVERIFY_RESULT(outcome);
        QVERIFY(outcome->errors.empty());
        for (const auto& entry : kept_unit->entries) {
            QVERIFY2(fs::exists(cache.dir / entry.path), entry.path.c_str());
        }
        for (const auto& unit : plan->units) {
            QCOMPARE(unit.reason, catalog::PruneReason::OlderThan);
            for (const auto& entry : unit.entries) {
                QVERIFY2(!fs::exists(cache.dir / entry.path), entry.path.c_str());
            }
        }
        const std::string problems = verify_problems(cache.dir);
        QVERIFY2(problems.empty(), problems.c_str());
    }

    void recentAndForeignFilesStay() {
        AgedCache cache;
        QVERIFY(cache.make());
        const fs::path writing = cache.dir / "fxgraph" / "zz" / ".4242.139.tmp";
        const fs::path lock = cache.dir / "locks" / "abc.lock";
        const fs::path unknown = cache.dir / "notes.txt";
        const fs::path fresh_module = cache.dir / "zz" / "czzfreshmodule.py";
        write_bytes(writing, "half an FX entry");
        write_bytes(lock, "");
        write_bytes(unknown, "a user's notes");
        write_bytes(fresh_module, "import triton\n");
        set_mtime(writing, now_ns() - 90 * kDayNs);
        set_mtime(lock, now_ns() - 90 * kDayNs);
        set_mtime(unknown, now_ns() - 90 * kDayNs);
        QVERIFY(cache.reopen());
        const auto run = test::run_cli({"prune", cache.path(), "--max-size", "0", "--older-than",
                                        "1s", "--catalog", cache.catalog_arg()});
        QCOMPARE(run.exit_code, 1); // the limit cannot be met: exit 1, not an error
        QVERIFY2(run.out.contains("cannot be reached"), run.out.constData());
        for (const auto& path : {writing, lock, unknown, fresh_module}) {
            QVERIFY2(fs::exists(path), path.c_str());
        }
        QVERIFY(fx_keys(cache.dir).empty());
        // Only what is always kept is left.
        std::set<std::string> left;
        for (const auto& [path, file] : snapshot(cache.dir)) {
            left.insert(path);
        }
        QCOMPARE(left, (std::set<std::string>{"fxgraph/zz/.4242.139.tmp", "locks/abc.lock",
                                              "notes.txt", "zz/czzfreshmodule.py"}));
        // With --keep-recent 0s the fresh module goes as well.
        const auto again = test::run_cli({"prune", cache.path(), "--older-than", "0s",
                                          "--keep-recent", "0s", "--catalog", cache.catalog_arg()});
        QCOMPARE(again.exit_code, 0);
        QVERIFY(!fs::exists(fresh_module));
        QVERIFY(fs::exists(writing) && fs::exists(lock) && fs::exists(unknown));
    }

    void symlinksAreNeverFollowed() {
        AgedCache cache;
        QVERIFY(cache.make());
        // A shard dir swapped for a symlink to a copy outside the root after
        // the plan was made: the copy outside must survive.
        catalog::PruneOptions options;
        options.older_than_ns = 0;
        auto plan = cache.catalog->plan_prune(cache.dir, options);
        QVERIFY_RESULT(plan);
        const auto* module = find_planned(*plan, cachedir::FileKind::Module);
        QVERIFY(module != nullptr);
        const fs::path shard = cache.dir / fs::path(module->path).parent_path();
        const fs::path outside = fs::path(cache.temp.path().toStdString()) / "outside";
        fs::rename(shard, outside);
        fs::create_directory_symlink(outside, shard);
        const auto outside_before = snapshot(outside);
        QVERIFY(!outside_before.empty());
        auto outcome = cache.catalog->prune(*plan);
        QVERIFY_RESULT(outcome);
        QCOMPARE(snapshot(outside), outside_before);
        QVERIFY(fs::is_symlink(shard));
        // The directory handle refuses the symlink and "..", whoever asks.
        auto root = DirHandle::open_root(cache.dir);
        QVERIFY_RESULT(root);
        auto through_link = root->open_beneath(fs::path(module->path).parent_path().string());
        QVERIFY(!through_link);
        QVERIFY2(through_link.error().message.find("symlink") != std::string::npos,
                 through_link.error().message.c_str());
        QVERIFY(!root->open_beneath("fxgraph/../.."));
        QVERIFY(!root->open_beneath("/etc"));
    }

    void whatChangedSinceThePlanStays() {
        AgedCache cache;
        QVERIFY(cache.make());
        auto plan = cache.plan_older_than(30 * kDayNs);
        QVERIFY_RESULT(plan);
        QVERIFY(plan->units.size() > 3);
        // 1. A best_config rewritten the way PyTorch writes (temp + rename).
        const auto* best = find_planned(*plan, cachedir::FileKind::BestConfig);
        QVERIFY(best != nullptr);
        const fs::path best_path = cache.dir / best->path;
        const std::string best_bytes = test::read_file(best_path).toStdString();
        write_bytes(best_path.string() + ".new", best_bytes);
        fs::rename(best_path.string() + ".new", best_path);
        // 2. A new entry under a planned FX key: the key is in use again.
        std::string grown_key_dir;
        const catalog::PruneUnit* copied_unit = nullptr;
        for (const auto& unit : plan->units) {
            const catalog::PruneEntry* fx = first_fx(unit);
            if (fx == nullptr) {
                continue;
            }
            if (grown_key_dir.empty()) {
                grown_key_dir = fs::path(fx->path).parent_path().string();
                write_bytes(cache.dir / grown_key_dir / "newentrywrittenafterthplan",
                            test::read_file(cache.dir / fx->path).toStdString());
            } else if (copied_unit == nullptr && unit.entries.size() > unit.defining_entries) {
                copied_unit = &unit;
            }
        }
        QVERIFY(!grown_key_dir.empty() && copied_unit != nullptr);
        // 3. A new FX entry under a new key that uses what another planned key used.
        const auto& source = *first_fx(*copied_unit);
        write_bytes(cache.dir / "fxgraph" / "zz" / "fzznewkey" / fs::path(source.path).filename(),
                    test::read_file(cache.dir / source.path).toStdString());

        auto outcome = cache.catalog->prune(*plan);
        QVERIFY_RESULT(outcome);
        QVERIFY(outcome->errors.empty());
        auto kept_mentions = [&](const std::string& path, const std::string& why) {
            for (const auto& line : outcome->kept) {
                if (line.starts_with(path + ":") && line.find(why) != std::string::npos) {
                    return true;
                }
            }
            return false;
        };
        QVERIFY(fs::exists(best_path));
        QVERIFY(kept_mentions(best->path, "changed since the plan"));
        for (const auto& [key, files] : fx_keys(cache.dir)) {
            if (key == fs::path(grown_key_dir).filename()) {
                QCOMPARE(files.size(), std::size_t(2)); // the old entry stayed with the new one
            }
        }
        QVERIFY(fx_keys(cache.dir).contains(fs::path(grown_key_dir).filename()));
        for (std::size_t i = copied_unit->defining_entries; i < copied_unit->entries.size(); ++i) {
            const auto& used = copied_unit->entries[i];
            QVERIFY2(fs::exists(cache.dir / used.path), used.path.c_str());
            QVERIFY(kept_mentions(used.path, "used by "));
        }
        QVERIFY(!fs::exists(cache.dir / source.path));
        const std::string problems = verify_problems(cache.dir);
        QVERIFY2(problems.empty(), problems.c_str());
    }

    // A writer renames a new file onto a planned path after prune's last
    // check of it (forced at that step through test_seams.h): the file is
    // moved into the trash, found to be another, and put back; its unit
    // stays whole, and no trash dir is left.
    void aFileWrittenAfterTheLastCheckStays() {
        AgedCache cache;
        QVERIFY(cache.make());
        auto plan = cache.plan_older_than(30 * kDayNs);
        QVERIFY_RESULT(plan);
        const catalog::PruneUnit* raced_unit = nullptr;
        const catalog::PruneEntry* raced = nullptr;
        for (const auto& unit : plan->units) {
            for (const auto& entry : unit.entries) {
                if (entry.kind == cachedir::FileKind::Module && unit.entries.size() > 1) {
                    raced_unit = &unit;
                    raced = &entry;
                }
            }
        }
        QVERIFY(raced != nullptr);
        const fs::path target = cache.dir / raced->path;
        const std::string rewritten = "# written again by PyTorch\n";
        struct SeamReset {
            ~SeamReset() { test_seams::set_before_delete({}); }
        } reset;
        int renames = 0;
        test_seams::set_before_delete([&](std::string_view name) {
            if (name == target.filename().string() && renames++ == 0) {
                write_bytes(target.string() + ".new", rewritten);
                fs::rename(target.string() + ".new", target);
            }
        });
        auto outcome = cache.catalog->prune(*plan);
        test_seams::set_before_delete({});
        QVERIFY_RESULT(outcome);
        QCOMPARE(renames, 1);
        QCOMPARE(test::read_file(target).toStdString(), rewritten);
        const std::string why =
            raced->path + ": " + raced->path + " was written after the last check";
        QVERIFY2(std::ranges::find(outcome->kept, why) != outcome->kept.end(), why.c_str());
        for (const auto& entry : raced_unit->entries) {
            QVERIFY2(fs::exists(cache.dir / entry.path), entry.path.c_str()); // the unit, whole
        }
        QVERIFY(outcome->entries_deleted > 0); // the other units went
        for (const auto& item : fs::directory_iterator(cache.dir)) {
            QVERIFY2(!item.path().filename().string().starts_with(".cachelens-"),
                     item.path().c_str());
        }
    }

    // An FX entry held open during `prune --max-size 0` keeps everything its
    // unit holds (its modules, Triton kernels, best_configs), not just itself.
    void anEntryInUseKeepsWhatItUses() {
        AgedCache cache;
        QVERIFY(cache.make());
        catalog::PruneOptions options;
        options.max_size = 0;
        options.keep_recent_ns = 0;
        auto plan = cache.catalog->plan_prune(cache.dir, options);
        QVERIFY_RESULT(plan);
        const catalog::PruneUnit* held_unit = nullptr;
        const catalog::PruneEntry* fx_entry = nullptr;
        for (const auto& unit : plan->units) {
            for (const auto& entry : unit.entries) {
                if (!fx_entry && entry.kind == cachedir::FileKind::FxGraph &&
                    unit.entries.size() > 2) {
                    held_unit = &unit;
                    fx_entry = &entry;
                }
            }
        }
        QVERIFY(fx_entry != nullptr);
        const fs::path held = fs::canonical(cache.dir / fx_entry->path);
        QProcess holder;
        QVERIFY(hold_open(holder, held));
        auto outcome = cache.catalog->prune(*plan);
        holder.kill();
        holder.waitForFinished();
        QVERIFY_RESULT(outcome);
        for (const auto& entry : held_unit->entries) {
            QVERIFY2(fs::exists(cache.dir / entry.path), entry.path.c_str());
            for (const auto& file : entry.files) {
                QVERIFY2(fs::exists(cache.dir / file.path), file.path.c_str());
            }
        }
        const std::string with = "stays with " + fx_entry->path;
        QVERIFY(std::ranges::any_of(outcome->kept, [&](const std::string& line) {
            return line.find(with) != std::string::npos;
        }));
        QVERIFY(outcome->entries_deleted > 0);
    }

    // A trash dir a killed prune left (its lock free) goes with the next
    // prune; one a running prune holds stays; neither is ever indexed.
    void leftoverTrashIsReapedAndNeverIndexed() {
        AgedCache cache;
        QVERIFY(cache.make());
        const fs::path left = cache.dir / ".cachelens-trash-0123456789abcdef";
        const fs::path live = cache.dir / ".cachelens-trash-fedcba9876543210";
        for (const auto& dir : {left, live}) {
            fs::create_directory(dir);
            write_bytes((dir / "0").string(), "a file prune had moved out");
        }
        QProcess holder; // a running prune's lock
        holder.start("flock", {"-n", QString::fromStdString(live.string()), "-c",
                               "echo ready; exec sleep 60"});
        QVERIFY(holder.waitForReadyRead(10000));
        auto scan = cachedir::scan_cache_dir(cache.dir);
        QVERIFY_RESULT(scan);
        QVERIFY(!scan->files.empty());
        for (const auto& file : scan->files) {
            QVERIFY2(!file.path.starts_with(".cachelens-"), file.path.c_str());
        }
        catalog::PruneOptions options;
        options.older_than_ns = 30 * kDayNs;
        auto plan = cache.catalog->plan_prune(cache.dir, options);
        QVERIFY_RESULT(plan);
        QVERIFY_RESULT(cache.catalog->prune(*plan));
        holder.kill();
        holder.waitForFinished();
        QVERIFY(!fs::exists(left));
        QVERIFY(fs::exists(live / "0"));
    }

    // A file another process has open (a run loading its kernels, a copy in
    // progress) is not deleted under it; its entry stays, saying which process.
    void filesOpenInAnotherProcessStay() {
        AgedCache cache;
        QVERIFY(cache.make());
        auto plan = cache.plan_older_than(30 * kDayNs);
        QVERIFY_RESULT(plan);
        const auto* module = find_planned(*plan, cachedir::FileKind::Module);
        QVERIFY(module != nullptr);
        const fs::path held = fs::canonical(cache.dir / module->path);
        QProcess holder;
        QVERIFY(hold_open(holder, held));
        const auto holder_pid = holder.processId();

        auto outcome = cache.catalog->prune(*plan);
        holder.kill();
        holder.waitForFinished();
        QVERIFY_RESULT(outcome);
        QVERIFY(fs::exists(held));
        const std::string expected = module->path + ": " + module->path + " is open in process " +
                                     std::to_string(holder_pid) + " (sleep)";
        QVERIFY2(std::ranges::find(outcome->kept, expected) != outcome->kept.end(),
                 expected.c_str());
        QVERIFY(outcome->entries_deleted > 0); // the others went
    }

    // The same from a container: a process in another mount namespace that
    // bind-mounts the cache elsewhere names the file by another path. It is
    // matched by (device, inode), so its entry stays all the same.
    void filesOpenInAnotherMountNamespaceStay() {
        if (::geteuid() != 0 || QStandardPaths::findExecutable("unshare").isEmpty()) {
            QSKIP("needs root and unshare(1) to make a mount namespace (CI runs as root)");
        }
        AgedCache cache;
        QVERIFY(cache.make());
        auto plan = cache.plan_older_than(30 * kDayNs);
        QVERIFY_RESULT(plan);
        const auto* module = find_planned(*plan, cachedir::FileKind::Module);
        QVERIFY(module != nullptr);
        const fs::path elsewhere = fs::path(cache.temp.path().toStdString()) / "container-view";
        fs::create_directory(elsewhere);
        QProcess holder;
        holder.start(
            "unshare",
            {"-m", "--propagation", "private", "sh", "-c",
             "mount --bind \"$1\" \"$2\" && exec 3<\"$2/$3\" && echo ready && exec sleep 60",
             "holder", QString::fromStdString(fs::canonical(cache.dir).string()),
             QString::fromStdString(elsewhere.string()), QString::fromStdString(module->path)});
        if (!holder.waitForReadyRead(10000)) {
            holder.kill();
            holder.waitForFinished();
            QSKIP(("unshare -m refused here: " + holder.readAllStandardError()).constData());
        }
        const auto holder_pid = holder.processId();
        // The holder names it by the path in its own namespace.
        const fs::path named = fs::read_symlink("/proc/" + std::to_string(holder_pid) + "/fd/3");
        QVERIFY2(named.string().starts_with(elsewhere.string()), named.c_str());

        auto outcome = cache.catalog->prune(*plan);
        holder.kill();
        holder.waitForFinished();
        QVERIFY_RESULT(outcome);
        QVERIFY(fs::exists(cache.dir / module->path));
        const std::string expected = module->path + ": " + module->path + " is open in process " +
                                     std::to_string(holder_pid) + " (sleep)";
        QVERIFY2(std::ranges::find(outcome->kept, expected) != outcome->kept.end(),
                 expected.c_str());
    }

    void catalogMatchesTheDirAfterAPrune() {
        AgedCache cache;
        QVERIFY(cache.make());
        catalog::PruneOptions options;
        options.max_size = total_bytes(cache.dir) / 3;
        auto plan = cache.catalog->plan_prune(cache.dir, options);
        QVERIFY_RESULT(plan);
        QVERIFY_RESULT(cache.catalog->prune(*plan));
        sqlite3* db = cache.catalog->handle();
        QCOMPARE(test::integrity_problems(db), std::string("ok"));
        QCOMPARE(test::half_written_entries(db), std::vector<std::string>{});
        QCOMPARE(test::dangling_rows(db), std::vector<std::string>{});
        auto fresh = catalog::Catalog::open(fs::path(cache.temp.path().toStdString()) / "fresh");
        QVERIFY_RESULT(fresh);
        QVERIFY_RESULT(fresh->index(cache.dir));
        const std::string difference = test::first_difference(test::canonical_dump(*fresh),
                                                              test::canonical_dump(*cache.catalog));
        QVERIFY2(difference.empty(), difference.c_str());
        // A second prune to the same limit has nothing left to do.
        auto again = cache.catalog->plan_prune(cache.dir, options);
        QVERIFY_RESULT(again);
        QVERIFY(again->units.empty());
    }

    // Files old, key dirs just written (the copy made them): a prune empties
    // FX key dirs and must leave them, as PyTorch may be about to write into
    // one. Every command then meets such a key as "no entries", never as a
    // broken dir.
    void keyDirsAPruneEmptiesAreNoEntriesToEveryCommand() {
        AgedCache cache;
        QVERIFY(cache.make());
        const auto keys_before = fx_keys(cache.dir);
        const QString limit = QString::number(total_bytes(cache.dir) / 2);
        const auto pruned = test::run_cli({"prune", cache.path(), "--max-size", limit, "--json",
                                           "--catalog", cache.catalog_arg()});
        QCOMPARE(pruned.exit_code, 0);
        QVERIFY(json_of(pruned)["deleted"].toObject()["empty_dirs"].toArray().isEmpty());
        const auto keys_after = fx_keys(cache.dir);
        std::vector<std::string> emptied;
        for (const auto& [key, files] : keys_before) {
            if (!keys_after.contains(key)) {
                emptied.push_back(key);
                QVERIFY(fs::is_empty(cache.dir / fx_key_dir(key)));
            }
        }
        QVERIFY(!emptied.empty());
        QVERIFY(!keys_after.empty());
        const std::string key = emptied.front();
        const std::string key_dir = fx_key_dir(key);
        const QByteArray no_entries = QByteArray::fromStdString(
            "no entries under key " + key + " (its dir " + key_dir + " is empty)");
        const QString qkey = QString::fromStdString(key);

        // verify: clean; each such dir a warning.
        const auto verified = test::run_cli({"verify", cache.path(), "--json"});
        QCOMPARE(verified.exit_code, 0);
        QVERIFY(json_of(verified)["clean"].toBool());
        std::set<std::string> warned;
        for (const auto& warning : json_of(verified)["warnings"].toArray()) {
            QCOMPARE(warning.toObject()["problem"].toString(), QString("empty-key-dir"));
            warned.insert(warning.toObject()["path"].toString().toStdString());
        }
        std::set<std::string> expected;
        for (const auto& emptied_key : emptied) {
            expected.insert(fx_key_dir(emptied_key));
        }
        QVERIFY(std::ranges::includes(warned, expected));
        const auto verified_text = test::run_cli({"verify", cache.path()});
        QCOMPARE(verified_text.exit_code, 0);
        QVERIFY2(verified_text.out.contains(
                     QByteArray::fromStdString(key_dir + ": empty-key-dir (warning): ")),
                 verified_text.out.constData());

        // export of the whole dir: a note for each; of that key: not found.
        const QString bundle = cache.temp.filePath("bundle.bin");
        const auto exported = test::run_cli({"export", cache.path(), "-o", bundle});
        QCOMPARE(exported.exit_code, 0);
        QVERIFY2(exported.out.contains(QByteArray::fromStdString(
                     "note: " + key_dir + ": empty key dir (no entries), skipped")),
                 exported.out.constData());
        const auto exported_key = test::run_cli({"export", cache.path(), qkey, "-o", bundle});
        QCOMPARE(exported_key.exit_code, 2);
        QVERIFY2(exported_key.err.contains(no_entries), exported_key.err.constData());

        // why, show: that key is not found, and why; another key still works.
        for (const char* command : {"why", "show"}) {
            const auto asked = test::run_cli({command, cache.path(), qkey});
            QCOMPARE(asked.exit_code, 2);
            QVERIFY2(asked.err.contains(no_entries), asked.err.constData());
        }
        const QString kept = QString::fromStdString(keys_after.begin()->first);
        QCOMPARE(test::run_cli({"why", cache.path(), kept}).exit_code, 0);

        // lookup: PyTorch's answer, a full miss, saying the dir is empty.
        const auto looked = test::run_cli({"lookup", cache.path(), qkey, "--hints", "8"});
        QCOMPARE(looked.exit_code, 0);
        QVERIFY2(looked.out.contains(QByteArray::fromStdString("full_miss: no entries under " +
                                                               key_dir + " (its dir is empty)")),
                 looked.out.constData());
        const auto looked_json =
            test::run_cli({"lookup", cache.path(), qkey, "--hints", "8", "--json"});
        QCOMPARE(json_of(looked_json)["status"].toString(), QString("full_miss"));
        QVERIFY(json_of(looked_json)["key_dir_empty"].toBool());

        // index: noted, nothing indexed for them.
        const auto indexed =
            test::run_cli({"index", cache.path(), "--catalog", cache.catalog_arg(), "--json"});
        QCOMPARE(indexed.exit_code, 0);
        const auto roots = json_of(indexed)["roots"].toArray();
        QCOMPARE(roots.size(), 1);
        QVERIFY(std::ranges::includes(strings_of(roots[0].toObject()["empty_key_dirs"].toArray()),
                                      expected));
    }

    // Key dirs without entries go once nothing was written in them for
    // --keep-recent (hand-made ones, and those the prune empties), with the
    // shard dirs they leave empty; a younger one, or one holding anything,
    // stays.
    void idleKeyDirsWithoutEntriesGo() {
        AgedCache cache;
        QVERIFY(cache.make());
        const std::string old_fx = "fxgraph/zz/f" + std::string(51, 'z');
        const std::string old_aot = "aotautograd/a" + std::string(51, 'z');
        const std::string fresh_fx = "fxgraph/yy/f" + std::string(51, 'y');
        const std::string busy_fx = "fxgraph/xx/f" + std::string(51, 'x');
        fs::create_directories(cache.dir / old_fx);
        fs::create_directories(cache.dir / old_aot);
        write_bytes(cache.dir / busy_fx / ".123.456.tmp", "half");
        set_mtime(cache.dir / busy_fx / ".123.456.tmp", now_ns() - 40 * kDayNs);
        age_key_dirs(cache.dir, 40);
        fs::create_directories(cache.dir / fresh_fx);

        // Nothing old enough to evict: only the idle empty dirs go; a young
        // one stays even with --keep-recent 0s (PyTorch may be about to
        // write into it).
        const auto swept =
            test::run_cli({"prune", cache.path(), "--older-than", "1000d", "--keep-recent", "0s",
                           "--json", "--catalog", cache.catalog_arg()});
        QCOMPARE(swept.exit_code, 0);
        QVERIFY(json_of(swept)["units"].toArray().isEmpty());
        QCOMPARE(strings_of(json_of(swept)["deleted"].toObject()["empty_dirs"].toArray()),
                 (std::set<std::string>{old_fx, "fxgraph/zz", old_aot}));
        QVERIFY(!fs::exists(cache.dir / "fxgraph/zz"));
        QVERIFY(!fs::exists(cache.dir / old_aot));
        QVERIFY(fs::is_directory(cache.dir / fresh_fx));
        QVERIFY(fs::exists(cache.dir / busy_fx / ".123.456.tmp"));

        // Emptied by the prune, idle before it: gone, with their shards.
        const auto keys_before = fx_keys(cache.dir);
        const QString limit = QString::number(total_bytes(cache.dir) / 2);
        const auto pruned = test::run_cli({"prune", cache.path(), "--max-size", limit, "--json",
                                           "--catalog", cache.catalog_arg()});
        QCOMPARE(pruned.exit_code, 0);
        const auto removed =
            strings_of(json_of(pruned)["deleted"].toObject()["empty_dirs"].toArray());
        std::set<std::string> expected;
        for (const auto& unit : json_of(pruned)["units"].toArray()) {
            for (const auto& entry : unit.toObject()["entries"].toArray()) {
                const std::string kind = entry.toObject()["kind"].toString().toStdString();
                const std::string path = entry.toObject()["path"].toString().toStdString();
                if (kind == "fxgraph" || kind == "aotautograd") {
                    const auto key_dir = fs::path(path).parent_path();
                    expected.insert(key_dir.string());
                    if (kind == "fxgraph") {
                        expected.insert(key_dir.parent_path().string()); // one key per shard
                    }
                }
            }
        }
        QVERIFY(!expected.empty());
        QCOMPARE(removed, expected);
        for (const auto& dir : expected) {
            QVERIFY2(!fs::exists(cache.dir / dir), dir.c_str());
        }
        QVERIFY(fx_keys(cache.dir).size() < keys_before.size());
        QVERIFY(fs::is_directory(cache.dir / fresh_fx));

        // What is left verifies clean but for the young dir and the temp file.
        auto scan = cachedir::scan_cache_dir(cache.dir);
        QVERIFY_RESULT(scan);
        QCOMPARE(scan->empty_key_dirs, (std::vector<std::string>{busy_fx, fresh_fx}));
        QCOMPARE(verify_problems(cache.dir), std::string());
        QCOMPARE(
            test::run_cli({"export", cache.path(), "-o", cache.temp.filePath("b.bin")}).exit_code,
            0);
    }

    void badArgumentsAreClearErrors() {
        QTemporaryDir temp;
        const QString catalog_arg = temp.filePath("catalog.sqlite");
        const QString dir = QString::fromStdString(test::sample_cache().string());
        auto run = test::run_cli({"prune", dir, "--catalog", catalog_arg});
        QCOMPARE(run.exit_code, 2);
        QVERIFY2(run.err.contains("--max-size, --older-than, or both"), run.err.constData());
        run = test::run_cli({"prune", dir, "--max-size", "2X", "--catalog", catalog_arg});
        QCOMPARE(run.exit_code, 2);
        QVERIFY2(run.err.contains("unknown size unit in '2X'"), run.err.constData());
        run = test::run_cli({"prune", dir, "--older-than", "30", "--catalog", catalog_arg});
        QCOMPARE(run.exit_code, 2);
        QVERIFY2(run.err.contains("needs a unit"), run.err.constData());
        const QString missing = temp.filePath("no-such-cache");
        run = test::run_cli({"prune", missing, "--older-than", "1d", "--catalog", catalog_arg});
        QCOMPARE(run.exit_code, 2);
        QVERIFY2(run.err.contains(missing.toUtf8()), run.err.constData());
        // The sample cache itself was never touched by these.
        QCOMPARE(verify_problems(test::sample_cache()), std::string());
    }
};

QTEST_GUILESS_MAIN(TestPrune)
#include "tst_prune.moc"
