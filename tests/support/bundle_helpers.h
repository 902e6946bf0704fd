#pragma once

// Small builders the bundle, import and remote suites share.

#include <cachelens/bundle/import.h>
#include <cachelens/bundle/mega_cache.h>

#include <QtGlobal>

#include <string>

namespace cachelens::test {

// A bundle of one artifact.
inline bundle::MegaBundle one_artifact(std::string type, std::string key, std::string content) {
    bundle::MegaBundle bundle;
    bundle.sections.push_back({std::move(type), {{std::move(key), std::move(content)}}});
    return bundle;
}

// The one artifact of a plan; stops the test binary when there is not exactly one.
inline const bundle::PlannedArtifact& only(const bundle::ImportPlan& plan) {
    if (plan.artifacts.size() != 1) {
        qFatal("expected one planned artifact, got %zu", plan.artifacts.size());
    }
    return plan.artifacts.front();
}

} // namespace cachelens::test
