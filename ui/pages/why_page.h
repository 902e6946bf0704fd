#pragma once

// WhyPage: "Why did this miss?" for one FX graph entry: the keys nearest to its
// key among the FX entries of some cache dirs, ranked by shared debug-line
// hashes (what `cachelens why` prints), and for the selected candidate what
// differs, in an embedded ComparePage.

#include "data/entry_ref.h"

#include <QWidget>

#include <filesystem>
#include <vector>

class QLabel;
class QPushButton;
class QTableView;

namespace cachelens::ui {

class ComparePage;
class JobPool;
class JobTracker;
class NearestKeysModel;

class WhyPage : public QWidget {
    Q_OBJECT

public:
    explicit WhyPage(JobPool& pool, QWidget* parent = nullptr);

    // Ranks the FX entries of `searchRoots` (the entry's own root when empty)
    // against `fxEntry`'s key, off the GUI thread.
    void explain(const EntryRef& fxEntry, const std::vector<std::filesystem::path>& searchRoots);
    void clear();

    NearestKeysModel* model() const { return model_; }
    ComparePage* comparison() const { return compare_; }

signals:
    // "Compare side by side": the explained entry and the selected candidate.
    void compareRequested(const cachelens::ui::EntryRef& left,
                          const cachelens::ui::EntryRef& right);
    void statusMessage(const QString& message);

private:
    void showSelected();
    void requestCompare();
    void copySelection();

    JobTracker* job_;
    EntryRef target_;
    NearestKeysModel* model_;
    QLabel* header_;
    QLabel* error_;
    QTableView* table_;
    QPushButton* compareButton_;
    ComparePage* compare_;
};

} // namespace cachelens::ui
