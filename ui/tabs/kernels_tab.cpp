#include "tabs/kernels_tab.h"

#include "jobs/job_tracker.h"
#include "models/entry_fields_model.h"
#include "models/kernel_files_model.h"
#include "text/counted.h"
#include "text/engine_text.h"
#include "widgets/code_view.h"

#include <cachelens/core/format.h>
#include <cachelens/core/mapped_file.h>

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTreeView>
#include <QVBoxLayout>

#include <variant>

namespace cachelens::ui {

namespace {

// "1 line", "3 lines".
// Triton's .source is MLIR, not Python: only Python files get Python colours.
CodeView::Language languageOf(const QString& name) {
    return cachedir::triton_file_type(name.toStdString()).python ? CodeView::Language::Python
                                                                 : CodeView::Language::Plain;
}

// A file we did not expect to be binary may still be: NULs say so.
bool looksBinary(std::string_view bytes) {
    return bytes.substr(0, 8192).find('\0') != std::string_view::npos;
}

// What a file is without its text: its name and size, then the kernel's facts.
std::vector<FieldNode> fileFacts(const KernelFilesModel::FileRef& ref) {
    std::vector<FieldNode> out;
    FieldNode name;
    name.name = QObject::tr("File");
    name.value = text(ref.info().name);
    name.monospace = true;
    out.push_back(std::move(name));
    FieldNode size;
    size.name = QObject::tr("Size");
    size.value = QStringLiteral("%1 (%2 bytes)")
                     .arg(text(format_bytes(ref.info().size)))
                     .arg(ref.info().size);
    out.push_back(std::move(size));
    auto facts = tritonKernelFields(ref.kernel->dir);
    std::move(facts.begin(), facts.end(), std::back_inserter(out));
    return out;
}

struct FileText {
    QString text;
    std::optional<Error> error;
    bool binary = false;
};

} // namespace

KernelsTab::KernelsTab(JobPool& pool, QWidget* parent)
    : EntryTab(parent)
    , header_(new QLabel(this))
    , files_(new QTreeView(this))
    , stack_(new QStackedWidget(this))
    , code_(new CodeView(this))
    , factsView_(new QTreeView(this))
    , message_(new QLabel(this))
    , model_(new KernelFilesModel(this))
    , facts_(new EntryFieldsModel(this))
    , listJob_(new JobTracker(pool, this))
    , fileJob_(new JobTracker(pool, this)) {
    header_->setTextFormat(Qt::PlainText);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    header_->setWordWrap(true);

    files_->setModel(model_);
    files_->setUniformRowHeights(true);
    files_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    files_->setSelectionMode(QAbstractItemView::SingleSelection);
    // Long kernel names share their start (triton_per_fused_): keep their ends.
    files_->setTextElideMode(Qt::ElideLeft);
    files_->header()->setStretchLastSection(false);
    files_->header()->setSectionResizeMode(KernelFilesModel::NameColumn, QHeaderView::Stretch);
    files_->header()->setSectionResizeMode(KernelFilesModel::SizeColumn,
                                           QHeaderView::ResizeToContents);
    files_->header()->setSectionResizeMode(KernelFilesModel::TypeColumn,
                                           QHeaderView::ResizeToContents);
    connect(files_->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& current) { showIndex(current); });

    factsView_->setModel(facts_);
    factsView_->setUniformRowHeights(true);
    factsView_->setAlternatingRowColors(true);
    factsView_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    factsView_->setExpandsOnDoubleClick(false);
    factsView_->header()->setStretchLastSection(true);
    connect(factsView_, &QTreeView::activated, this, &KernelsTab::followFact);

    message_->setTextFormat(Qt::PlainText);
    message_->setAlignment(Qt::AlignCenter);
    message_->setWordWrap(true);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    stack_->addWidget(code_);
    stack_->addWidget(factsView_);
    stack_->addWidget(message_);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(files_);
    splitter->addWidget(stack_);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 3);
    splitter->setSizes({400, 800});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(header_);
    layout->addWidget(splitter, 1);
    clear();
}

KernelsTab::~KernelsTab() {
    listJob_->cancel();
    fileJob_->cancel();
}

bool KernelsTab::appliesTo(cachedir::FileKind kind) const {
    using cachedir::FileKind;
    return kind == FileKind::Triton || kind == FileKind::Module || kind == FileKind::FxGraph;
}

void KernelsTab::showEntry(const EntryRef& ref, const SharedContent& content) {
    listJob_->cancel();
    fileJob_->cancel();
    ref_ = ref;
    content_ = content;
    model_->clear();
    code_->clearCode();
    if (const auto* dir = std::get_if<cachedir::TritonKernelDir>(content.get())) {
        KernelDirItem item;
        item.dir = *dir;
        item.location = QString::fromStdString(ref.entry.path);
        std::vector<KernelDirItem> items;
        items.push_back(std::move(item));
        model_->setKernels(std::move(items));
        setKernelsShown();
    } else if (const auto* module = std::get_if<cachedir::ModuleSource>(content.get())) {
        header_->setText(
            tr("Triton kernels compiled from %1").arg(QString::fromStdString(ref.entry.key)));
        showMessage(tr("Looking for the Triton kernels compiled from this module…"));
        const std::filesystem::path root = ref.root;
        const std::string key = ref.entry.key;
        const std::vector<std::string> names = module->module.kernel_names();
        listJob_->run<std::vector<KernelDirItem>>(
            [root, key, names](const JobContext& context) {
                std::vector<KernelDirItem> items;
                for (auto& found :
                     cachedir::find_triton_dirs_of_module(root, key, names, context.cancelFlag())) {
                    KernelDirItem item;
                    item.location = tritonDirPath(found);
                    item.dir = std::move(found);
                    items.push_back(std::move(item));
                }
                return items;
            },
            [this](std::vector<KernelDirItem> items) {
                model_->setKernels(std::move(items));
                setKernelsShown();
            });
    } else if (std::holds_alternative<cachedir::FxGraphEntry>(*content)) {
        header_->setText(tr("Triton kernels carried in the entry"));
        showMessage(tr("Reading the entry's Triton bundle…"));
        listJob_->run<std::vector<KernelDirItem>>(
            [content](const JobContext&) {
                return bundleKernelItems(std::get<cachedir::FxGraphEntry>(*content));
            },
            [this](std::vector<KernelDirItem> items) {
                model_->setKernels(std::move(items));
                setKernelsShown();
            });
    } else {
        clear();
    }
}

void KernelsTab::setKernelsShown() {
    const auto& kernels = model_->kernels();
    if (kernels.empty()) {
        files_->setRootIndex({});
        showMessage(std::holds_alternative<cachedir::ModuleSource>(*content_)
                        ? tr("No Triton kernel in this cache dir was compiled from this module.")
                        : tr("No compiled Triton kernels."));
        return;
    }
    if (kernels.size() == 1 && !kernels.front().location.isEmpty() &&
        ref_.entry.kind == cachedir::FileKind::Triton) {
        // One kernel dir: its files are the list.
        const auto& dir = kernels.front().dir;
        files_->setRootIndex(model_->kernelIndex(0));
        files_->setRootIsDecorated(false);
        QString header = text(dir.kernel_name) + QStringLiteral("  —  ") + text(dir.hash);
        if (dir.metadata) {
            header += tr("  —  %1 %2, num_warps=%3, num_stages=%4")
                          .arg(text(dir.metadata->backend), text(dir.metadata->arch))
                          .arg(dir.metadata->num_warps.value_or(0))
                          .arg(dir.metadata->num_stages.value_or(0));
        }
        header_->setText(header);
    } else {
        files_->setRootIndex({});
        files_->setRootIsDecorated(true);
        files_->expandAll();
        header_->setText(header_->text() + QStringLiteral("  —  ") +
                         counted(static_cast<qsizetype>(kernels.size()), "kernel"));
    }
    // First: what the GPU runs, as text (cachedir::triton_file_type).
    if (const QModelIndex first = model_->fileToShowFirst(0); first.isValid()) {
        files_->setCurrentIndex(first);
        files_->scrollTo(first);
        return;
    }
    files_->setCurrentIndex(model_->kernelIndex(0));
}

void KernelsTab::clear() {
    listJob_->cancel();
    fileJob_->cancel();
    ref_ = {};
    content_.reset();
    model_->clear();
    facts_->clear();
    code_->clearCode();
    header_->clear();
    showMessage(tr("No entry selected."));
}

bool KernelsTab::selectFile(const QString& suffix, int kernel) {
    const QModelIndex file = model_->findFile(kernel, suffix);
    if (!file.isValid()) {
        return false;
    }
    files_->setCurrentIndex(file);
    files_->scrollTo(file);
    return true;
}

QWidget* KernelsTab::currentPage() const {
    return stack_->currentWidget();
}

QWidget* KernelsTab::factsPage() const {
    return factsView_;
}

void KernelsTab::showMessage(const QString& text) {
    message_->setText(text);
    stack_->setCurrentWidget(message_);
}

void KernelsTab::followFact(const QModelIndex& index) {
    if (const auto link = linkAt(index)) {
        emit followRequested(link->kind, link->target);
    }
}

void KernelsTab::showIndex(const QModelIndex& index) {
    fileJob_->cancel();
    if (!index.isValid()) {
        return;
    }
    const auto file = model_->fileAt(index);
    if (!file) {
        // A kernel row: its facts.
        const auto& kernel =
            model_->kernels()[static_cast<std::size_t>(index.siblingAtColumn(0).row())];
        facts_->setFields(tritonKernelFields(kernel.dir));
        factsView_->expandAll();
        factsView_->resizeColumnToContents(EntryFieldsModel::NameColumn);
        stack_->setCurrentWidget(factsView_);
        return;
    }
    const QString name = text(file->info().name);
    if (KernelFilesModel::isBinary(name)) {
        facts_->setFields(fileFacts(*file));
        factsView_->expandAll();
        factsView_->resizeColumnToContents(EntryFieldsModel::NameColumn);
        stack_->setCurrentWidget(factsView_);
        return;
    }
    const CodeView::Language language = languageOf(name);
    if (file->kernel->location.isEmpty()) {
        // A bundle: the bytes are in the entry, already in memory.
        const std::string_view bytes = file->kernel->payloads[file->file];
        if (looksBinary(bytes)) {
            facts_->setFields(fileFacts(*file));
            factsView_->expandAll();
            stack_->setCurrentWidget(factsView_);
            return;
        }
        code_->setCode(text(bytes), language);
        stack_->setCurrentWidget(code_);
        return;
    }
    showMessage(tr("Reading %1…").arg(name));
    const std::filesystem::path path =
        ref_.root / file->kernel->location.toStdString() / file->info().name;
    fileJob_->run<FileText>(
        [path](const JobContext&) {
            FileText out;
            auto bytes = read_text_file(path);
            if (!bytes) {
                out.error = bytes.error();
            } else if (looksBinary(*bytes)) {
                out.binary = true;
            } else {
                out.text = QString::fromStdString(*bytes);
            }
            return out;
        },
        [this, language](FileText result) {
            // The selection this job was started for: a newer one cancels it.
            const auto current = model_->fileAt(files_->currentIndex());
            if (!current) {
                return;
            }
            if (result.error) {
                showMessage(QString::fromStdString(result.error->describe()));
            } else if (result.binary) {
                facts_->setFields(fileFacts(*current));
                factsView_->expandAll();
                stack_->setCurrentWidget(factsView_);
            } else {
                code_->setCode(result.text, language);
                stack_->setCurrentWidget(code_);
            }
        });
}

} // namespace cachelens::ui
