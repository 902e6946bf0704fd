#include "models/debug_lines_model.h"

#include "text/engine_text.h"
#include "text/plain_text.h"

#include <cachelens/cachedir/debug_line.h>

#include <QFontDatabase>

namespace cachelens::ui {

namespace {

// Tooltips of a whole graph would cover the screen.
constexpr qsizetype kMaxTooltip = 4000;

} // namespace

DebugLinesModel::DebugLinesModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void DebugLinesModel::setLines(const std::vector<std::string_view>& lines) {
    beginResetModel();
    rows_.clear();
    rows_.reserve(lines.size());
    for (const auto line : lines) {
        const cachedir::DebugLine parsed = cachedir::parse_debug_line(line);
        Row row;
        row.hash = text(parsed.hash);
        row.attribute = parsed.hash.empty() ? QString() : QString::fromStdString(parsed.name());
        row.value = text(parsed.value);
        row.text = text(parsed.text);
        const qsizetype newline = row.value.indexOf(QLatin1Char('\n'));
        if (newline < 0) {
            row.firstLine = row.value;
        } else {
            const qsizetype more = row.value.count(QLatin1Char('\n'));
            row.firstLine = row.value.left(newline) + QStringLiteral("  …(+%1 lines)").arg(more);
        }
        rows_.push_back(std::move(row));
    }
    endResetModel();
}

void DebugLinesModel::clear() {
    beginResetModel();
    rows_.clear();
    endResetModel();
}

int DebugLinesModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int DebugLinesModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DebugLinesModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const Row& row = rows_[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case HashColumn:
            return row.hash;
        case AttributeColumn:
            return row.attribute;
        default:
            return row.firstLine;
        }
    case Qt::ToolTipRole: {
        if (index.column() != ValueColumn) {
            return index.column() == HashColumn
                       ? QStringLiteral("sha256_hash of this item's pickle: two keys differ "
                                        "exactly where some line's hash differs")
                       : literalText(row.attribute);
        }
        return literalText(row.value.size() > kMaxTooltip
                               ? row.value.left(kMaxTooltip) + QStringLiteral(" …")
                               : row.value);
    }
    case Qt::FontRole:
        return index.column() == AttributeColumn
                   ? QVariant()
                   : QVariant(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    case FullValueRole:
        return row.value;
    case LineTextRole:
        return row.text;
    case FilterTextRole:
        return row.attribute + QLatin1Char('\n') + row.value;
    default:
        return {};
    }
}

QVariant DebugLinesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case HashColumn:
        return QStringLiteral("Hash");
    case AttributeColumn:
        return QStringLiteral("Attribute");
    case ValueColumn:
        return QStringLiteral("Value");
    default:
        return {};
    }
}

} // namespace cachelens::ui
