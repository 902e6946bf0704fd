#include "models/key_diff_model.h"

#include "text/plain_text.h"
#include "widgets/highlight_colors.h"

#include <cachelens/cachedir/debug_line.h>

#include <map>
#include <set>

namespace cachelens::ui {

namespace {

QString qstr(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

// A value's first line, with how many more there are: table cells stay one line high.
QString firstLine(const QString& value) {
    const qsizetype newline = value.indexOf(u'\n');
    if (newline < 0) {
        return value;
    }
    const qsizetype lines = value.count(u'\n') + 1;
    return value.left(newline) + QStringLiteral("  … (%1 lines)").arg(lines);
}

KeyDiffModel::Change changeOf(explain::Change change) {
    switch (change) {
    case explain::Change::Changed:
        return KeyDiffModel::Change::Changed;
    case explain::Change::OnlyLeft:
        return KeyDiffModel::Change::OnlyLeft;
    case explain::Change::OnlyRight:
        return KeyDiffModel::Change::OnlyRight;
    }
    return KeyDiffModel::Change::Changed;
}

} // namespace

KeyDiffModel::KeyDiffModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void KeyDiffModel::setComparison(std::shared_ptr<const KeyComparison> comparison) {
    beginResetModel();
    comparison_ = std::move(comparison);
    rows_.clear();
    differing_ = 0;
    if (comparison_) {
        const explain::KeyDiff& diff = comparison_->diff;
        std::set<const char*> leftDiffering; // lines are identified by where their text is
        std::set<const char*> rightDiffering;
        for (const auto& difference : diff.differences) {
            Row row;
            row.attribute = QString::fromStdString(difference.name);
            row.change = changeOf(difference.change);
            if (difference.left) {
                row.left = qstr(difference.left->value);
                row.hasLeft = true;
                leftDiffering.insert(difference.left->text.data());
            }
            if (difference.right) {
                row.right = qstr(difference.right->value);
                row.hasRight = true;
                rightDiffering.insert(difference.right->text.data());
            }
            row.valueDiff = difference.value_diff;
            row.rawValueDiff = difference.raw_value_diff;
            rows_.push_back(std::move(row));
        }
        differing_ = static_cast<int>(rows_.size());
        // diff_keys counts the equal attributes; list them too, aligned as it aligns them
        // (by name and occurrence), so that the table shows the whole key.
        const auto left = cachedir::parse_debug_lines(comparison_->leftLines);
        const auto right = cachedir::parse_debug_lines(comparison_->rightLines);
        std::map<std::string, std::vector<const cachedir::DebugLine*>> rightByName;
        for (const auto& line : right) {
            if (!rightDiffering.contains(line.text.data())) {
                rightByName[line.name()].push_back(&line);
            }
        }
        std::map<std::string, std::size_t> used;
        for (const auto& line : left) {
            if (leftDiffering.contains(line.text.data())) {
                continue;
            }
            const std::string name = line.name();
            const auto& candidates = rightByName[name];
            const std::size_t next = used[name]++;
            Row row;
            row.attribute = QString::fromStdString(name);
            row.left = qstr(line.value);
            row.hasLeft = true;
            row.right = next < candidates.size() ? qstr(candidates[next]->value) : row.left;
            row.hasRight = true;
            rows_.push_back(std::move(row));
        }
    }
    endResetModel();
}

QString KeyDiffModel::changeName(Change change) {
    switch (change) {
    case Change::Changed:
        return tr("changed");
    case Change::OnlyLeft:
        return tr("only left");
    case Change::OnlyRight:
        return tr("only right");
    case Change::Same:
        return tr("same");
    }
    return {};
}

int KeyDiffModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int KeyDiffModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KeyDiffModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const Row& r = rows_[static_cast<std::size_t>(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case AttributeColumn:
            return r.attribute;
        case ChangeColumn:
            return changeName(r.change);
        case LeftColumn:
            return r.hasLeft ? firstLine(r.left) : QStringLiteral("—");
        case RightColumn:
            return r.hasRight ? firstLine(r.right) : QStringLiteral("—");
        }
        return {};
    case FullValueRole:
        if (column == LeftColumn) {
            return r.left;
        }
        if (column == RightColumn) {
            return r.right;
        }
        return data(index, Qt::DisplayRole);
    case Qt::ToolTipRole:
        if (column == LeftColumn || column == RightColumn) {
            const QString& value = column == LeftColumn ? r.left : r.right;
            // A whole graph is no tooltip: it is shown below the table when selected.
            return literalText(value.size() > 2000 ? value.left(2000) + QStringLiteral("\n…")
                                                   : value);
        }
        return literalText(r.attribute);
    case Qt::BackgroundRole:
        switch (r.change) {
        case Change::Changed:
            return highlight::changed();
        case Change::OnlyLeft:
            return highlight::removed();
        case Change::OnlyRight:
            return highlight::added();
        case Change::Same:
            return {};
        }
        return {};
    case ChangeRole:
        return static_cast<int>(r.change);
    default:
        return {};
    }
}

QVariant KeyDiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    switch (section) {
    case AttributeColumn:
        return tr("Attribute");
    case ChangeColumn:
        return tr("Change");
    case LeftColumn:
        return tr("Left");
    case RightColumn:
        return tr("Right");
    }
    return {};
}

} // namespace cachelens::ui
