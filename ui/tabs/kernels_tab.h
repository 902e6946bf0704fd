#pragma once

// The Kernels tab: compiled Triton kernels and their files. A Triton kernel
// dir: its files; a module: the kernel dirs compiled from it (found off the
// GUI thread); an FX entry: the kernels its bundle carries. Selecting a file
// shows its text (Triton IR as built, TTIR, TTGIR, LLVM IR, PTX, JSON) in a code
// view; a cubin is not text, so it shows the kernel's facts instead (size,
// target, num_warps, num_stages, shared memory, the PTX entry's parameters).

#include "tabs/entry_tab.h"

class QLabel;
class QStackedWidget;
class QTreeView;

namespace cachelens::ui {

class CodeView;
class EntryFieldsModel;
class JobPool;
class JobTracker;
class KernelFilesModel;

class KernelsTab : public EntryTab {
    Q_OBJECT

public:
    explicit KernelsTab(JobPool& pool, QWidget* parent = nullptr);
    ~KernelsTab() override;

    bool appliesTo(cachedir::FileKind kind) const override;
    void showEntry(const EntryRef& ref, const SharedContent& content) override;
    void clear() override;

    // Selects the first file of the `kernel`-th kernel whose name ends with
    // `suffix` (".ptx", ".cubin", ...); false when there is none.
    bool selectFile(const QString& suffix, int kernel = 0);

    KernelFilesModel* model() const { return model_; }
    QTreeView* fileView() const { return files_; }
    CodeView* codeView() const { return code_; }
    EntryFieldsModel* factsModel() const { return facts_; }
    // What the right side shows now: the code view, the facts or a message.
    QWidget* currentPage() const;
    QWidget* factsPage() const;
    QLabel* messageLabel() const { return message_; }

private:
    void setKernelsShown();
    void showIndex(const QModelIndex& index);
    void showMessage(const QString& text);
    void followFact(const QModelIndex& index);

    EntryRef ref_;
    SharedContent content_; // keeps a bundle's payloads alive
    QLabel* header_ = nullptr;
    QTreeView* files_ = nullptr;
    QStackedWidget* stack_ = nullptr;
    CodeView* code_ = nullptr;
    QTreeView* factsView_ = nullptr;
    QLabel* message_ = nullptr;
    KernelFilesModel* model_ = nullptr;
    EntryFieldsModel* facts_ = nullptr;
    JobTracker* listJob_;
    JobTracker* fileJob_;
};

} // namespace cachelens::ui
