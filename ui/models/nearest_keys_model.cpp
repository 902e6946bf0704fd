#include "models/nearest_keys_model.h"

#include "data/key_comparison.h"
#include "text/plain_text.h"

#include <QStringList>

#include <algorithm>
#include <map>

namespace cachelens::ui {

Result<NearestKeys> findNearestKeys(const EntryRef& target,
                                    std::vector<std::filesystem::path> roots, std::size_t limit,
                                    const std::atomic<bool>* cancel) {
    auto fx = loadFxGraph(target);
    if (!fx) {
        return std::unexpected(fx.error());
    }
    if (roots.empty()) {
        roots.push_back(target.root);
    }
    const std::vector<std::filesystem::path> unique = explain::distinct_dirs(roots);
    NearestKeys result;
    result.target = target;
    result.targetKey = fx->key;
    result.debugLines = fx->debug_lines.size();
    result.targetRole = cachedir::graph_role(fx->debug_lines);
    result.rootCount = unique.size();

    struct Root {
        std::filesystem::path path;
        std::map<std::string, cachedir::Entry> entries; // FX entries by path
    };
    std::map<std::string, Root> byLabel; // nearest_keys names a candidate's dir by its label
    std::vector<explain::KeyCandidate> candidates;
    std::vector<Error> unreadable;
    for (const auto& root : unique) {
        if (cancel && cancel->load()) {
            break;
        }
        auto scan = cachedir::scan_cache_dir(root);
        if (!scan) {
            return std::unexpected(scan.error());
        }
        const std::string label = root.string();
        Root& known = byLabel[label];
        known.path = root;
        for (auto& entry : scan->entries()) {
            if (entry.kind == cachedir::FileKind::FxGraph) {
                known.entries.emplace(entry.path, std::move(entry));
            }
        }
        auto more = explain::fx_graph_candidates(*scan, label, unreadable);
        std::move(more.begin(), more.end(), std::back_inserter(candidates));
    }
    for (const auto& error : unreadable) {
        result.skipped.push_back(error.describe());
    }
    result.candidateCount = static_cast<std::size_t>(
        std::count_if(candidates.begin(), candidates.end(),
                      [&](const explain::KeyCandidate& c) { return c.key != fx->key; }));
    // The target is the candidate at its own path in the first root's label.
    std::string targetLabel;
    for (const auto& root : unique) {
        if (root.lexically_normal() == target.root.lexically_normal()) {
            targetLabel = root.string();
        }
    }
    auto found = explain::nearest_graphs({fx->debug_lines, fx->key, targetLabel, target.entry.path},
                                         candidates, limit);
    result.firstCompile = found.first_compile;
    result.family = found.family;
    result.answer = explain::why_answer(found, fx->key, result.targetRole);
    result.sameKey = found.same_key;
    for (auto& near : found.nearest) {
        NearestKeys::Candidate candidate;
        const Root& root = byLabel.at(near.dir);
        candidate.ref.root = root.path;
        if (auto it = root.entries.find(near.path); it != root.entries.end()) {
            candidate.ref.entry = it->second;
        } else {
            candidate.ref.entry.kind = cachedir::FileKind::FxGraph;
            candidate.ref.entry.key = near.key;
            candidate.ref.entry.path = near.path;
        }
        candidate.near = std::move(near);
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
            return QString::fromStdString(near.causes.verdict);
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
            return tr("shares %1 of the target's %2 debug lines").arg(near.shared).arg(near.total);
        case DifferingColumn:
            return differing().join(u'\n');
        case InputsColumn:
            return literalText(changedInputs().join(u'\n'));
        case VerdictColumn: {
            QStringList lines{QString::fromStdString(near.causes.verdict)};
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
