#include "widgets/findings_panel.h"

#include "models/findings_model.h"
#include "models/import_plan_model.h"
#include "text/engine_text.h"
#include "widgets/plan_table.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace cachelens::ui {

FindingsPanel::FindingsPanel(const QString& objectName, QWidget* parent)
    : QWidget(parent)
    , model_(new FindingsModel(this)) {
    setObjectName(objectName);
    summary_ = new QLabel;
    summary_->setObjectName(objectName + QStringLiteral("Summary"));
    summary_->setTextFormat(Qt::PlainText); // the code's names come from the bundle
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    table_ = makePlanTable(objectName + QStringLiteral("Table"), model_,
                           {
                               {FindingsModel::AllowColumn, 4},
                               {FindingsModel::IdColumn, 10},
                               {FindingsModel::WhereColumn, 11},
                               {FindingsModel::RuleColumn, 15},
                               {FindingsModel::TextColumn, 42},
                           });
    // Few rows, each read whole: the line and why it is a finding wrap.
    table_->setWordWrap(true);
    table_->setTextElideMode(Qt::ElideRight);
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(model_, &FindingsModel::allowToggled, this, [this](const QString& id, bool allow) {
        if (allow) {
            allowed_.insert(id);
        } else {
            allowed_.remove(id);
        }
        emit allowedChanged();
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(summary_);
    layout->addWidget(table_, 1);
    showArtifact(nullptr);
}

void FindingsPanel::showArtifact(const bundle::PlannedArtifact* artifact) {
    if (artifact == nullptr) {
        model_->clear();
        summary_->setText(tr("Select an artifact to see the code PyTorch would run from it and "
                             "its findings."));
        table_->setVisible(false);
        return;
    }
    const auto& check = artifact->check;
    QString summary =
        tr("%1 %2: %3")
            .arg(text(artifact->type), text(artifact->key), ImportPlanModel::verdictText(check));
    QStringList code;
    for (const auto& part : check.code) {
        code << text(part);
    }
    if (!code.isEmpty()) {
        summary += tr(". PyTorch would run %1").arg(code.join(QStringLiteral(", ")));
    }
    if (!check.readable && !check.problems.empty()) {
        summary +=
            (check.findings.empty() ? tr(". Refused: %1") : tr(". Refused whatever is allowed: %1"))
                .arg(text(check.problems.front()));
    } else if (check.consent == safety::CodeConsent::Refused) {
        summary += tr(". Read each finding; ticking Allow on every one lets it in.");
    } else if (check.consent == safety::CodeConsent::AllowedByUser) {
        summary += tr(". Let in: you allowed every finding.");
    } else if (check.consent == safety::CodeConsent::TrustedSigner) {
        summary += tr(". Let in: the bundle is signed by the key you require.");
    }
    summary_->setText(summary);
    model_->setFindings(check, allowed_);
    table_->setVisible(!check.findings.empty());
}

std::vector<std::string> FindingsPanel::allowedIds() const {
    std::vector<std::string> ids;
    for (const auto& id : allowed_) {
        ids.push_back(id.toStdString());
    }
    std::ranges::sort(ids);
    return ids;
}

void FindingsPanel::clearAllowed() {
    allowed_.clear();
}

QString FindingsPanel::summaryText() const {
    return summary_->text();
}

} // namespace cachelens::ui
