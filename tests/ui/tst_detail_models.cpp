// The models behind the detail tabs, under QAbstractItemModelTester, on real
// devset entries: EntryFieldsModel (fields and links of every kind),
// DebugLinesModel, AutotuneModel (winners of a best_config, an FX entry's
// candidates, the benchmark cache, a module), KernelFilesModel; the lookups
// behind a module's links (its Triton kernels and best_configs); and the
// views' building blocks (Python colouring, CodeView on large text).

#include "data/entry_links.h"
#include "data/entry_ref.h"
#include "devset_entries.h"
#include "models/autotune_model.h"
#include "models/debug_lines_model.h"
#include "models/entry_fields_model.h"
#include "models/kernel_files_model.h"
#include "test_paths.h"
#include "widgets/code_view.h"
#include "widgets/python_highlighter.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_content.h>

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QFont>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>
#include <QtTest>

#include <map>
#include <set>

using namespace cachelens;
using namespace cachelens::ui;
using namespace cachelens::test;
using cachedir::FileKind;

namespace {

// A max-autotune choice timed in the benchmark cache (not the fastest).
constexpr const char* kMmChoice = "cfdvvtlhs2q6o4e3apbmiul2cvkjxdhnpqosnjxq4ladnbfmwh7y";

using Loaded = LoadedEntry;

Loaded load(const std::string& query, const std::string& fixtureRoot = "devset/cache") {
    return loadEntry(test::fixture(fixtureRoot), query);
}

// Every link of a fields model.
std::vector<EntryLink> links(const EntryFieldsModel& model) {
    std::vector<EntryLink> out;
    for (const QModelIndex& index : model.linkIndexes()) {
        out.push_back(*model.linkAt(index));
    }
    return out;
}

bool hasLink(const EntryFieldsModel& model, FileKind kind, const QString& target) {
    const auto all = links(model);
    return std::find(all.begin(), all.end(), EntryLink{kind, target}) != all.end();
}

// The top-level row named `name`, or an invalid index.
QModelIndex topField(const EntryFieldsModel& model, const QString& name) {
    for (int row = 0; row < model.rowCount(); ++row) {
        const QModelIndex index = model.index(row, EntryFieldsModel::NameColumn);
        if (index.data().toString() == name) {
            return index;
        }
    }
    return {};
}

QString valueOf(const EntryFieldsModel& model, const QString& name) {
    return topField(model, name)
        .siblingAtColumn(EntryFieldsModel::ValueColumn)
        .data(EntryFieldsModel::FullValueRole)
        .toString();
}

} // namespace

class TestDetailModels : public QObject {
    Q_OBJECT

private slots:
    void fieldsOfEveryKindPassTheTester() {
        // One entry of each kind in devset and cpu_dev (C++ sources, locks).
        for (const char* fixtureRoot : {"devset/cache", "cpu_dev/cache"}) {
            const auto root = test::fixture(fixtureRoot);
            auto scan = cachedir::scan_cache_dir(root);
            QVERIFY_RESULT(scan);
            std::set<FileKind> seen;
            for (const auto& entry : scan->entries()) {
                if (!seen.insert(entry.kind).second) {
                    continue;
                }
                auto content = cachedir::load_entry(root, entry);
                QVERIFY_RESULT(content);
                EntryFieldsModel model;
                QAbstractItemModelTester tester(
                    &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
                model.setEntry(entry, *content);
                QVERIFY2(model.rowCount() > 4, entry.path.c_str());
                QCOMPARE(valueOf(model, QStringLiteral("Key")), QString::fromStdString(entry.key));
                QCOMPARE(valueOf(model, QStringLiteral("Kind")),
                         QString::fromUtf8(cachedir::to_string(entry.kind)));
                model.clear();
                QCOMPARE(model.rowCount(), 0);
            }
            QVERIFY(seen.size() >= 4);
        }
    }

    void fxFieldsMirrorTheCliAndLinkEverywhere() {
        const Loaded fx = load(kFxWithWinner);
        EntryFieldsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setEntry(fx.ref.entry, *fx.content);
        const auto& entry = std::get<cachedir::FxGraphEntry>(*fx.content);

        QCOMPARE(valueOf(model, QStringLiteral("Debug lines")),
                 QString::number(entry.debug_lines.size()));
        QCOMPARE(valueOf(model, QStringLiteral("Wrapper module")),
                 QString::fromStdString(entry.cache_key));
        QVERIFY(valueOf(model, QStringLiteral("Guards")).startsWith(QStringLiteral("none")) ==
                !entry.guards_expr.has_value());
        QVERIFY(!valueOf(model, QStringLiteral("Source sha256")).isEmpty());
        QCOMPARE(valueOf(model, QStringLiteral("Devices")), QStringLiteral("cuda:0"));

        // Links: the wrapper module, the kernel's module and best_config, and
        // every candidate's and bundled kernel's Triton dir.
        QVERIFY(hasLink(model, FileKind::Module, QString::fromStdString(entry.cache_key)));
        QVERIFY(hasLink(model, FileKind::Module, QLatin1String(kKernelModule)));
        QVERIFY(hasLink(model, FileKind::BestConfig, QLatin1String(kBestConfig)));
        for (const auto& tuner : entry.autotuners) {
            for (const auto& candidate : tuner.candidates) {
                QVERIFY(hasLink(model, FileKind::Triton,
                                QString::fromStdString(candidate.triton_dir())));
            }
        }
        for (const auto& kernel : entry.triton_artifacts) {
            QVERIFY(hasLink(model, FileKind::Triton, QString::fromStdString(kernel.kernel_hash)));
        }
        QVERIFY(hasLink(model, FileKind::Triton, QLatin1String(kWinner)));

        // The kernels group: one node per kernel, its candidates below.
        const QModelIndex kernels = topField(model, QStringLiteral("Kernels"));
        QCOMPARE(model.rowCount(kernels), static_cast<int>(entry.autotuners.size()));
        QCOMPARE(valueOf(model, QStringLiteral("Kernels")),
                 QString::number(entry.autotuners.size()));
        QCOMPARE(valueOf(model, QStringLiteral("Output strides")),
                 QString::number(entry.output_strides.size()));
        // Links carry their kind and target under the shared roles, in both columns.
        const QModelIndex wrapper = topField(model, QStringLiteral("Wrapper module"));
        QCOMPARE(wrapper.data(kLinkKindRole).toInt(), static_cast<int>(FileKind::Module));
        QCOMPARE(wrapper.siblingAtColumn(1).data(kLinkTargetRole).toString(),
                 QString::fromStdString(entry.cache_key));
        QVERIFY(wrapper.siblingAtColumn(1).data(Qt::FontRole).value<QFont>().underline());
        QVERIFY(!topField(model, QStringLiteral("Path")).data(kLinkKindRole).isValid());
    }

    void aotFieldsLinkTheirGraphs() {
        const Loaded aot = load(kAot);
        EntryFieldsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setEntry(aot.ref.entry, *aot.content);
        const auto& entry = std::get<cachedir::AotAutogradEntry>(*aot.content);
        QVERIFY(entry.forward.has_value());
        QCOMPARE(QString::fromStdString(entry.forward->key), QLatin1String(kFxWithWinner));
        QVERIFY(hasLink(model, FileKind::FxGraph, QLatin1String(kFxWithWinner)));
        QCOMPARE(valueOf(model, QStringLiteral("Backward graph")), QStringLiteral("none"));
        QVERIFY(valueOf(model, QStringLiteral("Guards")).contains(QStringLiteral("L['t0']")));
    }

    void bestConfigAndTritonFieldsLinkOnward() {
        const Loaded best = load(kBestConfig);
        EntryFieldsModel bestModel;
        bestModel.setEntry(best.ref.entry, *best.content);
        QCOMPARE(links(bestModel),
                 (std::vector<EntryLink>{{FileKind::Triton, QLatin1String(kWinner)}}));
        QVERIFY(valueOf(bestModel, QStringLiteral("Config")).contains(QStringLiteral("XBLOCK=8")));

        const Loaded triton = load(kWinner);
        EntryFieldsModel tritonModel;
        QAbstractItemModelTester tester(&tritonModel,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        tritonModel.setEntry(triton.ref.entry, *triton.content);
        QVERIFY(hasLink(tritonModel, FileKind::Module, QLatin1String(kKernelModule)));
        QCOMPARE(valueOf(tritonModel, QStringLiteral("Kernel")),
                 QStringLiteral("triton_red_fused_cat_cumsum_sin_0"));
        const QModelIndex ptx = topField(tritonModel, QStringLiteral("PTX"));
        QVERIFY(ptx.isValid());
        const auto& dir = std::get<cachedir::TritonKernelDir>(*triton.content);
        QVERIFY(dir.ptx.has_value());
        QCOMPARE(ptx.siblingAtColumn(1).data().toString(), QString::fromStdString(dir.ptx->target));
    }

    void moduleLookupsFindTheirKernelsAndBestConfigs() {
        const auto root = test::fixture("devset/cache");
        const Loaded module = load(kKernelModule);
        const auto& source = std::get<cachedir::ModuleSource>(*module.content);
        const auto dirs =
            cachedir::find_triton_dirs_of_module(root, kKernelModule, source.module.kernel_names());
        // The four autotune candidates of the FX entry's kernel.
        QCOMPARE(dirs.size(), std::size_t{4});
        std::set<std::string> hashes;
        for (const auto& dir : dirs) {
            QCOMPARE(dir.module_key, std::string(kKernelModule));
            hashes.insert(dir.hash);
        }
        QVERIFY(hashes.contains(kWinner));
        QVERIFY(
            cachedir::find_triton_dirs_of_module(root, kKernelModule, {"no_such_kernel"}).empty());

        const auto bests = cachedir::find_best_configs_of_module(root, kKernelModule);
        QCOMPARE(bests.size(), std::size_t{1});
        QCOMPARE(bests.front().path, std::string(kBestConfig));
        QCOMPARE(bests.front().config.triton_cache_hash.value_or(""), std::string(kWinner));

        FieldNode group = tritonKernelsGroup(QStringLiteral("Triton kernels"), dirs);
        QCOMPARE(group.children.size(), std::size_t{4});
        EntryFieldsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setEntry(module.ref.entry, *module.content);
        const int before = model.rowCount();
        model.appendField(std::move(group));
        QCOMPARE(model.rowCount(), before + 1);
        QVERIFY(hasLink(model, FileKind::Triton, QLatin1String(kWinner)));
        QVERIFY(valueOf(model, QStringLiteral("Code hash")).contains(QStringLiteral("matches")));
    }

    void linkHelpers() {
        QCOMPARE(cachedir::cache_relative_path("/tmp/x/cache/nf/abc.best_config"),
                 std::string("nf/abc.best_config"));
        QCOMPARE(cachedir::cache_relative_path("abc.best_config"), std::string("abc.best_config"));
        QCOMPARE(cachedir::module_key_of_choice(std::string("triton_mm-") + kMmChoice),
                 std::string(kMmChoice));
        QCOMPARE(cachedir::module_key_of_choice("triton_mm-cXYZ"), std::string());
        QCOMPARE(cachedir::module_key_of_choice("mm"), std::string());
    }

    void debugLinesSplitAndKeepEveryLine() {
        const Loaded fx = load(kFxSmall);
        const auto& entry = std::get<cachedir::FxGraphEntry>(*fx.content);
        DebugLinesModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setLines(entry.debug_lines);
        QCOMPARE(model.rowCount(), static_cast<int>(entry.debug_lines.size()));
        bool sawGraph = false, sawConfig = false;
        for (int row = 0; row < model.rowCount(); ++row) {
            const QString attribute =
                model.index(row, DebugLinesModel::AttributeColumn).data().toString();
            const QString shown = model.index(row, DebugLinesModel::ValueColumn).data().toString();
            const QString full =
                model.index(row, 0).data(DebugLinesModel::FullValueRole).toString();
            QCOMPARE(
                model.index(row, 0).data(DebugLinesModel::LineTextRole).toString(),
                QString::fromUtf8(entry.debug_lines[static_cast<std::size_t>(row)].data(),
                                  static_cast<qsizetype>(
                                      entry.debug_lines[static_cast<std::size_t>(row)].size())));
            QVERIFY(!shown.contains(QLatin1Char('\n')));
            if (attribute == QLatin1String("gm")) {
                sawGraph = true;
                QVERIFY(full.contains(QStringLiteral("def forward(self, arg0_1)")));
                QVERIFY(shown.contains(QStringLiteral("more lines")) ||
                        shown.contains(QStringLiteral("lines)")));
                QCOMPARE(model.index(row, DebugLinesModel::HashColumn).data().toString(),
                         QStringLiteral("kkfvs36h6fdyce6sfpzaelaeljtf4yzi5nqjtbgbvngfblild73"));
            }
            if (attribute == QLatin1String("inductor_config[debug]")) {
                sawConfig = true;
                QCOMPARE(shown, QStringLiteral("False"));
            }
        }
        QVERIFY(sawGraph);
        QVERIFY(sawConfig);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void autotuneBestConfig() {
        const Loaded best = load(kBestConfig);
        AutotuneModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.showBestConfig(std::get<cachedir::BestConfig>(*best.content),
                             QLatin1String(kBestConfig));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.bestCount(), 1);
        QCOMPARE(model.index(0, AutotuneModel::MarkerColumn).data().toString(),
                 QStringLiteral("best"));
        QVERIFY(
            model.index(0, AutotuneModel::ConfigColumn).data(Qt::FontRole).value<QFont>().bold());
        QCOMPARE(model.index(0, AutotuneModel::ConfigColumn).data().toString(),
                 QStringLiteral("XBLOCK=8, R0_BLOCK=8"));
        QCOMPARE(model.index(0, AutotuneModel::NumWarpsColumn).data().toInt(), 2);
        QCOMPARE(model.index(0, AutotuneModel::TritonColumn).data().toString(),
                 QLatin1String(kWinner));
        QCOMPARE(*model.linkAt(model.index(0, AutotuneModel::TritonColumn)),
                 (EntryLink{FileKind::Triton, QLatin1String(kWinner)}));
        QVERIFY(model.isColumnUsed(AutotuneModel::AutotuneTimeColumn));
        QVERIFY(!model.isColumnUsed(AutotuneModel::InputsColumn));
    }

    void autotuneFxCandidatesMarkTheBestConfigsWinner() {
        const Loaded fx = load(kFxWithWinner);
        const Loaded best = load(kBestConfig);
        const auto& entry = std::get<cachedir::FxGraphEntry>(*fx.content);
        AutotuneModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.showFxGraph(entry);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.bestCount(), 0); // no best_config known yet
        model.showFxGraph(entry, {{kBestConfig, std::get<cachedir::BestConfig>(*best.content)}});
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.bestCount(), 1);
        for (int row = 0; row < model.rowCount(); ++row) {
            const bool winner = model.index(row, 0).data(AutotuneModel::IsBestRole).toBool();
            QCOMPARE(winner, model.index(row, AutotuneModel::TritonColumn).data().toString() ==
                                 QLatin1String(kWinner));
            QCOMPARE(model.index(row, AutotuneModel::ConfigColumn)
                         .data(Qt::FontRole)
                         .value<QFont>()
                         .bold(),
                     winner);
            QCOMPARE(model.index(row, AutotuneModel::MarkerColumn).data().toString(),
                     winner ? QStringLiteral("best") : QString());
        }
    }

    // kFxSmall's reduction: its bundle compiled one config; coordinate
    // descent then found the winner its best_config records, none of the
    // candidates (cachedir::current_best, as `cachelens bench --plan`).
    void autotuneFxCoordinateDescentWinnerIsARowOfItsOwn() {
        const char* const kCoordescBestConfig =
            "2c/1d478d3f71f84b06d156f2b3d8b027fb6d1f8b2d5491a0dc74571852450c7051.best_config";
        const Loaded fx = load(kFxSmall);
        const Loaded best = load(kCoordescBestConfig);
        const auto& entry = std::get<cachedir::FxGraphEntry>(*fx.content);
        const auto& bestConfig = std::get<cachedir::BestConfig>(*best.content);
        QVERIFY(bestConfig.found_by_coordesc.value_or(false));
        QVERIFY(!bestConfig.triton_cache_hash);
        QCOMPARE(entry.autotuners.size(), std::size_t{1});
        const auto& tuner = entry.autotuners.front();
        QCOMPARE(cachedir::cache_relative_path(tuner.best_config_path),
                 std::string(kCoordescBestConfig));
        const int candidates = static_cast<int>(tuner.candidates.size());
        AutotuneModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.showFxGraph(entry, {{kCoordescBestConfig, bestConfig}});
        QCOMPARE(model.rowCount(), candidates + 1);
        QCOMPARE(model.bestCount(), 1);
        for (int row = 0; row < candidates; ++row) {
            QVERIFY(!model.index(row, 0).data(AutotuneModel::IsBestRole).toBool());
        }
        const int winner = candidates;
        QVERIFY(model.index(winner, 0).data(AutotuneModel::IsBestRole).toBool());
        QCOMPARE(model.index(winner, AutotuneModel::MarkerColumn).data().toString(),
                 QStringLiteral("best"));
        QCOMPARE(model.index(winner, AutotuneModel::KernelColumn).data().toString(),
                 QStringLiteral("triton_red_fused_mul_sqrt_sum_0"));
        QCOMPARE(model.index(winner, AutotuneModel::ConfigColumn).data().toString(),
                 QStringLiteral("XBLOCK=1, R0_BLOCK=4096"));
        QVERIFY(model.index(winner, AutotuneModel::ConfigColumn)
                    .data(Qt::FontRole)
                    .value<QFont>()
                    .bold());
        QCOMPARE(model.index(winner, AutotuneModel::NumWarpsColumn).data().toInt(), 4);
        QCOMPARE(model.index(winner, AutotuneModel::CoordescColumn).data().toString(),
                 QStringLiteral("yes"));
        QCOMPARE(model.index(winner, AutotuneModel::AutotuneTimeColumn).data().toDouble(), 1862.0);
        QCOMPARE(model.index(winner, AutotuneModel::BestConfigColumn).data().toString(),
                 QLatin1String(kCoordescBestConfig));
        // No Triton dir recorded: nothing to link to, and the tooltip says why.
        QVERIFY(!model.linkAt(model.index(winner, AutotuneModel::TritonColumn)));
        QVERIFY(model.index(winner, AutotuneModel::ConfigColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("coordinate descent")));
    }

    void autotuneBenchmarkCacheMarksTheFastestOfEachBenchmark() {
        const Loaded loaded = load(kBenchmarkCache);
        const auto& cache = std::get<cachedir::BenchmarkCache>(*loaded.content);
        AutotuneModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.showBenchmarkCache(cache);
        QCOMPARE(model.rowCount(), static_cast<int>(cache.choices.size()));
        // Group by (op, inputs, precision): one best each, and it is the fastest.
        std::map<QString, std::pair<double, double>> groups; // fastest, best's ms
        for (int row = 0; row < model.rowCount(); ++row) {
            const QString group =
                model.index(row, AutotuneModel::KernelColumn).data().toString() +
                model.index(row, AutotuneModel::InputsColumn).data().toString() +
                model.index(row, AutotuneModel::PrecisionColumn).data().toString();
            const double ms = model.index(row, AutotuneModel::TimeColumn)
                                  .data(AutotuneModel::SortRole)
                                  .toDouble();
            auto [it, fresh] = groups.try_emplace(group, ms, -1.0);
            it->second.first = std::min(it->second.first, ms);
            if (model.index(row, 0).data(AutotuneModel::IsBestRole).toBool()) {
                QCOMPARE(it->second.second, -1.0); // one best per group
                it->second.second = ms;
            }
        }
        QCOMPARE(model.bestCount(), static_cast<int>(groups.size()));
        for (const auto& [group, times] : groups) {
            QCOMPARE(times.second, times.first);
        }
        QVERIFY(model.isColumnUsed(AutotuneModel::TimeColumn));
        QVERIFY(!model.isColumnUsed(AutotuneModel::NumWarpsColumn));
    }

    void autotuneModuleShowsWhatTimedIt() {
        const auto root = test::fixture("devset/cache");
        const Loaded loaded = load(kBenchmarkCache);
        const auto& cache = std::get<cachedir::BenchmarkCache>(*loaded.content);
        AutotuneModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        // A max-autotune choice: its benchmark's timings, itself marked.
        model.showModule(QLatin1String(kMmChoice), {}, {cache});
        QVERIFY(model.rowCount() > 1);
        int marked = 0;
        for (int row = 0; row < model.rowCount(); ++row) {
            marked += model.index(row, AutotuneModel::MarkerColumn)
                          .data()
                          .toString()
                          .contains(QStringLiteral("this module"));
        }
        QCOMPARE(marked, 1);
        QCOMPARE(model.bestCount(), 1);
        // A kernel module: its best_config.
        model.showModule(QLatin1String(kKernelModule),
                         cachedir::find_best_configs_of_module(root, kKernelModule), {cache});
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, AutotuneModel::BestConfigColumn).data().toString(),
                 QLatin1String(kBestConfig));
    }

    void kernelFilesOfADirAndOfABundle() {
        const Loaded triton = load(kWinner);
        const auto& dir = std::get<cachedir::TritonKernelDir>(*triton.content);
        KernelFilesModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<KernelDirItem> items(1);
        items[0].dir = dir;
        items[0].location = QString::fromStdString(triton.ref.entry.path);
        model.setKernels(std::move(items));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.rowCount(model.kernelIndex(0)), static_cast<int>(dir.files.size()));
        const QModelIndex ptx = model.findFile(0, QStringLiteral(".ptx"));
        QVERIFY(ptx.isValid());
        QCOMPARE(model.fileAt(ptx)->info().name,
                 std::string("triton_red_fused_cat_cumsum_sin_0.ptx"));
        QCOMPARE(ptx.siblingAtColumn(KernelFilesModel::TypeColumn).data().toString(),
                 QStringLiteral("PTX"));
        QVERIFY(!model.fileAt(model.kernelIndex(0)));
        QVERIFY(KernelFilesModel::isBinary(QStringLiteral("x.cubin")));
        QVERIFY(!KernelFilesModel::isBinary(QStringLiteral("x.ptx")));

        // An FX entry's bundle, parsed like a dir on disk.
        const Loaded fx = load(kFxWithWinner);
        const auto& entry = std::get<cachedir::FxGraphEntry>(*fx.content);
        auto bundle = bundleKernelItems(entry);
        QCOMPARE(bundle.size(), entry.triton_artifacts.size());
        for (const auto& item : bundle) {
            QVERIFY(item.location.isEmpty());
            QCOMPARE(item.payloads.size(), item.dir.files.size());
            QVERIFY(item.dir.metadata.has_value());
            QVERIFY(item.dir.ptx.has_value());
            QCOMPARE(item.dir.module_key, std::string(kKernelModule));
        }
        model.setKernels(std::move(bundle));
        QCOMPARE(model.rowCount(), static_cast<int>(entry.triton_artifacts.size()));
    }

    void pythonHighlighterColoursAcrossLines() {
        QTextDocument document;
        PythonHighlighter highlighter;
        document.setPlainText(QStringLiteral("@triton.jit\n"
                                             "def kernel(x):  # a comment 'not a string'\n"
                                             "    s = '''first\n"
                                             "# not a comment\n"
                                             "last''' + \"#\" + 0x1F\n"
                                             "    return None\n"));
        highlighter.setDocument(&document);
        highlighter.rehighlight(); // setDocument colours later, from the event loop
        auto formatAt = [&](int line, int column) -> QTextCharFormat {
            const QTextBlock block = document.findBlockByNumber(line);
            for (const auto& range : block.layout()->formats()) {
                if (column >= range.start && column < range.start + range.length) {
                    return range.format;
                }
            }
            return {};
        };
        const QColor stringColor = formatAt(2, 9).foreground().color();
        QVERIFY(formatAt(0, 0).hasProperty(QTextFormat::ForegroundBrush));   // decorator
        QVERIFY(!formatAt(1, 11).hasProperty(QTextFormat::ForegroundBrush)); // plain x
        QVERIFY(formatAt(1, 0).fontWeight() == QFont::Bold);                 // def
        QVERIFY(formatAt(1, 4).fontWeight() == QFont::Bold);                 // the def's name
        QVERIFY(formatAt(1, 17).fontItalic());                               // the comment
        QCOMPARE(formatAt(1, 30).foreground().color(), formatAt(1, 17).foreground().color());
        QCOMPARE(document.findBlockByNumber(2).userState(), int(PythonHighlighter::InSingleTriple));
        QCOMPARE(formatAt(3, 0).foreground().color(), stringColor); // inside the string
        QVERIFY(!formatAt(3, 0).fontItalic());
        QCOMPARE(document.findBlockByNumber(4).userState(), int(PythonHighlighter::Normal));
        QCOMPARE(formatAt(4, 11).foreground().color(), stringColor);  // "#"
        QVERIFY(formatAt(4, 17).foreground().color() != stringColor); // 0x1F
        QVERIFY(formatAt(4, 17).hasProperty(QTextFormat::ForegroundBrush));
        QVERIFY(formatAt(5, 4).fontWeight() == QFont::Bold); // return

        // The dark set differs and keeps strings apart from keywords.
        highlighter.setDarkBackground(true);
        QVERIFY(formatAt(2, 9).foreground().color() != stringColor);
    }

    void codeViewColoursSmallTextsAndSkipsHugeOnes() {
        CodeView view;
        view.setCode(QStringLiteral("def f():\n    return 1\n"), CodeView::Language::Python);
        QVERIFY(view.isHighlighted());
        QCOMPARE(view.blockCount(), 3);
        QVERIFY(view.isReadOnly());
        QVERIFY(view.lineNumberAreaWidth() >
                view.fontMetrics().horizontalAdvance(QStringLiteral("99")));
        // A dark palette switches the colours (the light ones are too dark on it).
        QCoreApplication::processEvents(); // setDocument colours from the event loop
        auto keywordColor = [&] {
            return view.document()
                ->firstBlock()
                .layout()
                ->formats()
                .value(0)
                .format.foreground()
                .color();
        };
        const QColor light = keywordColor();
        QPalette dark = view.palette();
        dark.setColor(QPalette::Base, QColor(30, 30, 30));
        dark.setColor(QPalette::Text, QColor(220, 220, 220));
        view.setPalette(dark);
        QVERIFY(keywordColor() != light);
        QVERIFY(keywordColor().lightness() > light.lightness());

        // ~3 MB of source: set at once, not coloured, still quick.
        QString big;
        const QString line = QStringLiteral(
            "    buf0 = empty_strided_cuda((4096, 3000), (3000, 1), torch.float32)  # x\n");
        big.reserve(line.size() * 42000);
        for (int i = 0; i < 42000; ++i) {
            big += line;
        }
        QVERIFY(big.size() > CodeView::kMaxHighlightBytes);
        QElapsedTimer timer;
        timer.start();
        view.setCode(big, CodeView::Language::Python);
        qInfo("3 MB into CodeView: %lld ms", static_cast<long long>(timer.elapsed()));
        QVERIFY(!view.isHighlighted());
        QCOMPARE(view.blockCount(), 42001);
        view.goToLine(30000);
        QCOMPARE(view.textCursor().blockNumber(), 29999);
        QVERIFY(view.findText(QStringLiteral("empty_strided_cuda")));
        view.clearCode();
        QCOMPARE(view.blockCount(), 1);
    }
};

QTEST_MAIN(TestDetailModels)
#include "tst_detail_models.moc"
