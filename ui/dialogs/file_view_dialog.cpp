#include "dialogs/file_view_dialog.h"

#include "jobs/job_tracker.h"
#include "models/entry_fields_model.h"
#include "widgets/banner.h"
#include "widgets/code_view.h"

#include <cachelens/bundle/code_verdicts.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/fingerprint.h>
#include <cachelens/explain/preflight.h>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTabWidget>
#include <QTreeView>
#include <QTreeWidget>
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
    , sourceJob_(new JobTracker(pool, this))
    , checks_(new QTreeWidget(this))
    , preflight_(new QPushButton(tr("Will it load on…"), this))
    , sources_(new QPushButton(tr("Check sources against…"), this))
    , checkJob_(new JobTracker(pool, this)) {
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
    checks_->setObjectName(QStringLiteral("fileChecks"));
    checks_->setHeaderHidden(true);
    checks_->setRootIsDecorated(false);
    checks_->setColumnCount(1);
    preflight_->setObjectName(QStringLiteral("preflightButton"));
    preflight_->setToolTip(tr("A cache dir made on that machine, or the fingerprint "
                              "`cachelens env -o FILE` wrote there"));
    sources_->setObjectName(QStringLiteral("checkSourcesButton"));
    sources_->setToolTip(
        tr("Your checkout: the spans PyTorch's DynamoCache and vLLM hash on load"));
    auto* checksPage = new QWidget(this);
    auto* checksLayout = new QVBoxLayout(checksPage);
    checksLayout->setContentsMargins(0, 0, 0, 0);
    auto* checkButtons = new QHBoxLayout;
    checkButtons->addWidget(preflight_);
    checkButtons->addWidget(sources_);
    checkButtons->addStretch(1);
    checksLayout->addLayout(checkButtons);
    checksLayout->addWidget(checks_, 1);
    // The target machine: a cache dir made there, or the fingerprint `cachelens
    // env -o FILE` wrote there (the only one that knows its torch version).
    auto* targets = new QMenu(preflight_);
    targets->addAction(tr("A cache dir made there…"), this, [this] {
        const QString target =
            QFileDialog::getExistingDirectory(this, tr("A cache dir made on the target machine"));
        if (!target.isEmpty()) {
            preflightAgainst(target.toStdString());
        }
    });
    targets->addAction(tr("Its fingerprint file…"), this, [this] {
        const QString target = QFileDialog::getOpenFileName(
            this, tr("The fingerprint `cachelens env -o FILE` wrote there"), {},
            tr("Fingerprints (*.json);;All files (*)"));
        if (!target.isEmpty()) {
            preflightAgainst(target.toStdString());
        }
    });
    preflight_->setMenu(targets);
    connect(sources_, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Your checkout"));
        if (!dir.isEmpty()) {
            checkSourcesAgainst(dir.toStdString());
        }
    });
    tabs_->addTab(view_, tr("Overview"));
    tabs_->addTab(sourcePage, tr("Source"));
    tabs_->addTab(checksPage, tr("Checks"));
    tabs_->setTabEnabled(1, false);
    tabs_->setTabEnabled(2, false);
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
    checkJob_->cancel();
    checks_->clear();
    tabs_->setTabEnabled(1, false);
    tabs_->setTabEnabled(2, false);
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
                            updateCheckButtons();
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

namespace {

// "<backend id> forward (c<key>.py)": a precompiled function's bundled module.
QString moduleName(const cachedir::PrecompileBackend& backend,
                   const cachedir::BundledGraph& graph) {
    return QString::fromStdString(backend.id + " " + graph.role + " (" + graph.cache_key + ".py)");
}

} // namespace

QStringList FileViewDialog::sourceMembers() const {
    QStringList out;
    if (const auto* precompiled =
            file_ ? std::get_if<cachedir::PrecompileFile>(&file_->content) : nullptr) {
        for (const auto& backend : precompiled->backends) {
            for (const auto& graph : backend.graphs) {
                if (!graph.source_code.empty()) {
                    out << moduleName(backend, graph);
                }
            }
        }
        return out;
    }
    const auto* archive = file_ ? std::get_if<pt2::Archive>(&file_->content) : nullptr;
    if (archive == nullptr) {
        return out;
    }
    for (const auto& member : archive->members) {
        if (archive->is_readable_text(member)) {
            out << QString::fromStdString(member.path);
        }
    }
    return out;
}

void FileViewDialog::showSourceMember(const QString& path) {
    if (const auto* precompiled =
            file_ ? std::get_if<cachedir::PrecompileFile>(&file_->content) : nullptr) {
        for (const auto& backend : precompiled->backends) {
            for (const auto& graph : backend.graphs) {
                if (moduleName(backend, graph) == path) {
                    if (members_->currentText() != path) {
                        const QSignalBlocker quiet(members_);
                        members_->setCurrentText(path);
                    }
                    source_->setCode(
                        QString::fromUtf8(graph.source_code.data(),
                                          static_cast<qsizetype>(graph.source_code.size())));
                    emit sourceShown();
                    return;
                }
            }
        }
        return;
    }
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

bool FileViewDialog::canPreflight() const {
    return file_ && (std::holds_alternative<pt2::Archive>(file_->content) ||
                     std::holds_alternative<cachedir::PrecompileFile>(file_->content));
}

bool FileViewDialog::canCheckSources() const {
    return file_ && std::holds_alternative<cachedir::PrecompileFile>(file_->content);
}

void FileViewDialog::updateCheckButtons() {
    preflight_->setEnabled(canPreflight());
    sources_->setEnabled(canCheckSources());
    tabs_->setTabEnabled(2, canPreflight());
}

void FileViewDialog::showChecks(const QStringList& lines, bool answered) {
    checks_->clear();
    for (qsizetype i = 0; i < lines.size(); ++i) {
        auto* item = new QTreeWidgetItem(QStringList{lines[i]});
        if (i == 0) {
            QFont bold = item->font(0);
            bold.setBold(true);
            item->setFont(0, bold);
        }
        checks_->addTopLevelItem(item);
    }
    tabs_->setCurrentIndex(2);
    if (answered) {
        emit checked();
    }
}

void FileViewDialog::preflightAgainst(const std::filesystem::path& target) {
    if (!canPreflight()) {
        return;
    }
    const auto file = file_;
    showChecks({tr("Reading the target %1…").arg(QString::fromStdString(target.string()))}, false);
    checkJob_->run<QStringList>(
        [file, target](const JobContext&) {
            QStringList lines;
            const auto fingerprint = cachedir::fingerprint_of_target(target);
            if (!fingerprint) {
                lines << QString::fromStdString(fingerprint.error().describe());
                return lines;
            }
            const QString machine = QString::fromStdString("target: " + target.string() + " (" +
                                                           fingerprint->describe() + ")");
            if (const auto* archive = std::get_if<pt2::Archive>(&file->content)) {
                const auto checked = explain::preflight_pt2(*archive, *fingerprint);
                lines << QString::fromStdString(checked.answer()) << machine;
                for (const auto& model : checked.models) {
                    for (const auto& reason : model.reasons) {
                        lines << QString::fromStdString("model " + model.model + ": " +
                                                        reason.category + ": " + reason.text);
                    }
                }
                for (const auto& note : checked.notes) {
                    lines << QString::fromStdString("note: " + note);
                }
                return lines;
            }
            const auto checked = explain::preflight_precompile(
                std::get<cachedir::PrecompileFile>(file->content), *fingerprint);
            lines << QString::fromStdString(checked.answer()) << machine;
            for (const auto& reason : checked.reasons) {
                lines << QString::fromStdString(reason.category + ": " + reason.text);
            }
            for (const auto& note : checked.notes) {
                lines << QString::fromStdString("note: " + note);
            }
            return lines;
        },
        [this](QStringList lines) { showChecks(lines); });
}

void FileViewDialog::checkSourcesAgainst(const std::filesystem::path& dir) {
    if (!canCheckSources()) {
        return;
    }
    const auto file = file_;
    checkJob_->run<QStringList>(
        [file, dir](const JobContext&) {
            QStringList lines;
            std::error_code error;
            if (!std::filesystem::is_directory(dir, error)) {
                lines << QString::fromStdString(dir.string() +
                                                ": not a directory (choose your checkout)");
                return lines;
            }
            const auto& precompiled = std::get<cachedir::PrecompileFile>(file->content);
            const auto checks = cachedir::check_sources_against(precompiled, dir);
            lines << QString::fromStdString(cachedir::source_checks_answer(checks));
            for (const auto& check : checks) {
                lines << QString::fromStdString(check.text);
            }
            return lines;
        },
        [this](QStringList lines) { showChecks(lines); });
}

QString FileViewDialog::checkText() const {
    QStringList lines;
    for (int i = 0; i < checks_->topLevelItemCount(); ++i) {
        lines << checks_->topLevelItem(i)->text(0);
    }
    return lines.join('\n');
}

QString FileViewDialog::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

bool FileViewDialog::isLoading() const {
    return job_->isRunning();
}

} // namespace cachelens::ui
