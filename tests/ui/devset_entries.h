#pragma once

// Entries of the PyTorch fixtures the GUI suites open by key, and finding one.
//
// devset: an AOT entry whose forward graph is kFxWithWinner; that graph's
// kernel has four candidates and a best_config naming kWinner, compiled from
// kKernelModule. The mega-cache round trip: the re-run's forward graph
// differs from the original only in inductor_config[benchmark_kernel]; its
// backward graph also in gm. multi_dev: one key, two entries with different
// guards.

#include "data/entry_ref.h"
#include "test_paths.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_content.h>

#include <QtGlobal>

#include <filesystem>
#include <memory>
#include <string>

namespace cachelens::test {

inline constexpr const char* kAot = "abu7pt4eila3mfcr5aubtsh7wla337mwggd6us6baoj33q4uwte3";
inline constexpr const char* kFxWithWinner = "f4h6wj3z2ch3hwiotz5hct4ivdtd6blgc4qcfuyiepcwtjzdmfuy";
inline constexpr const char* kFxSmall = "f3gunfwvnc2bijojank6na6pplhx6nopcc7cx3stulctblbl4cln";
inline constexpr const char* kKernelModule = "cnf5o5w6odimfhtjmrti5cer2hekx5pgyfkpq4zyd2efii4utvcp";
inline constexpr const char* kBestConfig =
    "nf/e4ba318612276f8fb2204775462f06fc309cce5bc0c4ddd85d51e606cbf9aa41.best_config";
inline constexpr const char* kWinner = "2NNRW3X2CAAVD2JMNKYZEQW4LQHPTFRFTALBPFV27IWAOPVZHTEA";
inline constexpr const char* kBenchmarkCache =
    "2b00ebb9d40b504fab0d8c9073411848066a922b8fa47b047b01c18e86e43158";

inline constexpr const char* kForward = "flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e";
inline constexpr const char* kForwardRerun = "fc4trgrb2j5vgs4efv523duie5glgxlqc4ue2pybjpnp2cbbaxm3";
inline constexpr const char* kBackward = "fiwfskr6jnfhbcay4vb2hbw3ngt6vnf7ucr3drdcawgx5smoly2r";
inline constexpr const char* kBackwardRerun =
    "folxik4i2juxcsspdnrabbfexfphfhs7onieu4g7a3bn22jbzqya";
inline constexpr const char* kDefault = "fugz3vdph3s6scj74ka3bp7bloh4sl3pw6itkd6kn3nlx4a3ngiq";

inline constexpr const char* kMultiKey = "ftk5o3esbiwgxl7lmk4qxfqciu7xafyi4yfigwtqep4irctgaowt";
inline constexpr const char* kMultiFirst = "hjhnw6azgd6tla6trsnehzke4j5doxsegqmai4fpurmrc2yqoas";
inline constexpr const char* kMultiSecond = "ndyhf46ldwmlkvpp4mky6repcjnctgzt5cojksekpxljmat467r";

// The one entry of fixtures/<fixtureRoot> that `query` (a key, name or path) finds.
inline ui::EntryRef refFor(const std::string& fixtureRoot, const std::string& query) {
    const auto root = fixture(fixtureRoot);
    auto scan = cachedir::scan_cache_dir(root);
    if (!scan) {
        qFatal("%s", scan.error().describe().c_str());
    }
    const auto entries = cachedir::find_entries(*scan, query);
    if (entries.size() != 1) {
        qFatal("%s: %zu entries for %s", fixtureRoot.c_str(), entries.size(), query.c_str());
    }
    return {root, entries.front()};
}

// An entry found as refFor() finds it, and its parsed content.
struct LoadedEntry {
    ui::EntryRef ref;
    std::shared_ptr<const cachedir::EntryContent> content;
};

inline LoadedEntry loadEntry(const std::filesystem::path& root, const std::string& query) {
    auto scan = cachedir::scan_cache_dir(root);
    if (!scan) {
        qFatal("%s", scan.error().describe().c_str());
    }
    const auto entries = cachedir::find_entries(*scan, query);
    if (entries.size() != 1) {
        qFatal("%zu entries for %s", entries.size(), query.c_str());
    }
    auto content = cachedir::load_entry(root, entries.front());
    if (!content) {
        qFatal("%s", content.error().describe().c_str());
    }
    return {{root, entries.front()},
            std::make_shared<const cachedir::EntryContent>(std::move(*content))};
}

} // namespace cachelens::test
