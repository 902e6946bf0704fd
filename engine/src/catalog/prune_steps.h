#pragma once

// Pruning a root (Catalog::plan_prune and Catalog::prune call these).

#include "sqlite.h"

#include <cachelens/catalog/catalog.h>
#include <cachelens/catalog/prune.h>

namespace cachelens::catalog {

Result<PrunePlan> plan_prune(const sql::Database& db, const std::string& location,
                             const PruneOptions& options);

Result<PruneOutcome> run_prune(sql::Database& db, const PrunePlan& plan,
                               const IndexOptions& index_options);

} // namespace cachelens::catalog
