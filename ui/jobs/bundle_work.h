#pragma once

// The GUI's bundle work that runs in jobs, kept out of the widgets: staging a
// bundle so that it can be browsed like a cache dir, exporting entries to a
// bundle file, and where those go by default.
//
// A bundle opened for browsing is imported (plan_import + run_import: the
// same safety checks as `cachelens import`) into a private dir under
// QStandardPaths::CacheLocation, laid out as bundle/staging.h says. The GUI
// treats such a root as read-only.

#include "data/entry_ref.h"
#include "jobs/job_tracker.h"

#include <cachelens/core/error.h>

#include <QString>
#include <QStringList>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cachelens::ui::bundle_work {

// <QStandardPaths::CacheLocation>/bundles.
std::filesystem::path stagingBase();
// bundle::is_staged_bundle() under `base` (the GUI's, by default).
bool isStagedBundle(const std::filesystem::path& root,
                    const std::filesystem::path& base = stagingBase());
// The bundle file a staged root was made from; nullopt when not recorded.
std::optional<std::filesystem::path> stagedOrigin(const std::filesystem::path& root);
// What staging reported, as StagedBundle::report wrote it; empty when not recorded.
QString stagedReport(const std::filesystem::path& root);

struct StagedBundle {
    std::filesystem::path file;
    std::filesystem::path root; // the staged cache dir
    std::size_t artifacts = 0;
    std::size_t staged = 0;  // written (or already there with the same bytes)
    std::size_t refused = 0; // unsafe: not materialised
    std::size_t failed = 0;  // conflicts and failed writes
    QString signer;          // the signer's fingerprint; empty for an unsigned bundle
    // One line per artifact not materialised: "refused autotune ../../x: why".
    QStringList problems;

    // "7 artifacts: 7 shown, 0 refused; unsigned", then the problem lines.
    QString report() const;
};

// Decodes `file` and materialises its safe artifacts into a fresh staging dir
// under `base` (any earlier staging of the same bytes is replaced). An error
// when the bundle cannot be read or staged.
Result<StagedBundle> stageBundle(const std::filesystem::path& file,
                                 const std::filesystem::path& base = stagingBase());

// Where PyTorch keeps its cache, as it decides it: cachedir::inductor_cache_dir().
std::filesystem::path defaultImportDir();

struct ExportOutcome {
    std::filesystem::path file;
    std::size_t artifacts = 0;
    QString sections;       // "2 inductor, 4 autotune, 1 aot_autograd"
    std::uint64_t size = 0; // of the file
    QString signer;         // the signing key's fingerprint; empty when unsigned
    QStringList notes;      // export_bundle's: what the bundle lacks and why

    // "7 artifacts written to FILE (2 inductor, ...), 1.8 MiB, signed by ..."
    QString summary() const;
};

// `cachelens export ROOT KEYS -o FILE [--sign KEY]`: bundle::export_bundle_file,
// its outcome in the dialog's words, or why nothing was written.
Result<ExportOutcome> exportBundle(const std::filesystem::path& root,
                                   const std::vector<std::string>& keys,
                                   const std::filesystem::path& file,
                                   const std::optional<std::filesystem::path>& privateKey);

} // namespace cachelens::ui::bundle_work
