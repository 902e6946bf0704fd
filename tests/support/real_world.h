#pragma once

// The caches tst_real_world and tst_real_world_models read, each with its
// facts (tests/data/real-world/README.md): the release miniatures
// tests/data/releases/make_release_caches.py writes into `work`, always, and
// the real corpus where this machine has it ($CACHELENS_REAL_WORLD, dirs
// separated by ':', else shared/real-world/). Facts come from
// tests/data/real-world/facts.py, which shares no code with cachelens. A
// step that fails (no python3, a generator error) stops the test binary: no
// test compares against a setup that did not happen.

#include <QJsonObject>
#include <QString>

#include <filesystem>
#include <vector>

namespace cachelens::test {

struct RealWorldSource {
    QString name;                // "mini/torch27-cuda-train-fxgraph", "real/torch27-..."
    std::filesystem::path dir;   // the source
    std::filesystem::path cache; // its cache/: the facts' paths are relative to it
    QJsonObject facts;
};

std::vector<RealWorldSource> real_world_sources(const std::filesystem::path& work);

} // namespace cachelens::test
