#include "dialogs/import_dialog.h"

#include "models/import_plan_model.h"
#include "text/counted.h"
#include "text/engine_text.h"
#include "text/preflight_text.h"
#include "text/stats_text.h"
#include "widgets/findings_panel.h"
#include "widgets/job_status_line.h"
#include "widgets/plan_table.h"

#include <cachelens/bundle/import.h>
#include <cachelens/bundle/signed_bundle.h>
#include <cachelens/bundle/signing.h>
#include <cachelens/core/format.h>

#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QTextDocumentFragment>
#include <QVBoxLayout>

namespace cachelens::ui {

namespace fs = std::filesystem;

namespace {

// "NVIDIA H100 80GB HBM3 (sm90), CUDA 13.0, Triton 3.6.0, torch build bhbxfhox, torch
// 2.11.0+cu130", as `bundle ls` says it.
QString factsText(const bundle::SourceFacts& facts) {
    const cachedir::Fingerprint machine = facts.fingerprint();
    return machine.environment.empty() && machine.torch_version.empty() ? QString()
                                                                        : text(machine.describe());
}

} // namespace

struct ImportDialog::Loaded {
    std::shared_ptr<const bundle::BundleFile> file;
    QString facts;
};

ImportDialog::ImportDialog(JobPool& pool, fs::path bundleFile, fs::path destination,
                           QWidget* parent)
    : PlanDialog(pool,
                 {.objectPrefix = QStringLiteral("import"),
                  .runText = tr("&Import…"),
                  .runToolTip = tr("Write what the report marks \"would write\" (asks first); "
                                   "refused artifacts are never written"),
                  .confirmTitle = tr("Import")},
                 parent)
    , file_(std::move(bundleFile))
    , model_(new ImportPlanModel(this)) {
    setWindowTitle(tr("Import %1").arg(text(file_.filename().string())));

    bundleInfo_ = new QLabel(tr("Reading %1…").arg(text(file_.string()).toHtmlEscaped()));
    bundleInfo_->setObjectName(QStringLiteral("importBundle"));
    bundleInfo_->setTextFormat(Qt::RichText); // the text from the bundle in it is escaped
    bundleInfo_->setWordWrap(true);
    bundleInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    destination_ = new QLineEdit(text(destination.string()));
    destination_->setObjectName(QStringLiteral("importInto"));
    destination_->setToolTip(
        tr("The cache dir to write into (created when missing). PyTorch "
           "reads $TORCHINDUCTOR_CACHE_DIR, else torchinductor_$USER in $TMPDIR (else /tmp)."));
    browseDestination_ = new QPushButton(tr("&Browse…"));
    signer_ = new QLineEdit;
    signer_->setObjectName(QStringLiteral("importSigner"));
    signer_->setClearButtonEnabled(true);
    signer_->setPlaceholderText(tr("none: any bundle, signed or not"));
    signer_->setToolTip(tr("A public key (cachelens keygen): refuse anything but a bundle "
                           "signed with it"));
    browseSigner_ = new QPushButton(tr("Choose &key…"));
    auto* intoRow = new QHBoxLayout;
    intoRow->addWidget(destination_, 1);
    intoRow->addWidget(browseDestination_);
    auto* signerRow = new QHBoxLayout;
    signerRow->addWidget(signer_, 1);
    signerRow->addWidget(browseSigner_);
    // Labels with buddies: QFormLayout gives a row of a layout no mnemonic.
    auto* intoLabel = new QLabel(tr("&Into cache dir:"));
    intoLabel->setBuddy(destination_);
    auto* signerLabel = new QLabel(tr("Require &signature:"));
    signerLabel->setBuddy(signer_);
    auto* form = new QFormLayout;
    form->addRow(intoLabel, intoRow);
    form->addRow(signerLabel, signerRow);

    connect(destination_, &QLineEdit::textEdited, this, &ImportDialog::schedulePlan);
    connect(signer_, &QLineEdit::textChanged, this, &ImportDialog::schedulePlan);
    connect(browseDestination_, &QPushButton::clicked, this, &ImportDialog::chooseDestination);
    connect(browseSigner_, &QPushButton::clicked, this, &ImportDialog::chooseKey);

    table_ = makeImportPlanTable(QStringLiteral("importPlan"), model_);

    findings_ = new FindingsPanel(QStringLiteral("importFindings"));
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &ImportDialog::showSelectedFindings);
    connect(findings_, &FindingsPanel::allowedChanged, this, &ImportDialog::planNow);

    preflight_ = new QLabel;
    preflight_->setObjectName(QStringLiteral("importPreflight"));
    preflight_->setTextFormat(Qt::RichText); // the text from the bundle in it is escaped
    preflight_->setWordWrap(true);
    preflight_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    preflight_->setVisible(false);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(bundleInfo_);
    layout->addLayout(form);
    layout->addWidget(preflight_);
    layout->addWidget(errorBanner());
    layout->addWidget(statusLine());
    layout->addWidget(table_, 2);
    layout->addWidget(findings_, 1);
    layout->addWidget(buttonBox());
    resize(1300, 680);

    planNow();
}

fs::path ImportDialog::destination() const {
    return destination_->text().trimmed().toStdString();
}

QString ImportDialog::signerText() const {
    return signer_->text().trimmed();
}

void ImportDialog::setDestination(const fs::path& dir) {
    destination_->setText(text(dir.string()));
    planNow();
}

void ImportDialog::setRequiredSigner(const fs::path& publicKey) {
    signer_->setText(text(publicKey.string()));
    planNow();
}

bool ImportDialog::planWrites() const {
    return bundle_ && model_->plan() && model_->isDryRun() &&
           model_->count(bundle::ImportAction::Write) > 0;
}

void ImportDialog::clearPlan() {
    model_->clear();
}

QString ImportDialog::confirmationText() const {
    return model_->confirmationText();
}

QString ImportDialog::bundleText() const {
    return QTextDocumentFragment::fromHtml(bundleInfo_->text()).toPlainText();
}

QString ImportDialog::preflightText() const {
    return QTextDocumentFragment::fromHtml(preflight_->text()).toPlainText();
}

void ImportDialog::showPhase(Phase phase) {
    for (QWidget* input : std::initializer_list<QWidget*>{destination_, browseDestination_, signer_,
                                                          browseSigner_}) {
        input->setEnabled(phase != Phase::Running);
    }
}

void ImportDialog::startPlan() {
    if (loadedSigner_ != signerText()) {
        load();
    } else {
        replan(); // a bundle that could not be read is not read again for another dir
    }
}

void ImportDialog::load() {
    bundle_.reset();
    model_->clear();
    findings_->clearAllowed(); // ids belong to this bundle as this key reads it
    findings_->showArtifact(nullptr);
    const fs::path file = file_;
    loadedSigner_ = signerText();
    const std::optional<fs::path> key = loadedSigner_->isEmpty()
                                            ? std::nullopt
                                            : std::optional<fs::path>(loadedSigner_->toStdString());
    runPlanJob<Result<Loaded>>(
        {},
        [file, key](const JobContext&) -> Result<Loaded> {
            Loaded loaded;
            std::optional<bundle::PublicKey> signer;
            if (key) {
                auto publicKey = bundle::load_public_key(*key);
                if (!publicKey) {
                    return std::unexpected(std::move(publicKey.error()));
                }
                signer = *publicKey;
            }
            auto opened = bundle::open_bundle_file(file, signer ? &*signer : nullptr);
            if (!opened) {
                return std::unexpected(std::move(opened.error()));
            }
            if (opened->manifest) {
                loaded.facts = factsText(opened->manifest->source);
            } else {
                loaded.facts = factsText(bundle::source_facts(opened->bundle));
            }
            loaded.file = std::make_shared<const bundle::BundleFile>(std::move(*opened));
            return loaded;
        },
        [this](Result<Loaded> loaded) {
            if (!loaded) {
                bundleInfo_->setText(
                    tr("<b>%1</b>: cannot be imported").arg(text(file_.string()).toHtmlEscaped()));
                const QString error = text(loaded.error().describe());
                emit statusMessage(error);
                failed(error);
                return;
            }
            bundle_ = std::move(loaded->file);
            showBundle(*bundle_, loaded->facts);
            replan();
        });
}

void ImportDialog::showBundle(const bundle::BundleFile& file, const QString& facts) {
    QStringList lines;
    lines << tr("<b>%1</b> — %2")
                 .arg(text(file.path.filename().string()).toHtmlEscaped(),
                      text(file.path.string()).toHtmlEscaped());
    lines << tr("mega-cache bundle (%1 form, version %2): %3, %4")
                 .arg(QString::fromUtf8(bundle::to_string(file.bundle.form)))
                 .arg(file.bundle.version)
                 .arg(counted(file.bundle.artifact_count(), "artifact"))
                 .arg(text(format_bytes(file.size)));
    if (!file.manifest) {
        lines << tr("<b>Unsigned</b>: nothing says who made it.");
        if (!facts.isEmpty()) {
            lines << tr("Compiled on %1 (as its FX graphs say)").arg(facts.toHtmlEscaped());
        }
    } else {
        const QString signer = text(file.manifest->signer_fingerprint);
        lines << (file.signature_verified
                      ? tr("<b>Signed</b> by <tt>%1</tt>: the signature verifies with the "
                           "required key.")
                      : tr("<b>Signed</b> by <tt>%1</tt>, not verified: choose the signer's "
                           "public key under Require signature to check it."))
                     .arg(signer.toHtmlEscaped());
        lines << tr("Created %1").arg(text(file.manifest->created).toHtmlEscaped());
        if (!facts.isEmpty()) {
            lines << tr("Compiled on %1 (as the manifest says)").arg(facts.toHtmlEscaped());
        }
    }
    bundleInfo_->setText(lines.join(QStringLiteral("<br>")));
}

void ImportDialog::replan() {
    if (!bundle_) {
        return;
    }
    const fs::path dir = destination();
    // The row selected stays selected in the new plan (ticking Allow re-plans).
    const int selectedRow = table_->currentIndex().row();
    model_->clear();
    if (dir.empty()) {
        failed(tr("Choose the cache dir to import into."));
        return;
    }
    auto file = bundle_;
    // A signature verified with the required key lets code with findings in,
    // as --require-signature does; otherwise only the findings ticked Allow.
    const bundle::ImportRules rules{.max_artifact_bytes = bundle::ImportRules{}.max_artifact_bytes,
                                    .trust = {.allowed_ids = findings_->allowedIds(),
                                              .signed_by_trusted_key = file->signature_verified}};
    // The plan, and whether the bundle's graphs will hit on the machine the
    // dir belongs to (known from its own FX entries): `import --dry-run`.
    struct Planned {
        Result<bundle::ImportPlan> plan;
        Result<explain::TargetCheck> preflight;
    };
    runPlanJob<Planned>(
        tr("Checking every artifact against %1…").arg(text(dir.string())),
        [file, dir, rules](const JobContext& context) {
            auto plan = bundle::plan_import(file->bundle, dir, rules);
            // A big destination has many FX entries to learn the machine from:
            // shown as it goes, and stopped with the job.
            auto preflight = explain::preflight_against(
                explain::preflight_source(file->bundle, file->path.string()), dir,
                context.engineProgress([](const Progress& progress) {
                    return tr("Will it hit here? Reading %1 of %2 entries…")
                        .arg(progress.done)
                        .arg(progress.total);
                }));
            return Planned{std::move(plan), std::move(preflight)};
        },
        [this, selectedRow](Planned planned) {
            auto& plan = planned.plan;
            preflight_->setText(preflightHtml(planned.preflight));
            preflight_->setVisible(true);
            if (!plan) {
                failed(text(plan.error().describe()));
                return;
            }
            model_->setPlan(std::move(*plan), true);
            if (selectedRow >= 0 && selectedRow < model_->rowCount()) {
                table_->setCurrentIndex(model_->index(selectedRow, 0));
            }
            selectPendingArtifact();
            showSelectedFindings();
            const auto refused = model_->count(bundle::ImportAction::Refused);
            setStatus(model_->summaryText() +
                      (refused > 0 ? tr(". Refused artifacts are never written: select one for "
                                        "its findings, hover it for every reason.")
                                   : tr(". Nothing is written before you confirm.")));
            planShown();
        });
}

void ImportDialog::startRun() {
    auto file = bundle_;
    bundle::ImportPlan plan = *model_->plan();
    runWriteJob<bundle::ImportPlan>(
        tr("Importing into %1…").arg(text(plan.cache_dir.string())),
        [file, plan = std::move(plan)](const JobContext&) mutable {
            return bundle::run_import(std::move(plan), file->bundle);
        },
        [this](bundle::ImportPlan done) {
            const fs::path dir = done.cache_dir;
            model_->setPlan(std::move(done), false);
            showSelectedFindings();
            setStatus(model_->summaryText());
            runDone();
            emit statusMessage(tr("Imported %1 into %2: %3")
                                   .arg(text(file_.filename().string()), text(dir.string()),
                                        model_->summaryText()));
            emit imported(dir);
        });
}

void ImportDialog::selectArtifact(const QString& key) {
    pendingSelection_ = key;
    selectPendingArtifact();
}

void ImportDialog::selectPendingArtifact() {
    if (pendingSelection_.isEmpty() || !model_->plan()) {
        return;
    }
    for (int row = 0; row < model_->rowCount(); ++row) {
        if (model_->index(row, ImportPlanModel::KeyColumn).data().toString() == pendingSelection_) {
            table_->setCurrentIndex(model_->index(row, 0));
            break;
        }
    }
    pendingSelection_.clear();
}

void ImportDialog::showSelectedFindings() {
    findings_->showArtifact(model_->artifact(table_->currentIndex().row()));
}

void ImportDialog::chooseDestination() {
    const QString dir =
        QFileDialog::getExistingDirectory(this, tr("Import into cache dir"), destination_->text());
    if (!dir.isEmpty()) {
        setDestination(dir.toStdString());
    }
}

void ImportDialog::chooseKey() {
    const QString key =
        QFileDialog::getOpenFileName(this, tr("The signer's public key"), signer_->text(),
                                     tr("Public keys (*.pem *.pub);;All files (*)"));
    if (!key.isEmpty()) {
        setRequiredSigner(key.toStdString());
    }
}

} // namespace cachelens::ui
