#pragma once

// The Overview tab's model: an entry's fields as a two-column tree (name,
// value), groups nested for kernels, candidates, metadata and attributes.
// Fields that name another entry carry an EntryLink; the view shows them as
// links and follows them on activation. The fields of an entry are the
// engine's description (cachedir/entry_description.h), the one `cachelens
// show` and `show --json` render too.

#include "data/entry_links.h"

#include <cachelens/bundle/import.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/entry_description.h>

#include <QAbstractItemModel>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace cachelens::ui {

struct FieldNode {
    QString name;
    QString value;          // may span lines: the view shows the first, the tooltip all
    bool monospace = false; // keys, hashes, code
    std::optional<EntryLink> link;
    std::vector<FieldNode> children;
};

// The described fields for kTree, as the tree shows them.
std::vector<FieldNode> fieldNodes(const std::vector<cachedir::Field>& fields);
// The fields of an entry, from its scan record and parsed content.
std::vector<FieldNode> entryFields(const cachedir::Entry& entry,
                                   const cachedir::EntryContent& content);
// The facts of one compiled Triton kernel (metadata and PTX), for the
// Overview and for a cubin, which is not text.
std::vector<FieldNode> tritonKernelFields(const cachedir::TritonKernelDir& kernel);
// A group of links to Triton kernel dirs (a module's compiled kernels).
FieldNode tritonKernelsGroup(const QString& name,
                             const std::vector<cachedir::TritonKernelDir>& kernels);
// "Safety": the entry's verdict and the code PyTorch would run from it, a
// child per finding (where, the line, why) and per problem.
FieldNode safetyField(const bundle::ArtifactCheck& check);
// A group of links to best_configs (a module's kernels' winners).
FieldNode bestConfigsGroup(const QString& name,
                           const std::vector<cachedir::LocatedBestConfig>& configs);

class EntryFieldsModel : public QAbstractItemModel {
    Q_OBJECT

public:
    enum Column { NameColumn, ValueColumn, ColumnCount };
    enum Role {
        LinkKindRole = kLinkKindRole, // int(FileKind); invalid when the field is no link
        LinkTargetRole = kLinkTargetRole,
        FullValueRole = Qt::UserRole + 1, // the whole value, every line
    };

    explicit EntryFieldsModel(QObject* parent = nullptr);
    ~EntryFieldsModel() override;

    void setEntry(const cachedir::Entry& entry, const cachedir::EntryContent& content);
    void setFields(std::vector<FieldNode> fields);
    // Adds a top-level field (one found later, off the GUI thread).
    void appendField(FieldNode field);
    // Adds a top-level field above the others.
    void prependField(FieldNode field);
    void clear();

    std::optional<EntryLink> linkAt(const QModelIndex& index) const;
    // Every index (column 0) whose field links somewhere, depth first.
    QModelIndexList linkIndexes() const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Node;
    Node* nodeAt(const QModelIndex& index) const;
    void collectLinks(const Node& node, QModelIndexList& out) const;

    std::unique_ptr<Node> root_;
};

} // namespace cachelens::ui
