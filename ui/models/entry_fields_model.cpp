#include "models/entry_fields_model.h"

#include "text/engine_text.h"
#include "text/plain_text.h"

#include <QFont>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QPalette>

namespace cachelens::ui {

namespace {

using namespace cachedir;

// Tooltips and display text stay bounded: a guard or graph can be megabytes.
constexpr qsizetype kMaxShown = 400;
constexpr qsizetype kMaxTooltip = 4000;

QString optionalNumber(const std::optional<std::int64_t>& value) {
    return value ? QString::number(*value) : QStringLiteral("—");
}

FieldNode linkField(QString name, QString value, FileKind kind, QString target) {
    FieldNode node;
    node.name = std::move(name);
    node.value = std::move(value);
    node.monospace = true;
    node.link = EntryLink{kind, std::move(target)};
    return node;
}

FieldNode field(QString name, QString value) {
    FieldNode node;
    node.name = std::move(name);
    node.value = std::move(value);
    return node;
}

FieldNode group(const QString& name, std::vector<FieldNode>&& children) {
    FieldNode node = field(name, QString::number(children.size()));
    node.children = std::move(children);
    return node;
}

QString configPairsText(const std::vector<std::pair<std::string, ConfigValue>>& pairs) {
    QStringList out;
    for (const auto& [name, value] : pairs) {
        out << text(name) + QLatin1Char('=') + text(to_string(value));
    }
    return out.join(QStringLiteral(", "));
}

} // namespace

std::vector<FieldNode> fieldNodes(const std::vector<cachedir::Field>& fields) {
    std::vector<FieldNode> out;
    for (const auto& described : fields) {
        if (!described.is_for(kTree)) {
            continue;
        }
        FieldNode node;
        node.name = text(described.label);
        node.value = text(described.text);
        node.monospace = described.monospace;
        if (described.link) {
            node.link = EntryLink{described.link->kind, text(described.link->target)};
        }
        node.children = fieldNodes(described.children);
        out.push_back(std::move(node));
    }
    return out;
}

std::vector<FieldNode> tritonKernelFields(const TritonKernelDir& kernel) {
    return fieldNodes(describe_triton_kernel(kernel));
}

FieldNode tritonKernelsGroup(const QString& name, const std::vector<TritonKernelDir>& kernels) {
    std::vector<FieldNode> children;
    for (const auto& kernel : kernels) {
        const QString hash = text(kernel.hash);
        FieldNode node = linkField(text(kernel.kernel_name), hash, FileKind::Triton, hash);
        if (kernel.metadata) {
            node.children.push_back(
                field(QStringLiteral("num_warps"), optionalNumber(kernel.metadata->num_warps)));
            node.children.push_back(
                field(QStringLiteral("num_stages"), optionalNumber(kernel.metadata->num_stages)));
        }
        children.push_back(std::move(node));
    }
    return group(name, std::move(children));
}

FieldNode bestConfigsGroup(const QString& name, const std::vector<LocatedBestConfig>& configs) {
    std::vector<FieldNode> children;
    for (const auto& located : configs) {
        const QString path = text(located.path);
        const KernelConfig& config = located.config.config;
        FieldNode node =
            linkField(configPairsText(config.kwargs), path, FileKind::BestConfig, path);
        node.children.push_back(
            field(QStringLiteral("num_warps"), optionalNumber(config.num_warps)));
        node.children.push_back(
            field(QStringLiteral("num_stages"), optionalNumber(config.num_stages)));
        if (located.config.triton_cache_hash) {
            const QString hash = text(*located.config.triton_cache_hash);
            node.children.push_back(
                linkField(QStringLiteral("Winner cubin"), hash, FileKind::Triton, hash));
        }
        children.push_back(std::move(node));
    }
    return group(name, std::move(children));
}

std::vector<FieldNode> entryFields(const Entry& entry, const EntryContent& content) {
    return fieldNodes(describe_entry(entry, content).fields);
}

// ---------------------------------------------------------------------------

struct EntryFieldsModel::Node {
    FieldNode field; // its children live in `children`
    Node* parent = nullptr;
    int row = 0;
    std::vector<std::unique_ptr<Node>> children;

    static std::unique_ptr<Node> make(FieldNode field, Node* parent, int row) {
        auto node = std::make_unique<Node>();
        node->parent = parent;
        node->row = row;
        std::vector<FieldNode> children = std::move(field.children);
        field.children.clear();
        node->field = std::move(field);
        node->children.reserve(children.size());
        for (auto& child : children) {
            node->children.push_back(
                make(std::move(child), node.get(), static_cast<int>(node->children.size())));
        }
        return node;
    }
};

FieldNode safetyField(const bundle::ArtifactCheck& check) {
    FieldNode field;
    field.name = QObject::tr("Safety");
    QStringList code;
    for (const auto& part : check.code) {
        code << text(part);
    }
    field.value = text(safety::to_string(check.verdict));
    if (!code.isEmpty()) {
        field.value += QObject::tr(": PyTorch would run %1").arg(code.join(QStringLiteral(", ")));
    }
    for (const auto& finding : check.findings) {
        field.children.push_back({.name = text(finding.id) + u' ' + text(safety::location(finding)),
                                  .value = text(finding.text) + u'\n' + text(finding.rule) +
                                           QStringLiteral(": ") + text(finding.why),
                                  .monospace = true,
                                  .link = std::nullopt,
                                  .children = {}});
    }
    // A readable entry's one problem is the import's refusal of its findings,
    // listed above already; an unreadable one's say why.
    for (const auto& problem : check.readable ? std::vector<std::string>{} : check.problems) {
        field.children.push_back({.name = QObject::tr("problem"),
                                  .value = text(problem),
                                  .monospace = false,
                                  .link = std::nullopt,
                                  .children = {}});
    }
    return field;
}

EntryFieldsModel::EntryFieldsModel(QObject* parent)
    : QAbstractItemModel(parent)
    , root_(std::make_unique<Node>()) {}

EntryFieldsModel::~EntryFieldsModel() = default;

void EntryFieldsModel::setEntry(const Entry& entry, const EntryContent& content) {
    setFields(entryFields(entry, content));
}

void EntryFieldsModel::setFields(std::vector<FieldNode> fields) {
    beginResetModel();
    FieldNode top;
    top.children = std::move(fields);
    root_ = Node::make(std::move(top), nullptr, 0);
    endResetModel();
}

void EntryFieldsModel::appendField(FieldNode field) {
    const int row = static_cast<int>(root_->children.size());
    beginInsertRows({}, row, row);
    root_->children.push_back(Node::make(std::move(field), root_.get(), row));
    endInsertRows();
}

void EntryFieldsModel::prependField(FieldNode field) {
    beginInsertRows({}, 0, 0);
    root_->children.insert(root_->children.begin(), Node::make(std::move(field), root_.get(), 0));
    for (std::size_t row = 1; row < root_->children.size(); ++row) {
        root_->children[row]->row = static_cast<int>(row);
    }
    endInsertRows();
}

void EntryFieldsModel::clear() {
    setFields({});
}

EntryFieldsModel::Node* EntryFieldsModel::nodeAt(const QModelIndex& index) const {
    return index.isValid() ? static_cast<Node*>(index.internalPointer()) : root_.get();
}

std::optional<EntryLink> EntryFieldsModel::linkAt(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this) {
        return std::nullopt;
    }
    return nodeAt(index)->field.link;
}

void EntryFieldsModel::collectLinks(const Node& node, QModelIndexList& out) const {
    for (const auto& child : node.children) {
        if (child->field.link) {
            out << createIndex(child->row, 0, child.get());
        }
        collectLinks(*child, out);
    }
}

QModelIndexList EntryFieldsModel::linkIndexes() const {
    QModelIndexList out;
    collectLinks(*root_, out);
    return out;
}

QModelIndex EntryFieldsModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent)) {
        return {};
    }
    Node* node = nodeAt(parent);
    return createIndex(row, column, node->children[static_cast<std::size_t>(row)].get());
}

QModelIndex EntryFieldsModel::parent(const QModelIndex& child) const {
    if (!child.isValid()) {
        return {};
    }
    Node* parentNode = nodeAt(child)->parent;
    if (parentNode == nullptr || parentNode == root_.get()) {
        return {};
    }
    return createIndex(parentNode->row, 0, parentNode);
}

int EntryFieldsModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() && parent.column() != 0) {
        return 0;
    }
    return static_cast<int>(nodeAt(parent)->children.size());
}

int EntryFieldsModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QVariant EntryFieldsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) {
        return {};
    }
    const Node* node = nodeAt(index);
    const FieldNode& f = node->field;
    const bool valueColumn = index.column() == ValueColumn;
    switch (role) {
    case Qt::DisplayRole: {
        if (!valueColumn) {
            return f.name;
        }
        const qsizetype newline = f.value.indexOf(QLatin1Char('\n'));
        QString shown = newline < 0 ? f.value : f.value.left(newline);
        if (shown.size() > kMaxShown) {
            shown = shown.left(kMaxShown);
        }
        if (shown.size() < f.value.size()) {
            shown += QStringLiteral(" …");
        }
        return shown;
    }
    case Qt::EditRole:
    case FullValueRole:
        return valueColumn ? f.value : f.name;
    case Qt::ToolTipRole: {
        QString tip = valueColumn ? f.value : f.name;
        if (tip.size() > kMaxTooltip) {
            tip = tip.left(kMaxTooltip) + QStringLiteral(" …");
        }
        if (f.link) {
            tip += QStringLiteral("\n\nDouble-click or Enter: go to %1").arg(f.link->describe());
        }
        return literalText(tip);
    }
    case Qt::FontRole: {
        const bool group = !valueColumn && !node->children.empty();
        if (!group && !(valueColumn && (f.monospace || f.link))) {
            return {}; // the view's own font
        }
        QFont font = (f.monospace && valueColumn)
                         ? QFontDatabase::systemFont(QFontDatabase::FixedFont)
                         : QGuiApplication::font();
        if (f.link && valueColumn) {
            font.setUnderline(true);
        }
        font.setBold(group);
        return font;
    }
    case Qt::ForegroundRole:
        if (f.link && valueColumn) {
            return QGuiApplication::palette().brush(QPalette::Link);
        }
        return {};
    case LinkKindRole:
        return f.link ? QVariant(static_cast<int>(f.link->kind)) : QVariant();
    case LinkTargetRole:
        return f.link ? QVariant(f.link->target) : QVariant();
    default:
        return {};
    }
}

QVariant EntryFieldsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    return section == NameColumn ? QStringLiteral("Field") : QStringLiteral("Value");
}

} // namespace cachelens::ui
