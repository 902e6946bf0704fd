#pragma once

// The findings of one artifact of an import or pull plan: where (file and
// line), which rule, the line as written and why it is a finding, with an
// Allow box per finding — the GUI's `--allow-code ID`. The dialog owns the
// allowed ids (they survive a re-plan) and re-plans when one is toggled.

#include <cachelens/bundle/import.h>

#include <QAbstractTableModel>
#include <QSet>
#include <QString>

#include <vector>

namespace cachelens::ui {

class FindingsModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        AllowColumn,
        IdColumn,
        WhereColumn,
        RuleColumn,
        TextColumn,
        WhyColumn,
        ColumnCount
    };

    explicit FindingsModel(QObject* parent = nullptr);

    // The findings of `check`; `allowed` are the ids the user let in. Allow
    // boxes are checkable unless a trusted signer already lets the code in
    // or another problem refuses the artifact anyway.
    void setFindings(const bundle::ArtifactCheck& check, const QSet<QString>& allowed);
    void clear();
    const std::vector<safety::Finding>& findings() const { return findings_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

signals:
    // The user ticked or cleared a finding's Allow box.
    void allowToggled(const QString& id, bool allowed);

private:
    std::vector<safety::Finding> findings_;
    QSet<QString> allowed_;
    bool trustedSigner_ = false;
    bool checkable_ = false;
};

} // namespace cachelens::ui
