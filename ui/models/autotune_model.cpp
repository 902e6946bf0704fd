#include "models/autotune_model.h"

#include "text/engine_text.h"
#include "text/plain_text.h"

#include <QColor>
#include <QFont>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QPalette>

#include <set>
#include <tuple>

namespace cachelens::ui {

namespace {

using cachedir::FileKind;

QVariant optionalInt(const std::optional<std::int64_t>& value) {
    return value ? QVariant(static_cast<qlonglong>(*value)) : QVariant();
}

QString kwargsText(const cachedir::KernelConfig& config) {
    QStringList out;
    for (const auto& [name, value] : config.kwargs) {
        out << text(name) + QLatin1Char('=') + text(cachedir::to_string(value));
    }
    return out.isEmpty() ? QStringLiteral("(no block sizes)") : out.join(QStringLiteral(", "));
}

bool isMonospace(int column) {
    return column == AutotuneModel::ConfigColumn || column == AutotuneModel::TritonColumn ||
           column == AutotuneModel::InputsColumn || column == AutotuneModel::BestConfigColumn ||
           column == AutotuneModel::KernelColumn;
}

} // namespace

AutotuneModel::AutotuneModel(QObject* parent)
    : QAbstractTableModel(parent) {}

AutotuneModel::Row AutotuneModel::configRow(const cachedir::KernelConfig& config) {
    Row row;
    row.cells[ConfigColumn] = kwargsText(config);
    row.cells[NumWarpsColumn] = optionalInt(config.num_warps);
    row.cells[NumStagesColumn] = optionalInt(config.num_stages);
    return row;
}

AutotuneModel::Row AutotuneModel::bestConfigRow(const cachedir::BestConfig& best,
                                                const QString& path) {
    Row row = configRow(best.config);
    row.best = true;
    if (best.time_taken_ms) {
        row.cells[AutotuneTimeColumn] = *best.time_taken_ms;
    }
    if (best.found_by_coordesc) {
        row.cells[CoordescColumn] =
            *best.found_by_coordesc ? QStringLiteral("yes") : QStringLiteral("no");
    }
    if (best.triton_cache_hash) {
        const QString hash = text(*best.triton_cache_hash);
        row.cells[TritonColumn] = hash;
        row.links[TritonColumn] = EntryLink{FileKind::Triton, hash};
    }
    if (!path.isEmpty()) {
        row.cells[BestConfigColumn] = path;
        row.links[BestConfigColumn] = EntryLink{FileKind::BestConfig, path};
    }
    return row;
}

void AutotuneModel::appendBenchmarkRows(std::vector<Row>& rows,
                                        const cachedir::BenchmarkCache& cache,
                                        const QString& moduleKey, bool onlyGroupsWithModule) {
    const std::string module = moduleKey.toStdString();
    std::set<std::tuple<std::string, std::string, std::string>> groupsWithModule;
    for (const auto& choice : cache.choices) {
        if (!module.empty() && cachedir::module_key_of_choice(choice.choice) == module) {
            groupsWithModule.insert({choice.op, choice.inputs, choice.precision});
        }
    }
    for (const auto& choice : cache.choices) {
        if (onlyGroupsWithModule &&
            !groupsWithModule.contains({choice.op, choice.inputs, choice.precision})) {
            continue;
        }
        Row row;
        row.cells[KernelColumn] = text(choice.op);
        row.cells[InputsColumn] = text(choice.inputs);
        row.cells[PrecisionColumn] = text(choice.precision);
        row.cells[ConfigColumn] = text(choice.choice);
        row.cells[TimeColumn] = choice.ms;
        const std::string choiceModule = cachedir::module_key_of_choice(choice.choice);
        if (!choiceModule.empty()) {
            row.links[ConfigColumn] = EntryLink{FileKind::Module, text(choiceModule)};
        }
        row.best = cache.best(choice.op, choice.inputs, choice.precision) == &choice;
        row.marked = !module.empty() && choiceModule == module;
        rows.push_back(std::move(row));
    }
}

void AutotuneModel::showBestConfig(const cachedir::BestConfig& best, const QString& path,
                                   const QString& kernel) {
    Row row = bestConfigRow(best, path);
    if (!kernel.isEmpty()) {
        row.cells[KernelColumn] = kernel;
    }
    std::vector<Row> rows;
    rows.push_back(std::move(row));
    setRows(std::move(rows));
}

void AutotuneModel::showFxGraph(const cachedir::FxGraphEntry& fx,
                                const std::map<std::string, cachedir::BestConfig>& bestConfigs) {
    std::vector<Row> rows;
    for (const auto& tuner : fx.autotuners) {
        const std::string bestPath = tuner.best_config_path.empty()
                                         ? std::string()
                                         : cachedir::cache_relative_path(tuner.best_config_path);
        const auto found = bestConfigs.find(bestPath);
        const cachedir::BestConfig* best = found == bestConfigs.end() ? nullptr : &found->second;
        std::vector<std::string> dirs;
        dirs.reserve(tuner.candidates.size());
        for (const auto& candidate : tuner.candidates) {
            dirs.push_back(candidate.triton_dir());
        }
        std::vector<cachedir::CandidateConfig> compiled;
        for (std::size_t i = 0; i < tuner.candidates.size(); ++i) {
            compiled.push_back({dirs[i], &tuner.candidates[i].config});
        }
        const cachedir::CurrentBest current = cachedir::current_best(best, compiled);
        for (std::size_t i = 0; i < tuner.candidates.size(); ++i) {
            Row row = configRow(tuner.candidates[i].config);
            row.cells[KernelColumn] = text(tuner.kernel_name);
            const QString dir = text(dirs[i]);
            row.cells[TritonColumn] = dir;
            row.links[TritonColumn] = EntryLink{FileKind::Triton, dir};
            if (!bestPath.empty()) {
                row.cells[BestConfigColumn] = text(bestPath);
                row.links[BestConfigColumn] = EntryLink{FileKind::BestConfig, text(bestPath)};
            }
            row.best = current.kind == cachedir::CurrentBest::Kind::Candidate && current.index == i;
            if (row.best && best != nullptr) {
                if (best->time_taken_ms) {
                    row.cells[AutotuneTimeColumn] = *best->time_taken_ms;
                }
                if (best->found_by_coordesc) {
                    row.cells[CoordescColumn] =
                        *best->found_by_coordesc ? QStringLiteral("yes") : QStringLiteral("no");
                }
            }
            rows.push_back(std::move(row));
        }
        if (current.kind == cachedir::CurrentBest::Kind::NotACandidate) {
            // The winner is none of the compiled candidates (coordinate
            // descent refined it afterwards): a row of its own.
            Row row = bestConfigRow(*best, text(bestPath));
            row.cells[KernelColumn] = text(tuner.kernel_name);
            row.note = best->found_by_coordesc.value_or(false)
                           ? QStringLiteral("Found by coordinate descent, starting from the "
                                            "best of the %1 compiled candidates: it is none of "
                                            "them.")
                                 .arg(tuner.candidates.size())
                           : QStringLiteral("The best_config names none of the %1 compiled "
                                            "candidates.")
                                 .arg(tuner.candidates.size());
            rows.push_back(std::move(row));
        }
    }
    setRows(std::move(rows));
}

void AutotuneModel::showBenchmarkCache(const cachedir::BenchmarkCache& cache,
                                       const QString& moduleKey) {
    std::vector<Row> rows;
    appendBenchmarkRows(rows, cache, moduleKey, false);
    setRows(std::move(rows));
}

void AutotuneModel::showModule(const QString& moduleKey,
                               const std::vector<cachedir::LocatedBestConfig>& bestConfigs,
                               const std::vector<cachedir::BenchmarkCache>& caches) {
    std::vector<Row> rows;
    for (const auto& located : bestConfigs) {
        Row row = bestConfigRow(located.config, text(located.path));
        row.marked = true;
        rows.push_back(std::move(row));
    }
    for (const auto& cache : caches) {
        appendBenchmarkRows(rows, cache, moduleKey, true);
    }
    setRows(std::move(rows));
}

void AutotuneModel::clear() {
    setRows({});
}

void AutotuneModel::setRows(std::vector<Row> rows) {
    beginResetModel();
    rows_ = std::move(rows);
    used_.fill(false);
    used_[MarkerColumn] = true;
    for (const auto& row : rows_) {
        for (int column = 0; column < ColumnCount; ++column) {
            used_[column] = used_[column] || row.cells[column].isValid();
        }
    }
    endResetModel();
}

bool AutotuneModel::isColumnUsed(int column) const {
    return column >= 0 && column < ColumnCount && used_[column];
}

int AutotuneModel::bestCount() const {
    int count = 0;
    for (const auto& row : rows_) {
        count += row.best ? 1 : 0;
    }
    return count;
}

std::optional<EntryLink> AutotuneModel::linkAt(const QModelIndex& index) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return std::nullopt;
    }
    return rows_[static_cast<std::size_t>(index.row())].links[index.column()];
}

int AutotuneModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int AutotuneModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AutotuneModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const Row& row = rows_[static_cast<std::size_t>(index.row())];
    const int column = index.column();
    const QVariant& cell = row.cells[column];
    const auto& link = row.links[column];
    switch (role) {
    case Qt::DisplayRole:
        if (column == MarkerColumn) {
            QStringList marks;
            if (row.best) {
                marks << QStringLiteral("best");
            }
            if (row.marked) {
                marks << QStringLiteral("this module");
            }
            return marks.join(QStringLiteral(", "));
        }
        if (column == TimeColumn && cell.isValid()) {
            return QString::number(cell.toDouble(), 'f', 4);
        }
        return cell;
    case SortRole:
        if (column == MarkerColumn) {
            return (row.best ? 2 : 0) + (row.marked ? 1 : 0);
        }
        return cell;
    case IsBestRole:
        return row.best;
    case Qt::ToolTipRole:
        if (!row.note.isEmpty() && !link) {
            return cell.isValid() ? cell.toString() + QStringLiteral("\n\n") + row.note : row.note;
        }
        if (link) {
            return literalText(cell.toString() +
                               QStringLiteral("\n\nDouble-click or Enter: go to ") +
                               link->describe());
        }
        return cell.isValid() ? literalText(cell.toString()) : QVariant();
    case Qt::FontRole: {
        if (!isMonospace(column) && !row.best && !row.marked && !link) {
            return {}; // the view's own font
        }
        QFont font = isMonospace(column) ? QFontDatabase::systemFont(QFontDatabase::FixedFont)
                                         : QGuiApplication::font();
        font.setBold(row.best);
        font.setItalic(row.marked && !row.best);
        font.setUnderline(link.has_value());
        return font;
    }
    case Qt::ForegroundRole:
        return link ? QGuiApplication::palette().brush(QPalette::Link) : QVariant();
    case Qt::BackgroundRole: {
        if (!row.best) {
            return {};
        }
        // The selection colour, faint: readable over a light or a dark base.
        QColor tint = QGuiApplication::palette().color(QPalette::Highlight);
        tint.setAlpha(60);
        return tint;
    }
    case Qt::TextAlignmentRole:
        if (column == NumWarpsColumn || column == NumStagesColumn || column == TimeColumn ||
            column == AutotuneTimeColumn) {
            return static_cast<int>(Qt::AlignRight | Qt::AlignVCenter);
        }
        return {};
    case LinkKindRole:
        return link ? QVariant(static_cast<int>(link->kind)) : QVariant();
    case LinkTargetRole:
        return link ? QVariant(link->target) : QVariant();
    default:
        return {};
    }
}

QVariant AutotuneModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case MarkerColumn:
        return QStringLiteral("Winner");
    case KernelColumn:
        return QStringLiteral("Kernel / op");
    case InputsColumn:
        return QStringLiteral("Inputs");
    case PrecisionColumn:
        return QStringLiteral("Precision");
    case ConfigColumn:
        return QStringLiteral("Config / choice");
    case NumWarpsColumn:
        return QStringLiteral("Warps");
    case NumStagesColumn:
        return QStringLiteral("Stages");
    case TimeColumn:
        return QStringLiteral("Time (ms)");
    case AutotuneTimeColumn:
        return QStringLiteral("Tuned in (ms)");
    case CoordescColumn:
        return QStringLiteral("Coord. desc.");
    case TritonColumn:
        return QStringLiteral("Triton kernel");
    case BestConfigColumn:
        return QStringLiteral("Best config");
    default:
        return {};
    }
}

} // namespace cachelens::ui
