#pragma once

// ServingPage: a vLLM or SGLang torch_compile_cache tree. On the left its
// hash dirs, ranks and prefixes; on the right, for a hash dir, why vLLM made
// it rather than use the nearest sibling (its factors, in vLLM's hashing
// order); for a prefix, its piecewise graphs (what each handle names, there
// or missing, kernels, compile time) and the factors. Verify, Preflight,
// Pack, Unpack and Prune run the engine calls the CLI runs (serving/,
// explain/preflight.h), off the GUI thread, with progress and Stop.

#include <cachelens/serving/serving_tree.h>

#include <QWidget>

#include <filesystem>
#include <memory>
#include <string>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableView;
class QTreeView;

namespace cachelens::ui {

class JobPool;
class JobTracker;
class PiecewiseModel;
class ServingTreeModel;

class ServingPage : public QWidget {
    Q_OBJECT

public:
    explicit ServingPage(JobPool& pool, QWidget* parent = nullptr);

    // Reads the tree `path` names or lies in (a hash dir, rank or prefix in it
    // is selected); false, said on the page, when it is in none.
    bool setRoot(const std::filesystem::path& path);
    // Selects a hash dir, rank or prefix by its path below the root.
    void select(const QString& relative);
    // The tree shown, once read; null before.
    const serving::ServingTree* tree() const;

    ServingTreeModel* treeModel() const { return treeModel_; }
    PiecewiseModel* graphsModel() const { return graphs_; }
    QString summary() const;
    QString whyText() const;
    QString detailsText() const;
    bool isBusy() const;

    void verify();
    // Packs the selected hash dir into `file` (signed with `key` when given).
    void pack(const QString& file, const QString& key = {});
    // Unpacks `file` into this tree's root; `dryRun` writes nothing.
    void unpack(const QString& file, const QString& requireSignature, const QStringList& allowCode,
                bool dryRun);
    // Plans a prune of whole hash dirs (max size in bytes, ages in seconds;
    // negative: not given) and, when `run`, carries it out.
    void prune(qint64 maxSize, qint64 olderThanSeconds, qint64 keepRecentSeconds, bool run);
    // Will the selected cache dir be used on the machine `target` stands for
    // (a hash dir made there, or any cache dir or fingerprint file of it)?
    void preflight(const QString& target);
    // The buttons' questions (file dialogs, the limit), then the calls above.
    void askPack();
    void askUnpack();
    void askPrune();
    void askPreflight();

signals:
    void loaded();
    void selectionShown();
    // A verify, pack, unpack or prune ended; `ok` when it did what was asked.
    void actionDone(bool ok);
    void statusMessage(const QString& message);

private:
    void showSelection();
    // The selected row's path below the root ("" when none).
    std::string selectedPath() const;
    void startAction(const QString& label);
    void endAction(const QString& details, bool ok);
    void reload(const QString& select);

    JobTracker* treeJob_;
    JobTracker* selectionJob_;
    JobTracker* actionJob_;
    ServingTreeModel* treeModel_;
    PiecewiseModel* graphs_;
    std::shared_ptr<const serving::ServingTree> tree_;
    QLabel* banner_;
    QLabel* why_;
    QTreeView* treeView_;
    QTableView* table_;
    QPlainTextEdit* details_;
    QProgressBar* progress_;
    QPushButton* stop_;
    QPushButton* verify_;
    QPushButton* pack_;
    QPushButton* unpack_;
    QPushButton* prune_;
    QPushButton* preflight_;
    QString pendingSelection_;
    // What an action said, put back above the selection shown after a reload.
    QMetaObject::Connection keepDetails_;
};

} // namespace cachelens::ui
