#include "dialogs/file_view_dialog.h"

#include "jobs/job_tracker.h"
#include "models/entry_fields_model.h"
#include "widgets/banner.h"
#include "widgets/code_view.h"

#include <cachelens/bundle/code_verdicts.h>
#include <cachelens/cachedir/entry_content.h>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QTabWidget>
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
    , tabs_(new QTabWidget(this))
    , view_(new QTreeView(this))
    , model_(new EntryFieldsModel(this))
    , members_(new QComboBox(this))
    , source_(new CodeView(this))
    , job_(new JobTracker(pool, this))
    , sourceJob_(new JobTracker(pool, this)) {
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
    members_->setObjectName(QStringLiteral("sourceMembers"));
    source_->setObjectName(QStringLiteral("memberSource"));
    auto* sourcePage = new QWidget(this);
    auto* sourceLayout = new QVBoxLayout(sourcePage);
    sourceLayout->setContentsMargins(0, 0, 0, 0);
    sourceLayout->addWidget(members_);
    sourceLayout->addWidget(source_, 1);
    tabs_->addTab(view_, tr("Overview"));
    tabs_->addTab(sourcePage, tr("Source"));
    tabs_->setTabEnabled(1, false);
    connect(members_, &QComboBox::currentTextChanged, this, &FileViewDialog::showSourceMember);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title_);
    layout->addWidget(error_);
    layout->addWidget(tabs_, 1);
    layout->addWidget(buttons);
    resize(820, 560);
}

template <class Load>
void FileViewDialog::load(const QString& title, Load loadFile) {
    title_->setText(title);
    error_->hide();
    model_->setFields({});
    file_.reset();
    sourceJob_->cancel();
    {
        const QSignalBlocker quiet(members_);
        members_->clear();
    }
    source_->clearCode();
    tabs_->setTabEnabled(1, false);
    job_->run<FileView>([loadFile](const JobContext&) { return viewOf(loadFile()); },
                        [this](FileView view) {
                            if (!view.file) {
                                error_->setText(view.error);
                                error_->show();
                                return;
                            }
                            file_ = view.file;
                            const QStringList sources = sourceMembers();
                            tabs_->setTabEnabled(1, !sources.isEmpty());
                            {
                                const QSignalBlocker quiet(members_);
                                members_->addItems(sources);
                            }
                            if (!sources.isEmpty()) {
                                showSourceMember(sources.front());
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

QStringList FileViewDialog::sourceMembers() const {
    QStringList out;
    const auto* archive = file_ ? std::get_if<pt2::Archive>(&file_->content) : nullptr;
    if (archive == nullptr) {
        return out;
    }
    for (const auto& member : archive->members) {
        const std::string& path = member.path;
        const bool text = path.ends_with(".cpp") || path.ends_with(".h") ||
                          path.ends_with(".json") || path.ends_with(".txt") ||
                          archive->records.contains(path);
        if (text && member.problems.empty()) {
            out << QString::fromStdString(path);
        }
    }
    return out;
}

void FileViewDialog::showSourceMember(const QString& path) {
    const auto* archive = file_ ? std::get_if<pt2::Archive>(&file_->content) : nullptr;
    const pt2::Member* member = archive ? archive->find(path.toStdString()) : nullptr;
    if (member == nullptr) {
        return;
    }
    if (members_->currentText() != path) {
        const QSignalBlocker quiet(members_);
        members_->setCurrentText(path);
    }
    const auto file = file_;
    const pt2::Member chosen = *member;
    sourceJob_->run<QString>(
        [file, chosen](const JobContext&) {
            auto text = pt2::read_member(std::get<pt2::Archive>(file->content), chosen);
            return text ? QString::fromUtf8(text->data(), static_cast<qsizetype>(text->size()))
                        : tr("Not shown: %1").arg(QString::fromStdString(text.error().message));
        },
        [this](QString text) {
            source_->setCode(text);
            emit sourceShown();
        });
}

QString FileViewDialog::sourceText() const {
    return source_->toPlainText();
}

QString FileViewDialog::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

bool FileViewDialog::isLoading() const {
    return job_->isRunning();
}

} // namespace cachelens::ui
