#pragma once

// Under an import or pull plan: the selected artifact's verdict, the code
// PyTorch would run from it, and its findings with an Allow box each. The
// panel keeps the ids the user allowed across re-plans (what `--allow-code`
// is on the command line); the dialog re-plans when they change.

#include <cachelens/bundle/import.h>

#include <QSet>
#include <QString>
#include <QWidget>

#include <string>
#include <vector>

class QLabel;
class QTableView;

namespace cachelens::ui {

class FindingsModel;

class FindingsPanel : public QWidget {
    Q_OBJECT

public:
    explicit FindingsPanel(const QString& objectName, QWidget* parent = nullptr);

    // The artifact whose findings to show; nullptr shows the hint.
    void showArtifact(const bundle::PlannedArtifact* artifact);
    // What the rules get: the allowed finding ids.
    std::vector<std::string> allowedIds() const;
    void clearAllowed();

    FindingsModel* model() const { return model_; }
    QString summaryText() const;

signals:
    void allowedChanged();

private:
    FindingsModel* model_;
    QLabel* summary_;
    QTableView* table_;
    QSet<QString> allowed_;
};

} // namespace cachelens::ui
