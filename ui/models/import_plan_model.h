#pragma once

// The import dialog's safety report: one row per artifact of a bundle, what
// importing does with it (would write, already present, conflict, refused;
// after the import: written, failed), its type, key, size, where it goes,
// what its content parses to, its verdict (data only, Inductor code, code
// with findings, unreadable) and why it is refused. Refused, conflicting and
// failed rows are tinted; a row's tooltip lists the code it runs, every
// finding, problem and note.

#include "models/plan_table_model.h"

#include <cachelens/bundle/import.h>

#include <optional>

namespace cachelens::ui {

class ImportPlanModel : public PlanTableModel {
    Q_OBJECT

public:
    enum Column {
        ActionColumn,
        VerdictColumn,
        TypeColumn,
        KeyColumn,
        SizeColumn,
        DestinationColumn,
        ParsesToColumn,
        ProblemsColumn,
        ColumnCount
    };
    // ActionRole: the row's bundle::ImportAction.

    explicit ImportPlanModel(QObject* parent = nullptr);

    // A plan from plan_import (`dryRun`: nothing written yet) or run_import.
    void setPlan(bundle::ImportPlan plan, bool dryRun);
    void clear();

    const std::optional<bundle::ImportPlan>& plan() const { return plan_; }
    std::size_t count(bundle::ImportAction action) const;
    const bundle::PlannedArtifact* artifact(int row) const;

    // "would write" before the import, the engine's word otherwise.
    static QString actionText(bundle::ImportAction action, bool dryRun);
    // "Inductor code", "code with findings (2 refusing)", "code with
    // findings (allowed)", "code with findings (trusted signer)": the verdict
    // and what the rules made of it; "(refused)" when another problem
    // refuses the artifact whatever is allowed (as the CLI says it).
    static QString verdictText(const bundle::ArtifactCheck& check);
    // As the CLI ends its report: "7 artifacts: 7 to write, 0 already
    // present, 0 conflicts, 0 refused".
    QString summaryText() const;
    // What the import and pull dialogs ask before they write: how many
    // files, into which dir (absolute), and what is left alone; empty
    // without a plan.
    QString confirmationText() const;

private:
    int rows() const override;
    QString display(int row, int column) const override;
    std::uint64_t bytes(int row) const override;
    int action(int row) const override;
    bool needsALook(int row) const override;
    QVariant background(int row) const override;
    QString toolTip(int row) const override;

    std::optional<bundle::ImportPlan> plan_;
};

} // namespace cachelens::ui
