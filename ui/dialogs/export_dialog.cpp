#include "dialogs/export_dialog.h"

#include "jobs/bundle_work.h"
#include "jobs/job_tracker.h"
#include "text/counted.h"
#include "text/engine_text.h"
#include "text/stats_text.h"
#include "widgets/banner.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace cachelens::ui {

namespace fs = std::filesystem;

ExportDialog::ExportDialog(JobPool& pool, fs::path root, std::vector<std::string> keys,
                           QStringList ignored, QWidget* parent)
    : QDialog(parent)
    , job_(new JobTracker(pool, this))
    , root_(std::move(root))
    , keys_(std::move(keys)) {
    setWindowTitle(tr("Export selection"));

    auto* intro = new QLabel(
        tr("A bundle PyTorch's <tt>torch.compiler.load_cache_artifacts()</tt> loads, from "
           "<b>%1</b>: the %2 below, the AOT entries made of these FX graphs, the FX graphs "
           "those AOT entries are made of, and the best configs of their kernels.")
            .arg(text(root_.string()).toHtmlEscaped(), counted(keys_.size(), "entry")));
    intro->setTextFormat(Qt::RichText); // the root in it is escaped
    intro->setWordWrap(true);
    intro->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* keyList = new QPlainTextEdit;
    keyList->setObjectName(QStringLiteral("exportKeys"));
    keyList->setReadOnly(true);
    keyList->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    QStringList lines;
    for (const auto& key : keys_) {
        lines << text(key);
    }
    for (const auto& note : ignored) {
        lines << tr("# %1").arg(note);
    }
    keyList->setPlainText(lines.join(u'\n'));
    keyList->setMaximumHeight(keyList->fontMetrics().lineSpacing() *
                                  std::min<int>(8, static_cast<int>(lines.size()) + 1) +
                              12);

    const QString suggested = QDir::home().filePath(
        keys_.empty() ? QStringLiteral("bundle.bin") : text(keys_.front().substr(0, 12)) + ".bin");
    file_ = new QLineEdit(suggested);
    file_->setObjectName(QStringLiteral("exportFile"));
    browseFile_ = new QPushButton(tr("&Browse…"));
    sign_ = new QCheckBox(tr("&Sign with private key:"));
    sign_->setToolTip(tr("Write a signed cachelens bundle: a manifest and an Ed25519 signature "
                         "around the same PyTorch bundle (cachelens keygen makes a key)"));
    key_ = new QLineEdit;
    key_->setObjectName(QStringLiteral("exportKey"));
    key_->setPlaceholderText(tr("a private key file (PEM)"));
    key_->setEnabled(false);
    browseKey_ = new QPushButton(tr("Choose &key…"));
    browseKey_->setEnabled(false);
    auto* fileRow = new QHBoxLayout;
    fileRow->addWidget(file_, 1);
    fileRow->addWidget(browseFile_);
    auto* keyRow = new QHBoxLayout;
    keyRow->addWidget(key_, 1);
    keyRow->addWidget(browseKey_);
    // A label with a buddy: QFormLayout gives a row of a layout no mnemonic.
    auto* fileLabel = new QLabel(tr("&File:"));
    fileLabel->setBuddy(file_);
    auto* form = new QFormLayout;
    form->addRow(fileLabel, fileRow);
    form->addRow(sign_, keyRow);

    error_ = makeBanner(QStringLiteral("exportError"), BannerTone::Error);
    outcome_ = new QPlainTextEdit;
    outcome_->setObjectName(QStringLiteral("exportOutcome"));
    outcome_->setReadOnly(true);
    outcome_->hide();

    export_ = new QPushButton(tr("&Export"));
    export_->setDefault(true);
    buttons_ = new QDialogButtonBox(QDialogButtonBox::Close);
    buttons_->addButton(export_, QDialogButtonBox::AcceptRole);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(keyList);
    layout->addLayout(form);
    layout->addWidget(error_);
    layout->addWidget(outcome_, 1);
    layout->addStretch();
    layout->addWidget(buttons_);
    resize(760, 360);

    connect(sign_, &QCheckBox::toggled, this, [this] { updateButtons(); });
    connect(file_, &QLineEdit::textChanged, this, [this] { updateButtons(); });
    connect(key_, &QLineEdit::textChanged, this, [this] { updateButtons(); });
    connect(browseFile_, &QPushButton::clicked, this, &ExportDialog::chooseFile);
    connect(browseKey_, &QPushButton::clicked, this, &ExportDialog::chooseKey);
    connect(export_, &QPushButton::clicked, this, &ExportDialog::exportNow);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    updateButtons();
}

ExportDialog::~ExportDialog() = default; // a running export finishes: the file is whole

fs::path ExportDialog::outputFile() const {
    return file_->text().trimmed().toStdString();
}

void ExportDialog::setOutputFile(const fs::path& file) {
    file_->setText(text(file.string()));
}

void ExportDialog::setSigningKey(const std::optional<fs::path>& key) {
    sign_->setChecked(key.has_value());
    key_->setText(key ? text(key->string()) : QString());
}

QString ExportDialog::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

QString ExportDialog::outcomeText() const {
    return outcome_->isHidden() ? QString() : outcome_->toPlainText();
}

void ExportDialog::setBusy(bool busy) {
    busy_ = busy;
    updateButtons();
}

void ExportDialog::updateButtons() {
    const bool signing = sign_->isChecked();
    for (QWidget* input : std::initializer_list<QWidget*>{file_, browseFile_, sign_}) {
        input->setEnabled(!busy_);
    }
    key_->setEnabled(!busy_ && signing);
    browseKey_->setEnabled(!busy_ && signing);
    export_->setEnabled(!busy_ && !keys_.empty() && !file_->text().trimmed().isEmpty() &&
                        (!signing || !key_->text().trimmed().isEmpty()));
}

void ExportDialog::exportNow() {
    if (!export_->isEnabled()) {
        return;
    }
    const fs::path root = root_;
    const auto keys = keys_;
    const fs::path file = outputFile();
    const std::optional<fs::path> key =
        sign_->isChecked() ? std::optional<fs::path>(key_->text().trimmed().toStdString())
                           : std::nullopt;
    error_->hide();
    setBusy(true);
    emit statusMessage(
        tr("Exporting %1 to %2…").arg(counted(keys.size(), "entry"), text(file.string())));
    job_->run<Result<bundle_work::ExportOutcome>>(
        [root, keys, file, key](const JobContext&) {
            return bundle_work::exportBundle(root, keys, file, key);
        },
        [this](Result<bundle_work::ExportOutcome> written) {
            setBusy(false);
            if (!written) {
                const QString error = text(written.error().describe());
                error_->setText(error);
                error_->show();
                emit statusMessage(error);
                emit exported(error);
                return;
            }
            const bundle_work::ExportOutcome& outcome = *written;
            QStringList lines{outcome.summary()};
            for (const auto& note : outcome.notes) {
                lines << tr("note: %1").arg(note);
            }
            outcome_->setPlainText(lines.join(u'\n'));
            outcome_->show();
            emit statusMessage(outcome.summary());
            emit exported(outcome.summary());
        });
}

void ExportDialog::chooseFile() {
    const QString file = QFileDialog::getSaveFileName(
        this, tr("Export to bundle file"), file_->text(), tr("Bundles (*.bin);;All files (*)"));
    if (!file.isEmpty()) {
        setOutputFile(file.toStdString());
    }
}

void ExportDialog::chooseKey() {
    const QString key =
        QFileDialog::getOpenFileName(this, tr("Sign with private key"), key_->text(),
                                     tr("Private keys (*.pem *.key);;All files (*)"));
    if (!key.isEmpty()) {
        setSigningKey(key.toStdString());
    }
}

} // namespace cachelens::ui
