#include "catalog_option.h"

namespace cachelens::cli {

void add_catalog_option(CLI::App& command, std::string& path) {
    command.add_option("--catalog", path,
                       "the catalog file (default $XDG_DATA_HOME/cachelens/catalog.sqlite)");
}

Result<catalog::Catalog> open_catalog(const std::string& path) {
    return catalog::Catalog::open(path.empty() ? catalog::default_catalog_path()
                                               : std::filesystem::path(path));
}

} // namespace cachelens::cli
