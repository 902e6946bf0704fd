#include "pages/serving_page.h"

#include "dialogs/confirm.h"
#include "jobs/job_tracker.h"
#include "models/piecewise_model.h"
#include "models/serving_tree_model.h"
#include "text/counted.h"
#include "text/engine_text.h"
#include "text/preflight_text.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/core/format.h>
#include <cachelens/explain/preflight.h>
#include <cachelens/serving/pack.h>
#include <cachelens/serving/piecewise.h>
#include <cachelens/serving/prune.h>

#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTextDocumentFragment>
#include <QTreeView>
#include <QVBoxLayout>

#include <optional>

namespace cachelens::ui {

namespace {

// What a selected row shows, read off the GUI thread.
struct SelectionView {
    QString why;     // plain text: the answer, then each factor that differs
    QString details; // the factors, plain text
    std::vector<serving::PiecewiseGraph> graphs;
};

QString progressText(const Progress& progress) {
    return QString::fromUtf8(to_string(progress.stage).data()) + QLatin1Char(' ') +
           text(progress.item);
}

QString factorsText(const serving::CacheKeyFactors& factors) {
    QString out =
        QObject::tr("Factors (cache_key_factors.json): config %1, code %2, compiler %3")
            .arg(text(factors.config_hash), text(factors.code_hash), text(factors.compiler_hash));
    if (const auto name = serving::recompute_hash_dir_name(factors)) {
        out += QObject::tr("; they name the dir %1").arg(text(*name));
    }
    out += QLatin1Char('\n');
    for (const auto& [name, value] : factors.env) {
        out += QStringLiteral("  %1 = %2\n").arg(text(name), text(value));
    }
    return out;
}

QString problemsText(const cachedir::VerifyReport& report) {
    QString out;
    for (const auto& problem : report.problems) {
        out += QStringLiteral("%1: %2: %3\n")
                   .arg(text(problem.path), text(cachedir::to_string(problem.kind)),
                        text(problem.message));
    }
    for (const auto& warning : report.warnings) {
        out += QObject::tr("%1: %2 (warning): %3\n")
                   .arg(text(warning.path), text(cachedir::to_string(warning.kind)),
                        text(warning.message));
    }
    return out;
}

QString findingsText(const std::vector<bundle::FileVerdict>& code,
                     const std::vector<std::string>& only = {}) {
    QString out;
    for (const auto& file : code) {
        const bool listed = only.empty() ? file.check.verdict == safety::Verdict::CodeWithFindings
                                         : std::ranges::find(only, file.path) != only.end();
        if (!listed) {
            continue;
        }
        out += QStringLiteral("%1: %2\n")
                   .arg(text(file.path), text(safety::to_string(file.check.verdict)));
        for (const auto& finding : file.check.findings) {
            out += QStringLiteral("  %1 %2 (%3 line %4): %5\n")
                       .arg(text(finding.id), text(finding.rule), text(finding.file))
                       .arg(finding.line)
                       .arg(text(finding.text));
        }
        for (const auto& problem : file.check.problems) {
            out += QStringLiteral("  %1\n").arg(text(problem));
        }
    }
    return out;
}

} // namespace

ServingPage::ServingPage(JobPool& pool, QWidget* parent)
    : QWidget(parent)
    , treeJob_(new JobTracker(pool, this))
    , selectionJob_(new JobTracker(pool, this))
    , actionJob_(new JobTracker(pool, this))
    , treeModel_(new ServingTreeModel(this))
    , graphs_(new PiecewiseModel(this))
    , banner_(new QLabel(this))
    , why_(new QLabel(this))
    , treeView_(new QTreeView(this))
    , table_(new QTableView(this))
    , details_(new QPlainTextEdit(this))
    , progress_(new QProgressBar(this))
    , stop_(new QPushButton(tr("Stop"), this))
    , verify_(new QPushButton(tr("&Verify"), this))
    , pack_(new QPushButton(tr("&Pack…"), this))
    , unpack_(new QPushButton(tr("&Unpack…"), this))
    , prune_(new QPushButton(tr("P&rune…"), this))
    , preflight_(new QPushButton(tr("Pre&flight…"), this)) {
    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    banner_->setObjectName(QStringLiteral("servingBanner"));
    banner_->setTextFormat(Qt::PlainText); // names from the cache are data
    banner_->setWordWrap(true);
    banner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = banner_->font();
    bold.setBold(true);
    banner_->setFont(bold);
    why_->setObjectName(QStringLiteral("servingWhy"));
    why_->setTextFormat(Qt::PlainText);
    why_->setWordWrap(true);
    why_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    treeView_->setObjectName(QStringLiteral("servingTree"));
    treeView_->setModel(treeModel_);
    treeView_->setUniformRowHeights(true);
    treeView_->header()->setSectionResizeMode(ServingTreeModel::NameColumn,
                                              QHeaderView::ResizeToContents);
    table_->setObjectName(QStringLiteral("servingGraphs"));
    table_->setModel(graphs_);
    table_->setFont(fixed);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setWordWrap(false);
    table_->verticalHeader()->setVisible(false);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    details_->setObjectName(QStringLiteral("servingDetails"));
    details_->setReadOnly(true);
    details_->setFont(fixed);
    details_->setLineWrapMode(QPlainTextEdit::NoWrap);
    progress_->setVisible(false);
    stop_->setVisible(false);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(banner_, 1);
    for (auto* button : {verify_, preflight_, pack_, unpack_, prune_}) {
        button->setEnabled(false);
        buttons->addWidget(button, 0, Qt::AlignTop);
    }
    preflight_->setToolTip(tr("Will this cache dir be used on another machine? Against a cache "
                              "dir made there (cachelens preflight)"));
    verify_->setToolTip(tr("The checks `cachelens verify` runs: indexes, handles, the dir's "
                           "name from its factors, the inner caches, the code audit"));
    pack_->setToolTip(tr("Pack the selected cache dir for another machine (cachelens pack)"));
    unpack_->setToolTip(tr("Unpack a pack into this tree, after every check (cachelens unpack)"));
    prune_->setToolTip(
        tr("Delete whole cache dirs, least recently written first (cachelens prune)"));

    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(why_);
    auto* split = new QSplitter(Qt::Vertical, right);
    split->addWidget(table_);
    split->addWidget(details_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    rightLayout->addWidget(split, 1);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(treeView_);
    splitter->addWidget(right);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 3);

    auto* progressRow = new QHBoxLayout;
    progressRow->addWidget(progress_, 1);
    progressRow->addWidget(stop_);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(buttons);
    layout->addWidget(splitter, 1);
    layout->addLayout(progressRow);

    connect(treeView_->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &ServingPage::showSelection);
    connect(verify_, &QPushButton::clicked, this, &ServingPage::verify);
    connect(pack_, &QPushButton::clicked, this, &ServingPage::askPack);
    connect(unpack_, &QPushButton::clicked, this, &ServingPage::askUnpack);
    connect(prune_, &QPushButton::clicked, this, &ServingPage::askPrune);
    connect(preflight_, &QPushButton::clicked, this, &ServingPage::askPreflight);
    connect(stop_, &QPushButton::clicked, actionJob_, &JobTracker::cancel);
    connect(actionJob_, &JobTracker::progress, this,
            [this](qint64 done, qint64 total, const QString& what) {
                progress_->setRange(0, static_cast<int>(std::min<qint64>(total, INT32_MAX)));
                progress_->setValue(static_cast<int>(std::min<qint64>(done, INT32_MAX)));
                progress_->setFormat(what);
            });
    connect(actionJob_, &JobTracker::finished, this, [this](bool delivered) {
        progress_->setVisible(false);
        stop_->setVisible(false);
        if (!delivered) {
            details_->setPlainText(tr("Stopped: nothing was left half done."));
            emit actionDone(false);
        }
    });
    banner_->setText(tr("Open a vLLM or SGLang torch_compile_cache tree (File > Open cache "
                        "dir), or pick one in the sidebar."));
}

const serving::ServingTree* ServingPage::tree() const {
    return tree_.get();
}

QString ServingPage::summary() const {
    return banner_->text();
}

QString ServingPage::whyText() const {
    return why_->text();
}

QString ServingPage::detailsText() const {
    return details_->toPlainText();
}

bool ServingPage::isBusy() const {
    return treeJob_->isRunning() || selectionJob_->isRunning() || actionJob_->isRunning();
}

bool ServingPage::setRoot(const std::filesystem::path& path) {
    const auto location = serving::locate_serving_tree(path);
    if (!location) {
        banner_->setText(tr("%1 is no vLLM or SGLang torch_compile_cache tree")
                             .arg(QString::fromStdString(path.string())));
        return false;
    }
    tree_.reset();
    treeModel_->setTree(nullptr);
    graphs_->setGraphs({});
    why_->clear();
    details_->clear();
    banner_->setText(tr("Reading %1…").arg(QString::fromStdString(location->root.string())));
    pendingSelection_ = text(location->relative);
    const std::filesystem::path root = location->root;
    treeJob_->run<Result<std::pair<std::shared_ptr<const serving::ServingTree>, QString>>>(
        [root](const JobContext&)
            -> Result<std::pair<std::shared_ptr<const serving::ServingTree>, QString>> {
            auto tree = serving::read_serving_tree(root);
            if (!tree) {
                return std::unexpected(tree.error());
            }
            auto shared = std::make_shared<const serving::ServingTree>(std::move(*tree));
            return std::pair{shared, text(serving::describe_tree_with_graphs(*shared))};
        },
        [this](Result<std::pair<std::shared_ptr<const serving::ServingTree>, QString>> result) {
            if (!result) {
                banner_->setText(text(result.error().describe()));
                return;
            }
            tree_ = result->first;
            treeModel_->setTree(tree_);
            treeView_->expandAll();
            banner_->setText(result->second);
            for (auto* button : {verify_, preflight_, pack_, unpack_, prune_}) {
                button->setEnabled(true);
            }
            emit loaded();
            // Nothing named: the first prefix, whose graphs say the most.
            QString first;
            if (!tree_->hash_dirs.empty()) {
                const auto& hash = tree_->hash_dirs.front();
                first = text(hash.path);
                if (!hash.ranks.empty() && !hash.ranks.front().prefixes.empty()) {
                    first = text(hash.ranks.front().prefixes.front().path);
                }
            }
            select(pendingSelection_.isEmpty() ? first : pendingSelection_);
        });
    return true;
}

void ServingPage::reload(const QString& select) {
    if (tree_) {
        // What the action said stays while the tree is read again.
        const QString said = details_->toPlainText();
        const auto root = tree_->root;
        setRoot(root);
        pendingSelection_ = select;
        details_->setPlainText(said);
        // Once, on the next selection shown: an older pending one is dropped.
        disconnect(keepDetails_);
        keepDetails_ = connect(this, &ServingPage::selectionShown, this, [this, said] {
            disconnect(keepDetails_);
            details_->setPlainText(said + QLatin1Char('\n') + details_->toPlainText());
        });
    }
}

void ServingPage::select(const QString& relative) {
    const QModelIndex index = treeModel_->indexOf(relative);
    if (index.isValid()) {
        treeView_->setCurrentIndex(index);
    }
}

void ServingPage::showSelection() {
    const QModelIndex current = treeView_->currentIndex();
    if (!current.isValid() || !tree_) {
        return;
    }
    const std::string relative =
        treeModel_->data(current, ServingTreeModel::RelativePathRole).toString().toStdString();
    const auto tree = tree_;
    why_->setText(tr("Reading %1…").arg(text(relative)));
    selectionJob_->run<SelectionView>(
        [tree, relative](const JobContext&) {
            SelectionView view;
            auto selection = serving::select_in_tree(*tree, relative);
            if (!selection || selection->hash_dir == nullptr) {
                view.why = selection ? QString() : text(selection.error().message);
                return view;
            }
            // Why this dir: against its nearest sibling by factors.
            if (auto why = serving::compare_hash_dirs(*tree, *selection->hash_dir)) {
                view.why = text(why->answer);
                // The answer names the first; the others, when there are more.
                if (why->changes.size() > 1) {
                    for (const auto& change : why->changes) {
                        view.why += QStringLiteral("\n  ") + text(serving::describe(change));
                    }
                }
                view.why += QObject::tr("\n(against %1%2)")
                                .arg(text(why->against),
                                     why->nearest ? QObject::tr(", the nearest by its factors")
                                                  : QString());
            } else {
                view.why = text(why.error().message);
            }
            if (selection->prefix != nullptr) {
                view.graphs =
                    serving::read_piecewise_graphs(*tree, *selection->prefix, true).graphs;
                if (selection->prefix->factors) {
                    view.details = factorsText(*selection->prefix->factors);
                }
                if (selection->prefix->index_error) {
                    view.details += QObject::tr("The index does not parse: %1\n")
                                        .arg(text(selection->prefix->index_error->describe()));
                }
            } else if (const auto* factors = selection->hash_dir->factors()) {
                view.details = factorsText(*factors);
            }
            return view;
        },
        [this](SelectionView view) {
            why_->setText(view.why);
            details_->setPlainText(view.details);
            graphs_->setGraphs(std::move(view.graphs));
            emit selectionShown();
        });
}

void ServingPage::startAction(const QString& label) {
    progress_->setVisible(true);
    progress_->setRange(0, 0);
    progress_->setFormat(label);
    stop_->setVisible(true);
    details_->setPlainText(label);
}

void ServingPage::endAction(const QString& details, bool ok) {
    details_->setPlainText(details);
    emit statusMessage(details.section(QLatin1Char('\n'), 0, 0));
    emit actionDone(ok);
}

std::string ServingPage::selectedPath() const {
    return treeModel_->data(treeView_->currentIndex(), ServingTreeModel::RelativePathRole)
        .toString()
        .toStdString();
}

void ServingPage::verify() {
    if (!tree_) {
        return;
    }
    const auto tree = tree_;
    const std::string relative = selectedPath();
    startAction(tr("Verifying…"));
    actionJob_->run<std::pair<QString, bool>>(
        [tree, relative](const JobContext& context) -> std::pair<QString, bool> {
            auto selection = serving::select_in_tree(*tree, relative);
            if (!selection) {
                return {text(selection.error().message), false};
            }
            auto verified = serving::verify_serving_tree(*tree, *selection,
                                                         context.engineProgress(progressText));
            if (!verified) {
                return {text(verified.error().describe()), false};
            }
            const auto& report = verified->report;
            QString out =
                verified->clean()
                    ? QObject::tr("Verified: no problem in %1 and %2 (%3 checked).\n")
                          .arg(counted(verified->graphs_checked, "piecewise graph"))
                          .arg(counted(verified->inner_caches, "inner cache"))
                          .arg(counted(report.entries_checked, "entry"))
                    : QObject::tr("%1 found:\n").arg(counted(report.problems.size(), "problem"));
            out += problemsText(report);
            out += findingsText(verified->code);
            for (const auto& note : verified->notes) {
                out += QObject::tr("note: %1\n").arg(text(note));
            }
            return {out, verified->clean()};
        },
        [this](std::pair<QString, bool> result) { endAction(result.first, result.second); });
}

void ServingPage::askPreflight() {
    const QString target = QFileDialog::getExistingDirectory(
        this, tr("A cache dir made on the other machine (its vLLM hash dir, or any cache dir)"));
    if (!target.isEmpty()) {
        preflight(target);
    }
}

void ServingPage::preflight(const QString& target) {
    if (!tree_) {
        return;
    }
    const auto tree = tree_;
    const std::string relative = selectedPath();
    startAction(tr("Checking against %1…").arg(target));
    actionJob_->run<std::pair<QString, bool>>(
        [tree, relative, target](const JobContext& context) -> std::pair<QString, bool> {
            auto selection = serving::select_in_tree(*tree, relative);
            if (!selection || selection->hash_dir == nullptr) {
                return {QObject::tr("Select a cache dir to check."), false};
            }
            const std::filesystem::path source = tree->root / selection->hash_dir->path;
            QString out;
            // vLLM's own hash first: a dir of other factors is never read there.
            const auto factors = serving::preflight_factors(source, target.toStdString());
            if (factors) {
                out += text(factors->answer) + QLatin1Char('\n');
                for (const auto& change : factors->changes) {
                    out +=
                        QStringLiteral("  ") + text(serving::describe(change)) + QLatin1Char('\n');
                }
            }
            auto scan = cachedir::scan_cache_dir(source);
            if (!scan) {
                return {text(scan.error().describe()), false};
            }
            const auto check =
                explain::preflight_against(explain::preflight_source(*scan), target.toStdString(),
                                           context.engineProgress(progressText));
            out += QTextDocumentFragment::fromHtml(preflightHtml(check)).toPlainText();
            const bool hits =
                (!factors || factors->changes.empty()) && check && check->report.all_can_hit();
            return {out, hits};
        },
        [this](std::pair<QString, bool> result) { endAction(result.first, result.second); });
}

void ServingPage::askPack() {
    const QString file = QFileDialog::getSaveFileName(this, tr("Pack the cache dir into"),
                                                      QString(), tr("cachelens packs (*.tar.zst)"));
    if (file.isEmpty()) {
        return;
    }
    const QString key = QFileDialog::getOpenFileName(
        this, tr("Sign with a private key (Cancel: unsigned)"), QString(), tr("Keys (*.key)"));
    pack(file, key);
}

void ServingPage::pack(const QString& file, const QString& key) {
    if (!tree_) {
        return;
    }
    const auto tree = tree_;
    const std::string relative = selectedPath();
    startAction(tr("Packing…"));
    actionJob_->run<std::pair<QString, bool>>(
        [tree, relative, file, key](const JobContext& context) -> std::pair<QString, bool> {
            auto selection = serving::select_in_tree(*tree, relative);
            if (!selection || selection->hash_dir == nullptr) {
                return {QObject::tr("Select a cache dir to pack."), false};
            }
            std::optional<bundle::PrivateKey> signer;
            if (!key.isEmpty()) {
                auto loaded = bundle::load_private_key(key.toStdString());
                if (!loaded) {
                    return {text(loaded.error().describe()), false};
                }
                signer = std::move(*loaded);
            }
            auto packed = serving::pack_hash_dir(*tree, *selection->hash_dir, file.toStdString(),
                                                 signer ? &*signer : nullptr,
                                                 context.engineProgress(progressText));
            if (!packed) {
                return {text(packed.error().describe()), false};
            }
            return {QObject::tr("Packed %1 into %2: %3 files, %4 (%5 compressed)%6.")
                        .arg(text(packed->manifest.hash_dir), file)
                        .arg(packed->manifest.files.size())
                        .arg(text(format_bytes(packed->manifest.bytes())),
                             text(format_bytes(packed->archive_bytes)),
                             packed->signer.empty() ? QString()
                                                    : QObject::tr(", signed by %1")
                                                          .arg(text(packed->signer.substr(0, 16)))),
                    true};
        },
        [this](std::pair<QString, bool> result) { endAction(result.first, result.second); });
}

void ServingPage::askUnpack() {
    const QString file = QFileDialog::getOpenFileName(this, tr("Unpack a cachelens pack"),
                                                      QString(), tr("cachelens packs (*.tar.zst)"));
    if (file.isEmpty()) {
        return;
    }
    const QString key = QFileDialog::getOpenFileName(
        this, tr("Require a signature by this public key (Cancel: none required)"), QString(),
        tr("Public keys (*.pub)"));
    // A look first: everything checked, nothing written; then the question.
    unpack(file, key, {}, true);
    connect(
        this, &ServingPage::actionDone, this,
        [this, file, key](bool ok) {
            if (ok && askBeforeWriting(this, tr("Unpack"),
                                       tr("Every check passed:\n\n%1\nUnpack into %2?")
                                           .arg(details_->toPlainText(),
                                                QString::fromStdString(tree_->root.string())))) {
                unpack(file, key, {}, false);
            }
        },
        Qt::SingleShotConnection);
}

void ServingPage::unpack(const QString& file, const QString& requireSignature,
                         const QStringList& allowCode, bool dryRun) {
    if (!tree_) {
        return;
    }
    const std::filesystem::path into = tree_->root;
    startAction(dryRun ? tr("Checking the pack…") : tr("Unpacking…"));
    actionJob_->run<std::pair<QString, bool>>(
        [into, file, requireSignature, allowCode,
         dryRun](const JobContext& context) -> std::pair<QString, bool> {
            std::optional<bundle::PublicKey> key;
            if (!requireSignature.isEmpty()) {
                auto loaded = bundle::load_public_key(requireSignature.toStdString());
                if (!loaded) {
                    return {text(loaded.error().describe()), false};
                }
                key = *loaded;
            }
            serving::UnpackOptions options;
            options.into = into;
            options.require_signature = key ? &*key : nullptr;
            options.dry_run = dryRun;
            for (const auto& id : allowCode) {
                options.trust.allowed_ids.push_back(id.toStdString());
            }
            auto unpacked = serving::unpack_archive(file.toStdString(), options,
                                                    context.engineProgress(progressText));
            if (!unpacked) {
                return {text(unpacked.error().describe()), false};
            }
            const auto& result = *unpacked;
            QString out;
            if (result.already_present) {
                out = QObject::tr("%1 is already there, byte for byte.\n")
                          .arg(text(result.destination));
            } else if (!result.refused.empty()) {
                out = QObject::tr("Refused: %1 %2 code the audit does not pass; nothing "
                                  "written.\n")
                          .arg(counted(result.refused.size(), "file"))
                          .arg(result.refused.size() == 1 ? QObject::tr("holds")
                                                          : QObject::tr("hold"));
                out += findingsText(result.code, result.refused);
            } else if (result.written) {
                out = QObject::tr("Unpacked %1: %2 files, %3.\n")
                          .arg(text(result.destination))
                          .arg(result.manifest.files.size())
                          .arg(text(format_bytes(result.manifest.bytes())));
            } else {
                out = QObject::tr("%1: %2 files, %3.\n")
                          .arg(text(result.destination))
                          .arg(result.manifest.files.size())
                          .arg(text(format_bytes(result.manifest.bytes())));
            }
            out += QObject::tr("Packed %1 from: %2\n")
                       .arg(text(result.manifest.created), text(result.manifest.summary));
            out +=
                !result.is_signed ? QObject::tr("Unsigned.")
                : result.signature_verified
                    ? QObject::tr("Signature verified: %1").arg(text(result.signer.substr(0, 16)))
                    : QObject::tr("Signed (not checked: no public key given).");
            return {out, result.refused.empty()};
        },
        [this, dryRun](std::pair<QString, bool> result) {
            endAction(result.first, result.second);
            if (!dryRun && result.second && tree_) {
                reload(QString());
            }
        });
}

void ServingPage::askPrune() {
    bool ok = false;
    const QString size = QInputDialog::getText(
        this, tr("Prune"), tr("Keep the tree under this size (2G, 500M; 0: as small as it gets):"),
        QLineEdit::Normal, QStringLiteral("0"), &ok);
    if (!ok) {
        return;
    }
    auto bytes = parse_size(size.toStdString());
    if (!bytes) {
        details_->setPlainText(text(bytes.error().message));
        return;
    }
    const qint64 keep = 600;
    prune(static_cast<qint64>(*bytes), -1, keep, false);
    connect(
        this, &ServingPage::actionDone, this,
        [this, bytes = *bytes, keep](bool) {
            if (details_->toPlainText().contains(tr("would delete")) &&
                askBeforeWriting(this, tr("Prune"),
                                 details_->toPlainText() + tr("\nDelete them?"))) {
                prune(static_cast<qint64>(bytes), -1, keep, true);
            }
        },
        Qt::SingleShotConnection);
}

void ServingPage::prune(qint64 maxSize, qint64 olderThanSeconds, qint64 keepRecentSeconds,
                        bool run) {
    if (!tree_) {
        return;
    }
    const auto tree = tree_;
    startAction(run ? tr("Pruning…") : tr("Planning a prune…"));
    actionJob_->run<std::pair<QString, bool>>(
        [tree, maxSize, olderThanSeconds, keepRecentSeconds,
         run](const JobContext& context) -> std::pair<QString, bool> {
            serving::ServingPruneOptions options;
            if (maxSize >= 0) {
                options.max_size = static_cast<std::uint64_t>(maxSize);
            }
            if (olderThanSeconds >= 0) {
                options.older_than_ns = olderThanSeconds * 1'000'000'000;
            }
            options.keep_recent_ns = keepRecentSeconds * 1'000'000'000;
            const auto plan = serving::plan_serving_prune(*tree, options);
            QString out;
            if (!run) {
                out = plan.dirs.empty()
                          ? QObject::tr("Nothing to delete.\n")
                          : QObject::tr("would delete %1, %2, least recently "
                                        "written first:\n")
                                .arg(counted(plan.dirs.size(), "whole cache dir"))
                                .arg(text(format_bytes(plan.bytes_before - plan.bytes_after)));
                for (const auto& dir : plan.dirs) {
                    out += QStringLiteral("  %1  %2  last written %3\n")
                               .arg(text(dir.path), text(format_bytes(dir.bytes)),
                                    text(format_age(dir.newest_mtime_ns)));
                }
                for (const auto& dir : plan.kept) {
                    out += QObject::tr("  kept %1: %2\n").arg(text(dir.path), text(dir.why));
                }
                return {out, true};
            }
            const auto outcome =
                serving::run_serving_prune(*tree, plan, context.engineProgress(progressText));
            out = QObject::tr("Deleted %1, %2.\n")
                      .arg(counted(outcome.deleted.size(), "cache dir"))
                      .arg(text(format_bytes(outcome.bytes_freed)));
            for (const auto& dir : outcome.kept) {
                out += QObject::tr("  kept %1: %2\n").arg(text(dir.path), text(dir.why));
            }
            for (const auto& error : outcome.errors) {
                out += text(error.describe()) + QLatin1Char('\n');
            }
            return {out, outcome.errors.empty()};
        },
        [this, run](std::pair<QString, bool> result) {
            endAction(result.first, result.second);
            if (run) {
                reload(QString());
            }
        });
}

} // namespace cachelens::ui
