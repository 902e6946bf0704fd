#include "models/nearest_keys_model.h"

#include "text/plain_text.h"

#include <QStringList>

#include <algorithm>
#include <map>

namespace cachelens::ui {

Result<NearestKeys> findNearestKeys(const EntryRef& target,
                                    std::vector<std::filesystem::path> roots, std::size_t limit,
                                    const std::atomic<bool>* cancel) {
    if (!target.valid()) {
        return fail(ErrorKind::InvalidArgument, "no entry given");
    }
    // The entry's path names it exactly; no roots: its own is searched.
    auto why =
        explain::why_missed({target.root, target.entry.path, std::move(roots), limit, cancel});
    if (!why) {
        return std::unexpected(std::move(why.error()));
    }
    NearestKeys result;
    result.target = target;
    result.targetKey = why->fx.key;
    result.debugLines = why->fx.debug_lines.size();
    result.targetRole = why->role;
    result.candidateCount = why->found.searched;
    result.rootCount = why->dirs.size();
    result.firstCompile = why->found.first_compile;
    result.family = why->found.family;
    result.answer = std::move(why->answer);
    result.detail = std::move(why->detail);
    result.fromFacts = why->found.from_facts;
    result.incomparable = why->found.incomparable;
    result.sameKey = why->found.same_key;
    for (const auto& error : why->skipped) {
        result.skipped.push_back(error.describe());
    }
    for (std::size_t i = 0; i < why->found.nearest.size(); ++i) {
        NearestKeys::Candidate candidate;
        candidate.ref = EntryRef{why->nearest_dirs[i], std::move(why->nearest_entries[i])};
        candidate.near = std::move(why->found.nearest[i]);
        result.nearest.push_back(std::move(candidate));
    }
    return result;
}

NearestKeysModel::NearestKeysModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void NearestKeysModel::setResult(std::shared_ptr<const NearestKeys> result) {
    beginResetModel();
    result_ = std::move(result);
    endResetModel();
}

const NearestKeys::Candidate& NearestKeysModel::candidate(int row) const {
    return result_->nearest.at(static_cast<std::size_t>(row));
}

int NearestKeysModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !result_ ? 0 : static_cast<int>(result_->nearest.size());
}

int NearestKeysModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant NearestKeysModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const auto& [ref, near] = candidate(index.row());
    const auto differing = [&near] {
        QStringList names;
        for (const auto& name : near.differing) {
            names << QString::fromStdString(name);
        }
        return names;
    };
    const auto changedInputs = [&near] {
        QStringList lines;
        for (const auto& input : near.inputs) {
            if (input.changed()) {
                lines << QString::fromStdString(input.describe());
            }
        }
        return lines;
    };
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case RankColumn:
            return index.row() + 1;
        case InputsColumn:
            return changedInputs().join(QStringLiteral("; "));
        case KeyColumn:
            return QString::fromStdString(near.key);
        case RootColumn:
            return QString::fromStdString(ref.root.lexically_normal().string());
        case RelationColumn: {
            const auto graph = QString::fromStdString(std::string(cachedir::to_string(near.role)));
            return near.same_family ? tr("%1 graph compiled before").arg(graph)
                                    : tr("other %1 graph").arg(graph);
        }
        case SharedColumn:
            return QStringLiteral("%1 / %2").arg(near.shared).arg(near.total);
        case DifferingColumn:
            return differing().join(QStringLiteral(", "));
        case VerdictColumn:
            // The page's header says what cannot be told; each row what the entries hold.
            return QString::fromStdString(near.causes.held.empty() ? near.causes.verdict
                                                                   : near.causes.held);
        }
        return {};
    case Qt::ToolTipRole:
        switch (index.column()) {
        case KeyColumn:
            return literalText(QString::fromStdString(ref.entry.path));
        case RootColumn:
            return literalText(QString::fromStdString(ref.root.lexically_normal().string()));
        case RelationColumn:
            return near.same_family
                       ? tr("The same graph as the target (same role and ops) compiled before: "
                            "its differences are why the target missed. Code %1% alike, value "
                            "names and sizes aside.")
                             .arg(qRound(near.code_similarity * 100))
                       : tr("Another graph, not the target compiled before: shown for what is "
                            "nearest, not as the reason for the miss.");
        case SharedColumn:
            return result_->fromFacts ? tr("shares %1 of the %2 lines read from the target's entry")
                                            .arg(near.shared)
                                            .arg(near.total)
                                      : tr("shares %1 of the target's %2 debug lines")
                                            .arg(near.shared)
                                            .arg(near.total);
        case DifferingColumn:
            return differing().join(u'\n');
        case InputsColumn:
            return literalText(changedInputs().join(u'\n'));
        case VerdictColumn: {
            QStringList lines{QString::fromStdString(near.causes.verdict)};
            if (!near.causes.held.empty()) {
                lines << QString::fromStdString(near.causes.held);
            }
            for (const auto& cause : near.causes.causes) {
                lines << QStringLiteral("%1: %2").arg(
                    QString::fromStdString(std::string(explain::to_string(cause.category))),
                    QString::fromStdString(cause.text));
            }
            return literalText(lines.join(u'\n'));
        }
        }
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == RankColumn || index.column() == SharedColumn) {
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        }
        return {};
    case SharedFractionRole:
        return near.total == 0 ? 0.0
                               : static_cast<double>(near.shared) / static_cast<double>(near.total);
    default:
        return {};
    }
}

QVariant NearestKeysModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    switch (section) {
    case RankColumn:
        return tr("#");
    case KeyColumn:
        return tr("Key");
    case RootColumn:
        return tr("Root");
    case RelationColumn:
        return tr("Graph");
    case SharedColumn:
        return tr("Shared lines");
    case DifferingColumn:
        return tr("Attributes that differ");
    case VerdictColumn:
        return tr("Why it missed / how it differs");
    case InputsColumn:
        return tr("Inputs that changed");
    }
    return {};
}

} // namespace cachelens::ui
