#pragma once

// The Stats tab: what `cachelens stats` prints, for one cache dir or every
// indexed one, read from the catalog off the GUI thread: a table per entry
// kind with a total row, a chart of bytes by kind, a chart of entries by
// age, the largest entries and the entries that do not parse.

#include <cachelens/catalog/catalog.h>

#include <QString>
#include <QWidget>

#include <filesystem>
#include <memory>
#include <optional>

class QChart;
class QChartView;
class QLabel;
class QPushButton;
class QTableView;
class QTreeWidget;
class QTreeWidgetItem;

namespace cachelens::ui {

class JobPool;
class JobTracker;
class KindStatsModel;
class KindStatsSortProxy;
struct StatsSnapshot;

class StatsPage : public QWidget {
    Q_OBJECT

public:
    StatsPage(JobPool& pool, QString catalogPath, QWidget* parent = nullptr);
    ~StatsPage() override;

    // One root (as indexed) or, with nullopt, every root; in its job, which a newer one supersedes.
    void showRoot(const std::optional<std::filesystem::path>& root);
    // Loads what is shown again (F5).
    void refresh();

    // For tests and the main window.
    const KindStatsModel* kindStats() const { return kinds_; }
    QChart* bytesChart() const;
    QChart* ageChart() const;
    QTreeWidget* largestList() const { return largest_; }
    QTreeWidget* parseErrorList() const { return errors_; }
    // Compiled Triton kernels by arch, then by name (the largest names).
    QTreeWidget* tritonKernelList() const { return triton_; }
    QString errorText() const;

signals:
    void pruneRequested(std::filesystem::path root);
    // An entry in the largest or parse error list was double-clicked; `path`
    // is relative to `root`.
    void entryActivated(QString root, QString path);
    void statusMessage(const QString& message);

protected:
    void changeEvent(QEvent* event) override;

private:
    void setSnapshot(StatsSnapshot snapshot);
    void showError(const QString& message);
    void fillCharts();
    void applyPalette();
    void activateItem(QTreeWidgetItem* item);

    JobTracker* job_;
    QString catalogPath_;
    std::optional<std::filesystem::path> root_;
    std::unique_ptr<StatsSnapshot> snapshot_;

    QLabel* title_ = nullptr;
    QLabel* subtitle_ = nullptr;
    QLabel* error_ = nullptr;
    QPushButton* refresh_ = nullptr;
    QPushButton* prune_ = nullptr;
    KindStatsModel* kinds_ = nullptr;
    KindStatsSortProxy* sorted_ = nullptr;
    QTableView* table_ = nullptr;
    QChartView* bytesView_ = nullptr;
    QChartView* ageView_ = nullptr;
    QTreeWidget* largest_ = nullptr;
    QTreeWidget* errors_ = nullptr;
    QTreeWidget* triton_ = nullptr;
};

} // namespace cachelens::ui
