// The GUI at scale, on a 100,000-entry catalog (bench/make-gui-catalog.py):
//  - startup: from before MainWindow is constructed (and from main(), and from
//    the parent's spawn of the process) to the end of the first paint of the
//    entry table's viewport with rows in it. Each run is a fresh process: this
//    program starts itself with --startup-child, which prints its timestamps
//    (CLOCK_MONOTONIC, the same clock in every process) as one JSON line.
//  - filter latency: in one window, from EntryTableModel::setQuery() (the
//    search field's 150 ms debounce is bypassed, and measured once on its own)
//    to the end of the next paint of the viewport after `loaded`; each filter
//    is followed by clearing it, which is timed too. Sorting by size
//    descending and back likewise, through the header's sort indicator, as a
//    click on it does.
//  - phases: the engine calls under those (Catalog::open, load_index,
//    text_match_ids, EntryIndex::select, the first page's entries_by_id)
//    timed alone, no window.
// A paint ends when the event loop next runs a zero timer posted from the
// Paint event: after the whole repaint and the backing store's flush.
//
// Usage: bench_gui CATALOG [--startup-runs N] [--filter-runs N]   (prints JSON)
// Run it with QT_QPA_PLATFORM=offscreen.

#include "bench_support.h"
#include "main_window.h"
#include "models/entry_table_model.h"
#include "pages/browse_page.h"
#include "stall_meter.h"

#include <cachelens/catalog/catalog.h>
#include <cachelens/catalog/entry_index.h>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <QAbstractItemModel>
#include <QApplication>
#include <QEvent>
#include <QEventLoop>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLineEdit>
#include <QProcess>
#include <QScrollBar>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace cachelens::bench_support;

using cachelens::catalog::Catalog;
using cachelens::catalog::SearchQuery;
using cachelens::catalog::SortColumn;
using cachelens::ui::EntryTableModel;
using cachelens::ui::MainWindow;
using Json = nlohmann::ordered_json;

// CLOCK_MONOTONIC in ns: comparable between the parent and its children.
std::int64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

double ms(std::int64_t from, std::int64_t to) {
    return static_cast<double>(to - from) / 1e6;
}

Json summary(const std::vector<double>& samples) {
    return Json{{"median_ms", percentile(samples, 0.5)},
                {"p95_ms", percentile(samples, 0.95)},
                {"min_ms", *std::min_element(samples.begin(), samples.end())},
                {"max_ms", *std::max_element(samples.begin(), samples.end())},
                {"runs", samples}};
}

// Watches one window's entry table: when `loaded` fired, the model reset,
// and when the viewport's next paint after `loaded` started and ended.
class TableWatch : public QObject {
public:
    explicit TableWatch(MainWindow& window) {
        window.browsePage()->entryTable()->viewport()->installEventFilter(this);
        EntryTableModel* model = window.browsePage()->entryModel();
        QObject::connect(model, &EntryTableModel::loaded, this, [this](int rows, qint64 elapsedMs) {
            loaded_ns = now_ns();
            rows_ = rows;
            model_elapsed_ms = elapsedMs;
        });
        QObject::connect(model, &QAbstractItemModel::modelAboutToBeReset, this,
                         [this] { reset_start_ns = now_ns(); });
        QObject::connect(model, &QAbstractItemModel::modelReset, this,
                         [this] { reset_end_ns = now_ns(); });
        QObject::connect(model, &EntryTableModel::failed, this, [](const QString& message) {
            die("the entry table failed: " + message.toStdString());
        });
        QObject::connect(&model->job(), &cachelens::ui::JobTracker::started, this,
                         [this] { ++queries; });
        QObject::connect(&model->job(), &cachelens::ui::JobTracker::finished, this,
                         [this](bool) { ++queries_finished; });
    }

    void arm() {
        loaded_ns = paint_start_ns = paint_end_ns = reset_start_ns = reset_end_ns = 0;
        rows_ = -1;
        queries = queries_finished = 0;
    }

    // Runs the event loop until the paint after `loaded` has ended. Blocking
    // in it: the timed processEvents() overload ignores WaitForMoreEvents and
    // would spin, taking a core from the query the table waits for.
    void wait() {
        QTimer limit;
        limit.setSingleShot(true);
        QObject::connect(&limit, &QTimer::timeout,
                         [] { die("no paint of the table within 120 s"); });
        limit.start(120'000);
        while (paint_end_ns == 0) {
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
        }
    }

    int rows() const { return rows_; }

    std::int64_t loaded_ns = 0, paint_start_ns = 0, paint_end_ns = 0;
    std::int64_t reset_start_ns = 0, reset_end_ns = 0;
    qint64 model_elapsed_ms = 0;
    int queries = 0;          // the table's jobs started since arm(): one per change
    int queries_finished = 0; // and finished, superseded ones included

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Paint && loaded_ns != 0 && paint_start_ns == 0) {
            paint_start_ns = now_ns();
            QTimer::singleShot(0, this, [this] { paint_end_ns = now_ns(); });
        }
        return QObject::eventFilter(watched, event);
    }

private:
    int rows_ = -1;
};

// The window as cachelens-gui shows it, at the size the docs' screenshots use.
void showWindow(MainWindow& window) {
    window.resize(1400, 900);
    window.show();
}

// One startup in this process: the timestamps, for the parent.
int startupChild(const QString& catalogPath, std::int64_t main_ns) {
    const std::int64_t app_ns = now_ns();
    const std::int64_t before_ns = now_ns();
    MainWindow window(catalogPath);
    const std::int64_t constructed_ns = now_ns();
    TableWatch watch(window);
    showWindow(window);
    const std::int64_t shown_ns = now_ns();
    watch.wait();
    if (watch.rows() <= 0) {
        die("the first table is empty");
    }
    const Json out{{"main_ns", main_ns},
                   {"app_ns", app_ns},
                   {"before_window_ns", before_ns},
                   {"constructed_ns", constructed_ns},
                   {"shown_ns", shown_ns},
                   {"loaded_ns", watch.loaded_ns},
                   {"paint_start_ns", watch.paint_start_ns},
                   {"paint_end_ns", watch.paint_end_ns},
                   {"rows", watch.rows()},
                   {"queries_run", watch.queries_finished},
                   {"model_elapsed_ms", watch.model_elapsed_ms}};
    std::printf("%s\n", out.dump().c_str());
    std::fflush(stdout);
    // Not waiting for the sidebar's stats job or tearing the window down:
    // neither is part of what is measured.
    std::_Exit(0);
}

Json startupRuns(const QString& program, const QString& catalogPath, int runs) {
    std::vector<double> from_window, from_main, from_spawn, to_loaded, paint, construct;
    Json samples = Json::array();
    // Run 0 warms the page cache (the catalog file) and is not counted.
    for (int run = 0; run <= runs; ++run) {
        QProcess child;
        child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        const std::int64_t spawn_ns = now_ns();
        child.start(program, {QStringLiteral("--startup-child"), catalogPath});
        if (!child.waitForFinished(180'000) || child.exitCode() != 0) {
            die("the startup child failed");
        }
        const auto out = Json::parse(child.readAllStandardOutput().toStdString());
        if (run == 0) {
            continue;
        }
        const std::int64_t end = out["paint_end_ns"];
        const std::int64_t before = out["before_window_ns"];
        from_window.push_back(ms(before, end));
        from_main.push_back(ms(out["main_ns"], end));
        from_spawn.push_back(ms(spawn_ns, end));
        to_loaded.push_back(ms(before, out["loaded_ns"]));
        construct.push_back(ms(before, out["constructed_ns"]));
        paint.push_back(ms(out["paint_start_ns"], end));
        samples.push_back(out);
    }
    int queries = 0;
    for (const auto& sample : samples) {
        queries = std::max(queries, sample["queries_run"].get<int>());
    }
    return Json{{"runs", runs},
                {"rows", samples.back()["rows"]},
                {"queries_run", queries},
                {"first_paint_from_window", summary(from_window)},
                {"first_paint_from_main", summary(from_main)},
                {"first_paint_from_spawn", summary(from_spawn)},
                {"phases",
                 {{"construct_window", summary(construct)},
                  {"window_to_loaded", summary(to_loaded)},
                  {"first_paint", summary(paint)}}}};
}

struct Measured {
    double total_ms;  // the change to the end of the paint
    double loaded_ms; // the change to `loaded`
    double reset_ms;  // beginResetModel to endResetModel, with the view's handling
    double paint_ms;  // the paint, which reads the first page of rows
    int rows;
    int queries;     // the table's jobs the change started
    double stall_ms; // the longest the event loop went without running, change included
};

Measured measure(TableWatch& watch, const std::function<void()>& change) {
    static cachelens::test::StallMeter stalls;
    watch.arm();
    stalls.start();
    const std::int64_t start = now_ns();
    change();
    watch.wait();
    const double stall = stalls.longestMs();
    stalls.stop();
    return {ms(start, watch.paint_end_ns),
            ms(start, watch.loaded_ns),
            ms(watch.reset_start_ns, watch.reset_end_ns),
            ms(watch.paint_start_ns, watch.paint_end_ns),
            watch.rows(),
            watch.queries,
            stall};
}

struct Series {
    std::string name;
    std::string text;
    std::vector<Measured> samples;

    Json json() const {
        std::vector<double> total, loaded, reset, paint, stalls;
        int queries = 0;
        for (const auto& s : samples) {
            stalls.push_back(s.stall_ms);
            queries = std::max(queries, s.queries);
            total.push_back(s.total_ms);
            loaded.push_back(s.loaded_ms);
            reset.push_back(s.reset_ms);
            paint.push_back(s.paint_ms);
        }
        return Json{{"name", name},
                    {"text", text},
                    {"rows", samples.back().rows},
                    {"queries_per_change", queries},
                    {"latency", summary(total)},
                    {"stall", summary(stalls)},
                    {"longest_stall_ms", *std::ranges::max_element(stalls)},
                    {"phases",
                     {{"to_loaded_median_ms", percentile(loaded, 0.5)},
                      {"model_reset_median_ms", percentile(reset, 0.5)},
                      {"paint_median_ms", percentile(paint, 0.5)}}}};
    }
};

// A key as a user would paste its start: 8 characters of an FX entry's key.
std::string keyPrefix(const Catalog& catalog) {
    sqlite3_stmt* statement = nullptr;
    sqlite3_prepare_v2(catalog.handle(),
                       "SELECT key FROM entries WHERE kind = 'fxgraph' ORDER BY id DESC LIMIT 1",
                       -1, &statement, nullptr);
    std::string key;
    if (statement != nullptr && sqlite3_step(statement) == SQLITE_ROW) {
        key = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
    }
    sqlite3_finalize(statement);
    if (key.size() < 8) {
        die("the catalog has no FX entry");
    }
    return key.substr(0, 8);
}

struct Filter {
    std::string name;
    std::string text;
};

Json filterRuns(const QString& catalogPath, const std::vector<Filter>& filters, int runs) {
    const std::int64_t before = now_ns();
    MainWindow window(catalogPath);
    TableWatch watch(window);
    showWindow(window);
    watch.wait();
    const double first_paint = ms(before, watch.paint_end_ns);
    EntryTableModel* model = window.browsePage()->entryModel();
    const auto setText = [model](const std::string& text) {
        SearchQuery query;
        query.text = text;
        model->setQuery(query);
    };

    std::vector<Series> series;
    for (const auto& filter : filters) {
        series.push_back({filter.name, filter.text, {}});
    }
    Series clear{"clear the filter (back to every entry)", "", {}};
    Series bySize{"sort by size, descending", "", {}};
    Series byKind{"sort by kind again", "", {}};
    Series typed{
        "typed into the search field (150 ms debounce included)", filters.front().text, {}};
    for (int run = 0; run < runs; ++run) {
        for (auto& s : series) {
            s.samples.push_back(measure(watch, [&] { setText(s.text); }));
            clear.samples.push_back(measure(watch, [&] { setText(""); }));
        }
        QHeaderView* header = window.browsePage()->entryTable()->horizontalHeader();
        bySize.samples.push_back(measure(
            watch, [&] { header->setSortIndicator(EntryTableModel::Size, Qt::DescendingOrder); }));
        byKind.samples.push_back(measure(
            watch, [&] { header->setSortIndicator(EntryTableModel::Kind, Qt::AscendingOrder); }));
        typed.samples.push_back(measure(watch, [&] {
            window.browsePage()->searchField()->setText(QString::fromStdString(typed.text));
        }));
        // Back to no text the way the benchmark's other changes go.
        window.browsePage()->searchField()->blockSignals(true);
        window.browsePage()->searchField()->clear();
        window.browsePage()->searchField()->blockSignals(false);
        measure(watch, [&] { setText(""); });
    }
    // Scrolling: the scroll bar moved to spread-out places (a drag, the End
    // key, page steps), the event loop run 300 ms after each while the table
    // fetches what it shows.
    std::vector<double> scroll_stalls;
    {
        measure(watch, [&] { setText(""); });
        QTableView* table = window.browsePage()->entryTable();
        QScrollBar* bar = table->verticalScrollBar();
        cachelens::test::StallMeter stalls;
        for (int run = 0; run < runs; ++run) {
            for (const double at : {1.0, 0.5, 0.25, 0.75, 0.1, 0.9, 0.0}) {
                stalls.start();
                bar->setValue(static_cast<int>(at * bar->maximum()) + run);
                QEventLoop settle;
                QTimer::singleShot(300, &settle, &QEventLoop::quit);
                settle.exec();
                scroll_stalls.push_back(stalls.longestMs());
                stalls.stop();
            }
        }
    }
    Json out{{"runs", runs}, {"in_process_first_paint_ms", first_paint}};
    out["scroll"] = {{"moves", scroll_stalls.size()},
                     {"stall", summary(scroll_stalls)},
                     {"longest_stall_ms", *std::ranges::max_element(scroll_stalls)}};
    out["filters"] = Json::array();
    for (const auto& s : series) {
        out["filters"].push_back(s.json());
    }
    out["clear"] = clear.json();
    out["sort_size_desc"] = bySize.json();
    out["sort_kind"] = byKind.json();
    out["typed"] = typed.json();
    return out;
}

// The engine calls under the GUI's, alone: what the model's job and its first
// page cost without the window.
Json enginePhases(const QString& catalogPath, const std::vector<Filter>& filters, int runs) {
    const std::filesystem::path path = catalogPath.toStdString();
    struct Case {
        std::string name;
        SearchQuery query;
    };
    std::vector<Case> cases;
    SearchQuery startup;
    startup.sort = SortColumn::Kind; // the table's default sort
    cases.push_back({"all entries (sort by kind)", startup});
    for (const auto& filter : filters) {
        SearchQuery query = startup;
        query.text = filter.text;
        cases.push_back({filter.name, query});
    }
    SearchQuery size = startup;
    size.sort = SortColumn::Size;
    size.descending = true;
    cases.push_back({"all entries (sort by size, descending)", size});

    Json out = Json::array();
    for (const auto& c : cases) {
        std::vector<double> open, load, match, select, page;
        std::size_t count = 0;
        for (int run = 0; run < runs; ++run) {
            std::int64_t t0 = now_ns();
            auto catalog = checked(Catalog::open(path), "open the catalog");
            std::int64_t t1 = now_ns();
            auto index = checked(catalog.load_index(), "load_index");
            std::int64_t t2 = now_ns();
            auto matches = checked(catalog.text_match_ids(c.query.text), "text_match_ids");
            std::int64_t t3 = now_ns();
            auto found =
                matches ? index.select(c.query, std::span(*matches)) : index.select(c.query);
            std::int64_t t4 = now_ns();
            const auto first = std::span(found).first(std::min<std::size_t>(256, found.size()));
            auto hits = checked(catalog.entries_by_id(first), "entries_by_id");
            std::int64_t t5 = now_ns();
            open.push_back(ms(t0, t1));
            load.push_back(ms(t1, t2));
            match.push_back(ms(t2, t3));
            select.push_back(ms(t3, t4));
            page.push_back(ms(t4, t5));
            count = found.size();
        }
        out.push_back({{"name", c.name},
                       {"text", c.query.text},
                       {"rows", count},
                       {"open_median_ms", percentile(open, 0.5)},
                       {"load_index_median_ms", percentile(load, 0.5)},
                       {"text_match_median_ms", percentile(match, 0.5)},
                       {"select_median_ms", percentile(select, 0.5)},
                       {"select_p95_ms", percentile(select, 0.95)},
                       {"first_page_median_ms", percentile(page, 0.5)}});
    }
    return out;
}

int intOption(const QStringList& args, const QString& name, int fallback) {
    const auto at = args.indexOf(name);
    if (at < 0 || at + 1 >= args.size()) {
        return fallback;
    }
    bool ok = false;
    const int value = args[at + 1].toInt(&ok);
    if (!ok || value < 1) {
        die(name.toStdString() + " wants a positive number");
    }
    return value;
}

} // namespace

int main(int argc, char** argv) {
    const std::int64_t main_ns = now_ns();
    QApplication app(argc, argv);
    // The user's settings (window geometry, splitters) stay out of the benchmark.
    QTemporaryDir settings;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings.path());
    QCoreApplication::setOrganizationName(QStringLiteral("cachelens-bench"));
    QCoreApplication::setApplicationName(QStringLiteral("bench_gui"));

    const QStringList args = QCoreApplication::arguments();
    if (args.size() >= 3 && args[1] == QStringLiteral("--startup-child")) {
        return startupChild(args[2], main_ns);
    }
    if (args.size() < 2 || args[1].startsWith(QLatin1Char('-'))) {
        std::fprintf(stderr, "usage: bench_gui CATALOG [--startup-runs N] [--filter-runs N]\n");
        return 2;
    }
    const QString catalogPath = args[1];
    const int startup = intOption(args, QStringLiteral("--startup-runs"), 10);
    const int filterRunCount = intOption(args, QStringLiteral("--filter-runs"), 10);

    auto catalog = checked(Catalog::open(catalogPath.toStdString()), "open the catalog");
    const auto entries = checked(catalog.count(SearchQuery{}), "count the entries");
    const std::vector<Filter> filters = {
        {"kernel name prefix", "triton_poi"},
        {"key prefix", keyPrefix(catalog)},
        {"debug-line word", "cudagraphs"},
        {"a word matching nothing", "zqxjkvbnomatch"},
    };

    Json out{{"catalog", catalogPath.toStdString()},
             {"entries", entries},
             {"platform", QGuiApplication::platformName().toStdString()}};
    out["startup"] = startupRuns(QCoreApplication::applicationFilePath(), catalogPath, startup);
    out["filter"] = filterRuns(catalogPath, filters, filterRunCount);
    out["engine"] = enginePhases(catalogPath, filters, 5);
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
}
