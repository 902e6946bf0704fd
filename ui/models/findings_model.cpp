#include "models/findings_model.h"

#include "text/engine_text.h"
#include "text/plain_text.h"

#include <QFontDatabase>

namespace cachelens::ui {

FindingsModel::FindingsModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void FindingsModel::setFindings(const bundle::ArtifactCheck& check, const QSet<QString>& allowed) {
    beginResetModel();
    findings_ = check.findings;
    allowed_ = allowed;
    // An artifact refused for another problem lets nothing in: no box, no "signed".
    trustedSigner_ = check.readable && check.consent == safety::CodeConsent::TrustedSigner;
    checkable_ = check.readable && !trustedSigner_;
    endResetModel();
}

void FindingsModel::clear() {
    beginResetModel();
    findings_.clear();
    allowed_.clear();
    trustedSigner_ = false;
    checkable_ = false;
    endResetModel();
}

int FindingsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(findings_.size());
}

int FindingsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FindingsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const auto& finding = findings_[static_cast<std::size_t>(index.row())];
    const QString id = text(finding.id);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case AllowColumn:
            return trustedSigner_ ? tr("signed") : QString();
        case IdColumn:
            return id;
        case WhereColumn:
            return text(safety::location(finding));
        case RuleColumn:
            return text(finding.rule);
        case TextColumn:
            return text(finding.text);
        case WhyColumn:
            return text(finding.why);
        }
        return {};
    case Qt::CheckStateRole:
        if (index.column() == AllowColumn && checkable_) {
            return allowed_.contains(id) ? Qt::Checked : Qt::Unchecked;
        }
        return {};
    case Qt::ToolTipRole:
        return literalText(tr("%1 at %2 (%3)\n%4\n%5")
                               .arg(id, text(safety::location(finding)), text(finding.rule),
                                    text(finding.text), text(finding.why)));
    case Qt::FontRole:
        if (index.column() == TextColumn || index.column() == IdColumn) {
            return QFontDatabase::systemFont(QFontDatabase::FixedFont);
        }
        return {};
    }
    return {};
}

bool FindingsModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::CheckStateRole || index.column() != AllowColumn || !checkable_ ||
        !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return false;
    }
    const QString id = text(findings_[static_cast<std::size_t>(index.row())].id);
    const bool allow = value.value<Qt::CheckState>() == Qt::Checked;
    if (allow) {
        allowed_.insert(id);
    } else {
        allowed_.remove(id);
    }
    emit dataChanged(index, index, {Qt::CheckStateRole});
    emit allowToggled(id, allow);
    return true;
}

Qt::ItemFlags FindingsModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags flags = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == AllowColumn && checkable_) {
        flags |= Qt::ItemIsUserCheckable;
    }
    return flags;
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case AllowColumn:
        return tr("Allow");
    case IdColumn:
        return tr("Finding");
    case WhereColumn:
        return tr("Where");
    case RuleColumn:
        return tr("Rule");
    case TextColumn:
        return tr("Line");
    case WhyColumn:
        return tr("Why");
    }
    return {};
}

} // namespace cachelens::ui
