#include "dialogs/file_view_dialog.h"

#include "jobs/job_tracker.h"
#include "models/entry_fields_model.h"
#include "widgets/banner.h"

#include <cachelens/bundle/code_verdicts.h>
#include <cachelens/cachedir/entry_content.h>

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QTreeView>
#include <QVBoxLayout>

#include <memory>

namespace cachelens::ui {

namespace {

// What a read gives the GUI thread: the file's description and verdict, or
// the error.
struct FileView {
    std::shared_ptr<cachedir::StandaloneFile> file;
    std::optional<bundle::ArtifactCheck> check;
    QString error;
};

FileView viewOf(Result<cachedir::StandaloneFile> loaded) {
    FileView view;
    if (!loaded) {
        view.error = QString::fromStdString(loaded.error().describe());
        return view;
    }
    view.file = std::make_shared<cachedir::StandaloneFile>(std::move(*loaded));
    view.check = bundle::judge_standalone_file(*view.file);
    return view;
}

} // namespace

FileViewDialog::FileViewDialog(JobPool& pool, QWidget* parent)
    : QDialog(parent)
    , title_(new QLabel(this))
    , error_(makeBanner(QStringLiteral("fileViewError"), BannerTone::Error))
    , view_(new QTreeView(this))
    , model_(new EntryFieldsModel(this))
    , job_(new JobTracker(pool, this)) {
    setWindowTitle(tr("File"));
    title_->setTextFormat(Qt::PlainText);
    title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = title_->font();
    bold.setBold(true);
    title_->setFont(bold);
    view_->setModel(model_);
    view_->setObjectName(QStringLiteral("fileFields"));
    view_->setUniformRowHeights(true);
    view_->setAlternatingRowColors(true);
    view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view_->header()->setStretchLastSection(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title_);
    layout->addWidget(error_);
    layout->addWidget(view_, 1);
    layout->addWidget(buttons);
    resize(820, 560);
}

template <class Load>
void FileViewDialog::load(const QString& title, Load loadFile) {
    title_->setText(title);
    error_->hide();
    model_->setFields({});
    job_->run<FileView>([loadFile](const JobContext&) { return viewOf(loadFile()); },
                        [this](FileView view) {
                            if (!view.file) {
                                error_->setText(view.error);
                                error_->show();
                                return;
                            }
                            model_->setEntry(view.file->entry, view.file->content);
                            if (view.check) {
                                model_->prependField(safetyField(*view.check));
                            }
                            view_->expandToDepth(0);
                            view_->resizeColumnToContents(EntryFieldsModel::NameColumn);
                        },
                        [this](bool) { emit loaded(); });
}

void FileViewDialog::showFile(const std::filesystem::path& file) {
    setWindowTitle(tr("File: %1").arg(QString::fromStdString(file.filename().string())));
    load(QString::fromStdString(file.string()),
         [file] { return cachedir::load_standalone_file(file); });
}

void FileViewDialog::showVariableValue(const QString& value) {
    setWindowTitle(tr("InMemoryCache variable"));
    const std::string text = value.toStdString();
    load(tr("An InMemoryCache variable's value"),
         [text] { return cachedir::load_in_memory_cache_env(text, "VALUE", "the value given"); });
}

QString FileViewDialog::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

bool FileViewDialog::isLoading() const {
    return job_->isRunning();
}

} // namespace cachelens::ui
