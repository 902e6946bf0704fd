// Text from a cache is data, never markup: in the real window, a key, a
// kernel name, a value or an error message holding <img src=...> or
// <a href=...> shows as those characters. No label, banner, dialog header or
// tooltip (of a widget, or of any row of any table) may hand such text to
// Qt's HTML renderer unescaped; the ones that show it are checked to read as
// written.

#include "dialogs/dialog_launcher.h"
#include "jobs/root_jobs.h"
#include "main_window.h"
#include "models/entry_table_model.h"
#include "pages/browse_page.h"
#include "pages/why_page.h"
#include "startup_script.h"
#include "tabs/entry_tab.h"
#include "test_paths.h"
#include "text/engine_text.h"
#include "text/plain_text.h"

#include <QAbstractItemView>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextDocumentFragment>
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <functional>
#include <optional>

using namespace cachelens;
using namespace cachelens::ui;
namespace fs = std::filesystem;

namespace {

// A .best_config's name (its key is the name up to the first dot), one that
// does not parse, a Triton kernel's name.
const QString kKey = QStringLiteral("<img src=pwned-key>");
const QString kBroken = QStringLiteral("<img src=pwned-broken>");
const QString kKernel = QStringLiteral("<img src=pwned-kernel>");
const QString kKernelDir = QStringLiteral("PWNEDKERNELDIR");
// An FX graph's key, in its dir's name and in its pickle: as long as the key
// it replaces, so the pickle's string lengths hold.
const QString kSampleFxKey = QStringLiteral("f44wpapccbqjred6qtwm7d3hxi4aoplfv6guceuj2jajh3wsdgko");
const QString kFxKey = QStringLiteral("f<img src=pwned-fx>").leftJustified(52, u'a');
// The winner's Triton hash in the hostile .best_config.
const QString kHash = QStringLiteral("<a href=\"https://pwned.example/\">hash</a>");

bool holdsMarkup(const QString& text) {
    return text.contains(QLatin1String("<img src=pwned")) ||
           text.contains(QLatin1String("<a href=\"https://pwned"));
}

bool rendersAsHtml(const QLabel* label) {
    return label->textFormat() == Qt::RichText ||
           (label->textFormat() == Qt::AutoText && Qt::mightBeRichText(label->text()));
}

// What a person reads in a label or a tooltip.
QString shown(const QString& text, bool html) {
    return html ? QTextDocumentFragment::fromHtml(text).toPlainText().replace(QChar::Nbsp, u' ')
                : text;
}
QString shown(const QLabel* label) {
    return shown(label->text(), rendersAsHtml(label));
}
QString shownToolTip(const QString& tip) {
    return shown(tip, Qt::mightBeRichText(tip));
}

void collectToolTips(const QAbstractItemModel& model, const QModelIndex& parent, int depth,
                     QStringList& found) {
    const int rows = std::min(model.rowCount(parent), 400);
    for (int row = 0; row < rows; ++row) {
        for (int column = 0; column < model.columnCount(parent); ++column) {
            const QModelIndex index = model.index(row, column, parent);
            const QString tip = index.data(Qt::ToolTipRole).toString();
            if (Qt::mightBeRichText(tip) && holdsMarkup(tip)) {
                found << QStringLiteral("tooltip of %1 row %2: %3")
                             .arg(model.objectName())
                             .arg(row)
                             .arg(tip);
            }
            if (column == 0 && depth < 3 && model.hasChildren(index)) {
                collectToolTips(model, index, depth + 1, found);
            }
        }
    }
}

// Everything in `root` that would render markup from the cache as HTML.
QStringList renderedMarkup(QWidget* root) {
    QStringList found;
    for (const QLabel* label : root->findChildren<QLabel*>()) {
        if (rendersAsHtml(label) && holdsMarkup(label->text())) {
            found << QStringLiteral("label %1: %2").arg(label->objectName(), label->text());
        }
    }
    auto widgets = root->findChildren<QWidget*>();
    widgets << root;
    for (const QWidget* widget : widgets) {
        if (Qt::mightBeRichText(widget->toolTip()) && holdsMarkup(widget->toolTip())) {
            found
                << QStringLiteral("tooltip of %1: %2").arg(widget->objectName(), widget->toolTip());
        }
    }
    for (const QAbstractItemView* view : root->findChildren<QAbstractItemView*>()) {
        if (view->model() != nullptr) {
            collectToolTips(*view->model(), {}, 0, found);
        }
    }
    return found;
}

void copyFile(const fs::path& from, const fs::path& to, const QString& replace = {},
              const QString& with = {}) {
    QString text = QString::fromUtf8(test::read_file(from));
    if (!replace.isEmpty()) {
        QVERIFY2(text.contains(replace), qPrintable(replace));
        text.replace(replace, with);
    }
    fs::create_directories(to.parent_path());
    std::ofstream(to, std::ios::binary) << text.toStdString();
}

} // namespace

class TestCacheText : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY(settings_.isValid());

        QVERIFY(temp_.isValid());
        cache_ = fs::path(temp_.path().toStdString()) / "cache";
        test::copy_tree(test::sample_cache(), cache_);
        const fs::path best =
            cache_ /
            "4a/ac2cabb0310ed6bb088c5febe0607a3e74136d5f61377d843d4f8f5a4927edef.best_config";
        copyFile(best, cache_ / "4a" / (kKey + ".best_config").toStdString(),
                 QStringLiteral("ZBGBGFMGMILILGB2QX5SDNU3HWBPY3CNT6NIH47B23D3XB524Z7Q"),
                 QString(kHash).replace(u'"', QLatin1String("\\\"")));
        std::ofstream(cache_ / "4a" / (kBroken + ".best_config").toStdString()) << "{";
        const fs::path fx = cache_ / "fxgraph/44" / kSampleFxKey.toStdString();
        const fs::path fxEntry = fs::directory_iterator(fx)->path();
        QByteArray pickle = test::read_file(fxEntry);
        QCOMPARE(pickle.count(kSampleFxKey.toLatin1()), 1);
        pickle.replace(kSampleFxKey.toLatin1(), kFxKey.toLatin1());
        fs::create_directories(cache_ / "fxgraph/44" / kFxKey.toStdString());
        std::ofstream(cache_ / "fxgraph/44" / kFxKey.toStdString() / fxEntry.filename(),
                      std::ios::binary)
            .write(pickle.constData(), pickle.size());
        const fs::path kernel =
            cache_ / "triton/0/2T5IGG4XXBJ5Z2MPP62NQA2M7CLCEMMFR5SMRDZMP4ZFID7VOTSA";
        const fs::path hostile = cache_ / "triton/0" / kKernelDir.toStdString();
        fs::copy(kernel, hostile, fs::copy_options::recursive);
        copyFile(kernel / "triton_per_fused_mul_silu_sum_0.json",
                 hostile / "triton_per_fused_mul_silu_sum_0.json",
                 QStringLiteral("\"name\": \"triton_per_fused_mul_silu_sum_0\""),
                 QStringLiteral("\"name\": \"%1\"").arg(kKernel));

        window_.emplace(temp_.filePath("catalog.sqlite"));
        window_->resize(1400, 900);
        window_->show();
        QSignalSpy done(&*window_, &MainWindow::requestDone);
        StartupRequest request;
        request.open = {cache_};
        window_->runStartupRequest(request);
        QVERIFY(done.wait(60'000));
    }

    void cleanupTestCase() { window_.reset(); }

    void aKeyShowsAsText() {
        const int row = select([](const EntryRef& ref) { return text(ref.entry.key) == kKey; });
        QVERIFY(row >= 0);
        const QString tip = window_->browsePage()
                                ->entryModel()
                                ->index(row, EntryTableModel::Key)
                                .data(Qt::ToolTipRole)
                                .toString();
        QVERIFY(shownToolTip(tip).startsWith(QStringLiteral("4a/%1.best_config\n").arg(kKey)));
        visitEveryTab();
        window_->browsePage()->showTab(BrowsePage::Tab::Overview);
        const auto* title =
            window_->browsePage()->tab(BrowsePage::Tab::Overview)->findChild<QLabel*>();
        QVERIFY(title != nullptr);
        QCOMPARE(shown(title), QStringLiteral("best_config ") + kKey);
    }

    void anErrorShowsAsText() {
        QVERIFY(select([](const EntryRef& ref) { return text(ref.entry.key) == kBroken; }) >= 0);
        const QLabel* error = nullptr;
        for (const QLabel* label : window_->findChildren<QLabel*>()) {
            if (label->isVisible() && label->text().startsWith(QLatin1String("Cannot show"))) {
                error = label;
            }
        }
        QVERIFY(error != nullptr);
        QVERIFY2(shown(error).contains(QStringLiteral("4a/%1.best_config").arg(kBroken)),
                 qPrintable(error->text()));
        QVERIFY2(renderedMarkup(&*window_).isEmpty(),
                 qPrintable(renderedMarkup(&*window_).join(u'\n')));
    }

    void aKernelNameShowsAsText() {
        QVERIFY(select([](const EntryRef& ref) {
                    return text(ref.entry.path).contains(kKernelDir);
                }) >= 0);
        window_->browsePage()->showTab(BrowsePage::Tab::Kernels);
        const auto labels =
            window_->browsePage()->tab(BrowsePage::Tab::Kernels)->findChildren<QLabel*>();
        QTRY_VERIFY(std::ranges::any_of(labels, [](const QLabel* label) {
            return shown(label).startsWith(kKernel + QStringLiteral("  —  "));
        }));
        visitEveryTab();
    }

    void anFxKeyShowsAsTextInWhyAndGuards() {
        QVERIFY(select([](const EntryRef& ref) { return text(ref.entry.key) == kFxKey; }) >= 0);
        visitEveryTab();
        window_->explainCurrent();
        const auto* header = window_->whyPage()->findChild<QLabel*>(QStringLiteral("whyHeader"));
        QVERIFY(header != nullptr);
        QTRY_VERIFY_WITH_TIMEOUT(shown(header).contains(QLatin1String("compiled before")), 30'000);
        QVERIFY2(shown(header).contains(kFxKey + QStringLiteral(" (")), qPrintable(header->text()));
        QVERIFY2(renderedMarkup(&*window_).isEmpty(),
                 qPrintable(renderedMarkup(&*window_).join(u'\n')));
        window_->showPage(MainWindow::Page::Browse);
    }

    void literalTextKeepsPlainTextAsItIs() {
        QCOMPARE(literalText(QStringLiteral("a < b\n\tc")), QStringLiteral("a < b\n\tc"));
        const QString markup = QStringLiteral("%1\n  in <b>x</b> & y").arg(kKey);
        const QString tip = literalText(markup);
        QVERIFY(Qt::mightBeRichText(tip));
        QVERIFY(!holdsMarkup(tip));
        QCOMPARE(shownToolTip(tip), markup);
    }

private:
    // Selects the first row of the entry table whose entry `match`es and
    // waits until the window shows it; its row, or -1.
    int select(const std::function<bool(const EntryRef&)>& match) {
        auto* model = window_->browsePage()->entryModel();
        for (int row = 0; row < model->rowCount(); ++row) {
            const QModelIndex index = model->index(row, 0);
            if (!match(index.data(EntryTableModel::EntryRefRole).value<EntryRef>())) {
                continue;
            }
            QSignalSpy shownSpy(window_->browsePage(), &BrowsePage::entryShown);
            window_->browsePage()->entryTable()->selectionModel()->setCurrentIndex(
                index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            if (!shownSpy.wait(20'000)) {
                return -1;
            }
            return row;
        }
        return -1;
    }

    // Each tab of the selected entry, given the time to load what it shows,
    // renders no markup from the cache.
    void visitEveryTab() {
        for (const auto tab :
             {BrowsePage::Tab::Overview, BrowsePage::Tab::DebugLines, BrowsePage::Tab::Guards,
              BrowsePage::Tab::Source, BrowsePage::Tab::Kernels, BrowsePage::Tab::Autotune}) {
            window_->browsePage()->showTab(tab);
            QTest::qWait(200);
            const QStringList found = renderedMarkup(&*window_);
            QVERIFY2(found.isEmpty(), qPrintable(found.join(u'\n')));
        }
    }

    test::PrivateSettings settings_{"tst_cache_text"};
    QTemporaryDir temp_;
    fs::path cache_;
    std::optional<MainWindow> window_;
};

QTEST_MAIN(TestCacheText)
#include "tst_cache_text.moc"
