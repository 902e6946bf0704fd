// Long work reports how far it is through one type (core/progress.h) and
// stops cleanly when asked:
// - every operation (scan, index, prune, import, export, the bench run)
//   reports its stages in order, each with `done` growing to its total;
// - a stop leaves whole entries and files: an index stopped half way keeps a
//   sound catalog the next index completes to what a fresh one holds; a
//   prune stopped half way deleted whole entries and the catalog knows which;
//   an import stopped half way wrote whole files, and the next finishes it;
// - the CLI draws that progress as one line on a terminal (a pseudo-terminal
//   here), redrawn in place, never wider than the terminal and cleared at the
//   end; never in a pipe or with --json; stdout is the same either way; and
//   Ctrl-C stops an index with a message, exit 130 and a sound catalog.

#include "catalog_checks.h"
#include "progress_checks.h"
#include "test_paths.h"

#include <cachelens/bench/launch_plan.h>
#include <cachelens/bench/runner.h>
#include <cachelens/bundle/bundle_file.h>
#include <cachelens/bundle/export.h>
#include <cachelens/bundle/import.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/catalog/catalog.h>
#include <cachelens/core/progress.h>

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <chrono>
#include <functional>
#include <ranges>

using namespace cachelens;
namespace fs = std::filesystem;
using test::ProgressRecorder;

namespace {

constexpr std::int64_t kDayNs = 86400LL * 1'000'000'000;
const QByteArray kClearLine = "\r\033[K";

fs::path path_of(const QTemporaryDir& dir) {
    return fs::path(dir.path().toStdString());
}

fs::path devset() {
    return test::fixture("devset/cache");
}

fs::path devset_bundle() {
    return test::fixture("devset/mega_mlp_train.bin");
}

std::size_t files_under(const fs::path& dir) {
    std::size_t files = 0;
    if (fs::exists(dir)) {
        for (const auto& item : fs::recursive_directory_iterator(dir)) {
            files += item.is_regular_file() ? 1 : 0;
        }
    }
    return files;
}

// What a catalog holds of `dir` when it is built from nothing.
std::string fresh_dump(const fs::path& dir) {
    QTemporaryDir temp;
    auto catalog = catalog::Catalog::open(path_of(temp) / "fresh.sqlite");
    if (!catalog || !catalog->index(dir)) {
        return "(cannot index " + dir.string() + ")";
    }
    return test::canonical_dump(*catalog);
}

// The catalog is sound: SQLite's checks pass and nothing is left half written.
QString unsound(const catalog::Catalog& catalog) {
    const std::string integrity = test::integrity_problems(catalog.handle());
    if (integrity != "ok") {
        return QString::fromStdString(integrity);
    }
    if (!test::half_written_entries(catalog.handle()).empty()) {
        return "half-written entries";
    }
    if (!test::dangling_rows(catalog.handle()).empty()) {
        return "dangling rows";
    }
    return {};
}

// The CLI run with stderr on a pseudo-terminal `columns` wide and stdout a
// pipe. `on_stderr(pid, stderr so far)` hears stderr as it arrives.
struct TerminalRun {
    int exit_code = -1;
    QByteArray out;
    QByteArray err; // as the terminal got it: "\n" is "\r\n"
};

TerminalRun
run_cli_on_terminal(const QStringList& args, unsigned short columns = 80,
                    const std::function<void(pid_t, const QByteArray&)>& on_stderr = {}) {
    TerminalRun run;
    int master = -1;
    int slave = -1;
    winsize size{};
    size.ws_row = 24;
    size.ws_col = columns;
    if (::openpty(&master, &slave, nullptr, nullptr, &size) != 0) {
        run.err = "openpty failed";
        return run;
    }
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) {
        run.err = "pipe failed";
        return run;
    }
    ::fcntl(master, F_SETFD, FD_CLOEXEC);
    ::fcntl(slave, F_SETFD, FD_CLOEXEC);
    const std::string program = test::cli_path().toStdString();
    std::vector<std::string> words{program};
    for (const auto& arg : args) {
        words.push_back(arg.toStdString());
    }
    std::vector<char*> argv;
    for (auto& word : words) {
        argv.push_back(word.data());
    }
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int none = ::open("/dev/null", O_RDONLY);
        ::dup2(none, STDIN_FILENO);
        ::dup2(out[1], STDOUT_FILENO);
        ::dup2(slave, STDERR_FILENO);
        ::execv(program.c_str(), argv.data());
        ::_exit(127);
    }
    ::close(slave);
    ::close(out[1]);
    bool err_open = true;
    bool out_open = true;
    char buffer[4096];
    while (err_open || out_open) {
        pollfd fds[2] = {{err_open ? master : -1, POLLIN, 0}, {out_open ? out[0] : -1, POLLIN, 0}};
        if (::poll(fds, 2, 120'000) <= 0) {
            ::kill(pid, SIGKILL);
            break;
        }
        if (fds[0].revents != 0) {
            const ssize_t n = ::read(master, buffer, sizeof buffer);
            if (n > 0) {
                run.err.append(buffer, n);
                if (on_stderr) {
                    on_stderr(pid, run.err);
                }
            } else {
                err_open = false; // EIO: every end of the terminal closed
            }
        }
        if (fds[1].revents != 0) {
            const ssize_t n = ::read(out[0], buffer, sizeof buffer);
            if (n > 0) {
                run.out.append(buffer, n);
            } else {
                out_open = false;
            }
        }
    }
    ::close(master);
    ::close(out[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return run;
}

// The lines the terminal showed: what each "\r" redraw wrote, escapes removed.
QList<QByteArray> drawn_lines(const QByteArray& err) {
    QList<QByteArray> lines;
    for (QByteArray line : err.split('\r')) {
        line.replace("\033[K", "");
        line.replace("\n", "");
        if (!line.isEmpty()) {
            lines << line;
        }
    }
    return lines;
}

qsizetype columns_of(const QByteArray& line) {
    return QString::fromUtf8(line).size();
}

bool has_control_bytes(const QByteArray& err) {
    return err.contains('\r') || err.contains('\033');
}

} // namespace

class TestProgress : public QObject {
    Q_OBJECT

private slots:
    void throttleShowsEachStagesFirstAndLastReports() {
        using namespace std::chrono_literals;
        ProgressThrottle throttle(100ms);
        const auto t0 = ProgressThrottle::Clock::time_point{} + 1h;
        Progress report{.stage = ProgressStage::Parsing,
                        .unit = ProgressUnit::Entries,
                        .done = 0,
                        .total = 10,
                        .bytes = 0,
                        .item = {}};
        QVERIFY(throttle.due(report, t0)); // a stage's first
        report.done = 1;
        QVERIFY(!throttle.due(report, t0 + 10ms));
        report.done = 2;
        QVERIFY(!throttle.due(report, t0 + 90ms));
        report.done = 3;
        QVERIFY(throttle.due(report, t0 + 110ms)); // the interval passed
        report.done = 4;
        QVERIFY(!throttle.due(report, t0 + 120ms));
        report.done = 10;
        QVERIFY(throttle.due(report, t0 + 130ms)); // a stage's last
        report.stage = ProgressStage::Deleting;
        report.done = 0;
        QVERIFY(throttle.due(report, t0 + 131ms)); // a new stage's first
        report.done = 1;
        QVERIFY(!throttle.due(report, t0 + 132ms));
    }

    void scanReportsTheFilesItFinds() {
        ProgressRecorder recorder;
        auto scan = cachedir::scan_cache_dir(devset(), recorder.callback());
        QVERIFY_RESULT(scan);
        QVERIFY2(recorder.problems().isEmpty(), qPrintable(recorder.problems()));
        QCOMPARE(recorder.stages(), std::vector{ProgressStage::Scanning});
        QVERIFY(recorder.seen.size() > 2); // found so far, on the way
        QCOMPARE(recorder.seen.back().total, scan->files.size());
        std::uint64_t bytes = 0;
        for (const auto& file : scan->files) {
            bytes += file.size;
        }
        QCOMPARE(recorder.seen.back().bytes, bytes);

        // Stopped: an error that says so.
        ProgressRecorder stopping;
        auto stopped = cachedir::scan_cache_dir(
            devset(), stopping.callback([](const auto&, std::size_t index) { return index < 1; }));
        QVERIFY(!stopped);
        QCOMPARE(stopped.error().kind, ErrorKind::Cancelled);
    }

    void indexReportsScanningThenEachEntryParsed() {
        QTemporaryDir temp;
        auto catalog = catalog::Catalog::open(path_of(temp) / "catalog.sqlite");
        QVERIFY_RESULT(catalog);
        ProgressRecorder recorder;
        auto report = catalog->index(
            devset(), {.threads = 2, .batch_size = 50, .progress = recorder.callback()});
        QVERIFY_RESULT(report);
        QVERIFY(!report->cancelled);
        QVERIFY2(recorder.problems().isEmpty(), qPrintable(recorder.problems()));
        QCOMPARE(recorder.stages(), (std::vector{ProgressStage::Scanning, ProgressStage::Parsing}));
        const auto parsed = recorder.last(ProgressStage::Parsing);
        QCOMPARE(parsed.total, report->parsed);
        QCOMPARE(parsed.unit, ProgressUnit::Entries);
        QVERIFY(!parsed.item.empty());
        // Each entry as it is written, not a batch at a time.
        QCOMPARE(recorder.seen.size() -
                     std::size_t(std::ranges::count(recorder.seen, ProgressStage::Scanning,
                                                    &test::SeenProgress::stage)),
                 report->parsed + 1);

        // Nothing changed: nothing to parse, and the stage says so.
        ProgressRecorder again;
        auto unchanged = catalog->index(
            devset(), {.threads = 2, .batch_size = 50, .progress = again.callback()});
        QVERIFY_RESULT(unchanged);
        QVERIFY2(again.problems().isEmpty(), qPrintable(again.problems()));
        QCOMPARE(again.last(ProgressStage::Parsing).total, std::uint64_t{0});
    }

    void anIndexStoppedHalfWayIsSoundAndTheNextCompletesIt() {
        QTemporaryDir temp;
        auto catalog = catalog::Catalog::open(path_of(temp) / "catalog.sqlite");
        QVERIFY_RESULT(catalog);
        constexpr std::uint64_t kStopAt = 70; // in the second batch of 50
        ProgressRecorder recorder;
        auto stopped = catalog->index(
            devset(), {.threads = 2,
                       .batch_size = 50,
                       .progress = recorder.callback([](const test::SeenProgress& seen, auto) {
                           return seen.stage != ProgressStage::Parsing || seen.done < kStopAt;
                       })});
        QVERIFY_RESULT(stopped);
        QVERIFY(stopped->cancelled);
        QVERIFY2(recorder.problems(false).isEmpty(), qPrintable(recorder.problems(false)));
        // The entry in hand when the stop came was committed, and no more.
        QCOMPARE(stopped->parsed, std::size_t{kStopAt});
        QCOMPARE(test::query_integer(catalog->handle(), "SELECT COUNT(*) FROM entries"),
                 std::int64_t{kStopAt});
        QVERIFY2(unsound(*catalog).isEmpty(), qPrintable(unsound(*catalog)));
        auto roots = catalog->roots();
        QVERIFY_RESULT(roots);
        QCOMPARE(roots->size(), std::size_t{1});
        QVERIFY(!roots->front().indexed_ns); // not complete

        ProgressRecorder rest;
        auto finished =
            catalog->index(devset(), {.threads = 2, .batch_size = 50, .progress = rest.callback()});
        QVERIFY_RESULT(finished);
        QVERIFY(!finished->cancelled);
        QCOMPARE(finished->unchanged, std::size_t{kStopAt});
        QCOMPARE(rest.last(ProgressStage::Parsing).total, finished->parsed);
        const std::string difference =
            test::first_difference(fresh_dump(devset()), test::canonical_dump(*catalog));
        QVERIFY2(difference.empty(), difference.c_str());

        // Stopped while walking the dir: nothing written, not even the root.
        QTemporaryDir other;
        auto empty = catalog::Catalog::open(path_of(other) / "catalog.sqlite");
        QVERIFY_RESULT(empty);
        ProgressRecorder scanning;
        auto early = empty->index(
            devset(), {.threads = 2,
                       .batch_size = 50,
                       .progress = scanning.callback([](const auto&, auto) { return false; })});
        QVERIFY_RESULT(early);
        QVERIFY(early->cancelled);
        QCOMPARE(scanning.stages(), std::vector{ProgressStage::Scanning});
        auto none = empty->roots();
        QVERIFY_RESULT(none);
        QVERIFY(none->empty());
    }

    void pruneReportsItsIndexesAndEachEntryDeleted() {
        QTemporaryDir temp;
        const fs::path dir = path_of(temp) / "cache";
        test::copy_tree(devset(), dir);
        auto catalog = catalog::Catalog::open(path_of(temp) / "catalog.sqlite");
        QVERIFY_RESULT(catalog);
        QVERIFY_RESULT(catalog->index(dir));
        catalog::PruneOptions options;
        options.older_than_ns = 1; // everything written before now
        options.keep_recent_ns = 0;
        auto plan = catalog->plan_prune(dir, options);
        QVERIFY_RESULT(plan);
        QVERIFY(plan->units.size() > 3);

        ProgressRecorder recorder;
        auto outcome = catalog->prune(
            *plan, {.threads = 2, .batch_size = 200, .progress = recorder.callback()});
        QVERIFY_RESULT(outcome);
        QVERIFY(!outcome->cancelled);
        QVERIFY2(recorder.problems().isEmpty(), qPrintable(recorder.problems()));
        QCOMPARE(recorder.stages(), (std::vector{ProgressStage::Scanning, ProgressStage::Parsing,
                                                 ProgressStage::Deleting, ProgressStage::Scanning,
                                                 ProgressStage::Parsing}));
        const auto deleted = recorder.last(ProgressStage::Deleting);
        QCOMPARE(deleted.total, outcome->entries_deleted);
        QCOMPARE(deleted.bytes, outcome->bytes_freed);
    }

    void aPruneStoppedHalfWayDeletedWholeEntriesAndTheCatalogKnows() {
        QTemporaryDir temp;
        const fs::path dir = path_of(temp) / "cache";
        test::copy_tree(devset(), dir);
        auto catalog = catalog::Catalog::open(path_of(temp) / "catalog.sqlite");
        QVERIFY_RESULT(catalog);
        QVERIFY_RESULT(catalog->index(dir));
        const std::size_t before = files_under(dir);
        catalog::PruneOptions options;
        options.older_than_ns = 1;
        options.keep_recent_ns = 0;
        auto plan = catalog->plan_prune(dir, options);
        QVERIFY_RESULT(plan);

        constexpr std::uint64_t kStopAt = 5;
        ProgressRecorder recorder;
        auto outcome = catalog->prune(
            *plan, {.threads = 2,
                    .batch_size = 200,
                    .progress = recorder.callback([](const test::SeenProgress& seen, auto) {
                        return seen.stage != ProgressStage::Deleting || seen.done < kStopAt;
                    })});
        QVERIFY_RESULT(outcome);
        QVERIFY(outcome->cancelled);
        QVERIFY2(recorder.problems(false).isEmpty(), qPrintable(recorder.problems(false)));
        QCOMPARE(outcome->entries_deleted, std::size_t{kStopAt});
        QCOMPARE(files_under(dir), before - outcome->files_deleted);
        // The catalog was brought up to date after the stop, whole.
        QCOMPARE(recorder.stages().back(), ProgressStage::Parsing);
        QVERIFY2(unsound(*catalog).isEmpty(), qPrintable(unsound(*catalog)));
        const std::string difference =
            test::first_difference(fresh_dump(dir), test::canonical_dump(*catalog));
        QVERIFY2(difference.empty(), difference.c_str());

        // Stopped in its first index: nothing deleted.
        auto again = catalog->plan_prune(dir, options);
        QVERIFY_RESULT(again);
        auto untouched = catalog->prune(
            *again, {.threads = 2, .batch_size = 200, .progress = [](const Progress&) {
                         return false;
                     }});
        QVERIFY_RESULT(untouched);
        QVERIFY(untouched->cancelled);
        QCOMPARE(untouched->entries_deleted, std::size_t{0});
        QCOMPARE(files_under(dir), before - outcome->files_deleted);
    }

    void importReportsCheckingThenEachFileWritten() {
        auto file = bundle::open_bundle_file(devset_bundle(), nullptr);
        QVERIFY_RESULT(file);
        QTemporaryDir temp;
        const fs::path into = path_of(temp) / "into";
        ProgressRecorder recorder;
        auto plan = bundle::plan_import(file->bundle, into, {}, recorder.callback());
        QVERIFY_RESULT(plan);
        const auto to_write = plan->count(bundle::ImportAction::Write);
        QVERIFY(to_write > 2);
        const auto done = bundle::run_import(std::move(*plan), file->bundle, recorder.callback());
        QVERIFY(!done.cancelled);
        QVERIFY2(recorder.problems().isEmpty(), qPrintable(recorder.problems()));
        QCOMPARE(recorder.stages(), (std::vector{ProgressStage::Checking, ProgressStage::Writing}));
        QCOMPARE(recorder.last(ProgressStage::Checking).total, file->bundle.artifact_count());
        QCOMPARE(recorder.last(ProgressStage::Writing).total, to_write);
        const auto written =
            std::ranges::find(done.artifacts | std::views::reverse, bundle::ImportAction::Written,
                              &bundle::PlannedArtifact::action);
        QVERIFY(written != (done.artifacts | std::views::reverse).end());
        QCOMPARE(recorder.last(ProgressStage::Writing).item, written->check.destination);
    }

    void anImportStoppedHalfWayWroteWholeFilesAndTheNextFinishes() {
        auto file = bundle::open_bundle_file(devset_bundle(), nullptr);
        QVERIFY_RESULT(file);
        QTemporaryDir temp;
        const fs::path into = path_of(temp) / "into";
        auto plan = bundle::plan_import(file->bundle, into);
        QVERIFY_RESULT(plan);
        const auto to_write = plan->count(bundle::ImportAction::Write);
        ProgressRecorder recorder;
        const auto stopped = bundle::run_import(
            std::move(*plan), file->bundle,
            recorder.callback([](const test::SeenProgress& seen, auto) { return seen.done < 2; }));
        QVERIFY(stopped.cancelled);
        QVERIFY2(recorder.problems(false).isEmpty(), qPrintable(recorder.problems(false)));
        QCOMPARE(stopped.count(bundle::ImportAction::Written), std::size_t{2});
        QCOMPARE(stopped.count(bundle::ImportAction::Write), to_write - 2);
        QCOMPARE(files_under(into), std::size_t{2}); // and no temp file beside them

        auto rest = bundle::plan_import(file->bundle, into);
        QVERIFY_RESULT(rest);
        QCOMPARE(rest->count(bundle::ImportAction::AlreadyPresent), std::size_t{2});
        const auto finished = bundle::run_import(std::move(*rest), file->bundle);
        QCOMPARE(finished.count(bundle::ImportAction::Written), to_write - 2);
        QVERIFY(finished.clean());

        // Stopped while checking: an error, nothing planned.
        auto refused = bundle::plan_import(file->bundle, path_of(temp) / "other", {},
                                           [](const Progress&) { return false; });
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, ErrorKind::Cancelled);
    }

    void exportReportsEachFileRead() {
        ProgressRecorder recorder;
        auto exported = bundle::export_bundle(devset(), {}, recorder.callback());
        QVERIFY_RESULT(exported);
        QVERIFY2(recorder.problems().isEmpty(), qPrintable(recorder.problems()));
        QCOMPARE(recorder.stages(), std::vector{ProgressStage::Reading});
        const auto read = recorder.last(ProgressStage::Reading);
        QCOMPARE(read.total, exported->bundle.artifact_count());
        std::uint64_t bytes = 0;
        for (const auto& section : exported->bundle.sections) {
            for (const auto& artifact : section.artifacts) {
                bytes += artifact.content.size();
            }
        }
        QCOMPARE(read.bytes, bytes);

        auto stopped = bundle::export_bundle(
            devset(), {}, [](const Progress& progress) { return progress.done < 3; });
        QVERIFY(!stopped);
        QCOMPARE(stopped.error().kind, ErrorKind::Cancelled);
    }

    void benchReportsEachCandidateBeforeItIsTimed() {
        auto kernels = bench::plan_kernels(devset(), {.only = {}, .all_configs = true});
        QVERIFY_RESULT(kernels);
        std::size_t candidates = 0;
        for (const auto& kernel : *kernels) {
            candidates += kernel.plans.size();
        }
        QVERIFY(candidates > 2);
        // A runner without a GPU: each plan's result, as GpuRunner::run gives one.
        std::vector<std::string> timed;
        const auto run = [&timed](const bench::LaunchPlan& plan) -> Result<bench::CandidateResult> {
            timed.push_back(plan.kernel_name);
            bench::CandidateResult result;
            result.kernel_name = plan.kernel_name;
            return result;
        };
        std::vector<std::string> results;
        const auto keep = [&results](bench::CandidateResult result) {
            results.push_back(result.kernel_name);
        };
        ProgressRecorder recorder;
        QVERIFY_RESULT(bench::run_candidates(*kernels, run, keep, recorder.callback()));
        QVERIFY2(recorder.problems().isEmpty(), qPrintable(recorder.problems()));
        QCOMPARE(recorder.stages(), std::vector{ProgressStage::Benchmarking});
        QCOMPARE(recorder.seen.back().total, candidates);
        QCOMPARE(results, timed);
        QCOMPARE(results.size(), candidates);
        // Each report names the candidate about to be timed.
        const auto first = std::ranges::find_if(
            *kernels, [](const bench::KernelCandidates& kernel) { return !kernel.plans.empty(); });
        QVERIFY2(recorder.seen.front().item ==
                     first->kernel_name + " " + first->plans.front().config.describe(),
                 recorder.seen.front().item.c_str());

        // Stopped: between candidates, a Cancelled error.
        timed.clear();
        results.clear();
        auto stopped = bench::run_candidates(*kernels, run, keep,
                                             [](const Progress& p) { return p.done < 2; });
        QVERIFY(!stopped);
        QCOMPARE(stopped.error().kind, ErrorKind::Cancelled);
        QCOMPARE(results.size(), std::size_t{2});
    }

    void theCliDrawsNoProgressIntoAPipe() {
        QTemporaryDir temp;
        const QString catalog = temp.filePath("catalog.sqlite");
        const auto index = test::run_cli(
            {"index", QString::fromStdString(devset().string()), "--catalog", catalog});
        QCOMPARE(index.exit_code, 0);
        QVERIFY2(!has_control_bytes(index.err), index.err.constData());
        const auto imported = test::run_cli(
            {"import", QString::fromStdString(devset_bundle()), "--into", temp.filePath("into")});
        QCOMPARE(imported.exit_code, 0);
        QVERIFY2(!has_control_bytes(imported.err), imported.err.constData());
        const auto exported =
            test::run_cli({"export", temp.filePath("into"), "-o", temp.filePath("bundle.bin")});
        QCOMPARE(exported.exit_code, 0);
        QVERIFY2(!has_control_bytes(exported.err), exported.err.constData());
    }

    void theCliDrawsIndexProgressOnATerminalAndClearsIt() {
        QTemporaryDir temp;
        const QString dir = QString::fromStdString(devset().string());
        const auto run = run_cli_on_terminal(
            {"index", dir, "--catalog", temp.filePath("terminal.sqlite"), "--threads", "1"}, 200);
        QCOMPARE(run.exit_code, 0);
        const QList<QByteArray> lines = drawn_lines(run.err);
        QVERIFY2(!lines.isEmpty(), run.err.constData());
        for (const auto& line : lines) {
            QVERIFY2(line.startsWith("indexing " + dir.toUtf8()), line.constData());
            QVERIFY2(columns_of(line) <= 199, line.constData()); // never wraps
        }
        QVERIFY2(std::ranges::any_of(lines,
                                     [](const QByteArray& line) {
                                         return line.contains(" entries (") &&
                                                line.contains("parsing ");
                                     }),
                 run.err.constData());
        // The last thing on the terminal: the line cleared.
        QVERIFY2(run.err.endsWith(kClearLine), run.err.toStdString().c_str());

        // Stdout is what it is in a pipe.
        const auto piped =
            test::run_cli({"index", dir, "--catalog", temp.filePath("piped.sqlite")});
        QCOMPARE(piped.exit_code, 0);
        QCOMPARE(run.out, piped.out);

        // A narrow terminal: the item is cut from the front, the line still fits.
        const auto narrow =
            run_cli_on_terminal({"index", dir, "--catalog", temp.filePath("narrow.sqlite")}, 40);
        QCOMPARE(narrow.exit_code, 0);
        for (const auto& line : drawn_lines(narrow.err)) {
            QVERIFY2(columns_of(line) <= 39, line.constData());
        }

        // JSON on stdout: nothing drawn, even on a terminal.
        const auto json = run_cli_on_terminal(
            {"index", dir, "--catalog", temp.filePath("json.sqlite"), "--json"}, 80);
        QCOMPARE(json.exit_code, 0);
        QVERIFY2(!has_control_bytes(json.err), json.err.constData());
    }

    void theCliDrawsImportProgressOnATerminalAndClearsIt() {
        QTemporaryDir temp;
        const QString into = temp.filePath("into");
        const auto run = run_cli_on_terminal(
            {"import", QString::fromStdString(devset_bundle()), "--into", into}, 200);
        QCOMPARE(run.exit_code, 0);
        const QList<QByteArray> lines = drawn_lines(run.err);
        QVERIFY2(std::ranges::any_of(lines,
                                     [](const QByteArray& line) {
                                         return line.contains(" files (") &&
                                                line.contains("checking");
                                     }),
                 run.err.constData());
        QVERIFY2(std::ranges::any_of(lines,
                                     [](const QByteArray& line) {
                                         return line.contains(" files (") &&
                                                line.contains("writing");
                                     }),
                 run.err.constData());
        for (const auto& line : lines) {
            QVERIFY2(line.startsWith("importing into " + into.toUtf8()), line.constData());
            QVERIFY2(columns_of(line) <= 199, line.constData());
        }
        QVERIFY2(run.err.endsWith(kClearLine), run.err.toStdString().c_str());

        const auto piped = test::run_cli(
            {"import", QString::fromStdString(devset_bundle()), "--into", temp.filePath("piped")});
        QCOMPARE(piped.exit_code, 0);
        QCOMPARE(run.out,
                 QByteArray(piped.out).replace(temp.filePath("piped").toUtf8(), into.toUtf8()));

        const auto json = run_cli_on_terminal({"import", QString::fromStdString(devset_bundle()),
                                               "--into", temp.filePath("json"), "--json"});
        QCOMPARE(json.exit_code, 0);
        QVERIFY2(!has_control_bytes(json.err), json.err.constData());
    }

    void ctrlCStopsAnIndexCleanly() {
        const QString dir = QString::fromStdString(devset().string());
        // Ctrl-C once the line is up: the CLI is stopped first so that the
        // signal is there before it can finish; on a machine so loaded that
        // it finished anyway, again.
        for (int attempt = 0; attempt < 5; ++attempt) {
            QTemporaryDir temp;
            const QString catalogPath = temp.filePath("catalog.sqlite");
            bool sent = false;
            const auto run =
                run_cli_on_terminal({"index", dir, "--catalog", catalogPath, "--threads", "1"}, 80,
                                    [&sent](pid_t pid, const QByteArray& err) {
                                        if (!sent && err.contains("indexing")) {
                                            sent = true;
                                            ::kill(pid, SIGSTOP);
                                            ::kill(pid, SIGINT);
                                            ::kill(pid, SIGCONT);
                                        }
                                    });
            QVERIFY(sent);
            if (run.exit_code == 0) {
                continue; // it was done before the stop
            }
            QCOMPARE(run.exit_code, 130);
            QVERIFY2(run.err.contains(kClearLine + "cachelens: index stopped; the catalog is "
                                                   "consistent, run index again to finish\r\n"),
                     run.err.constData());
            QVERIFY(run.out.isEmpty());
            auto catalog = catalog::Catalog::open(catalogPath.toStdString());
            QVERIFY_RESULT(catalog);
            QVERIFY2(unsound(*catalog).isEmpty(), qPrintable(unsound(*catalog)));
            // Run again, it finishes: what a fresh catalog holds.
            const auto again = test::run_cli({"index", dir, "--catalog", catalogPath});
            QCOMPARE(again.exit_code, 0);
            const std::string difference =
                test::first_difference(fresh_dump(devset()), test::canonical_dump(*catalog));
            QVERIFY2(difference.empty(), difference.c_str());
            return;
        }
        QFAIL("the index finished before Ctrl-C every time");
    }
};

QTEST_GUILESS_MAIN(TestProgress)
#include "tst_progress.moc"
