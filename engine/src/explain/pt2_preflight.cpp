// Will an AOTInductor package load on another machine (explain/preflight.h)?

#include <cachelens/explain/preflight.h>

#include <algorithm>

namespace cachelens::explain {

namespace {

// The SM number of the target's CUDA GPU ("cuda 90" -> 90), if its
// fingerprint knows it.
std::optional<int> target_sm(const cachedir::Fingerprint& target) {
    for (const auto& triton_target : target.triton_targets) {
        if (triton_target.starts_with("cuda ")) {
            try {
                return std::stoi(triton_target.substr(5));
            } catch (const std::exception&) {
                return std::nullopt;
            }
        }
    }
    return std::nullopt;
}

void worsen(Pt2ModelCheck& check, PreflightOutcome outcome) {
    // Called right after the reason it comes from is added.
    if (!check.reasons.empty()) {
        check.reasons.back().effect = outcome;
    }
    if (outcome == PreflightOutcome::WillMiss ||
        (outcome == PreflightOutcome::CannotTell && check.outcome == PreflightOutcome::CanHit)) {
        check.outcome = outcome;
    }
}

Pt2ModelCheck check_model(const pt2::AotiModel& model, const cachedir::Fingerprint& target) {
    Pt2ModelCheck check;
    check.model = model.name;
    check.outcome = PreflightOutcome::CanHit;
    const std::string device = model.device_key();
    if (device.empty()) {
        check.reasons.push_back({"device", "the package records no device: PyTorch's loader "
                                           "refuses it (No device information found.)"});
        worsen(check, PreflightOutcome::WillMiss);
        return check;
    }
    const bool has_device =
        std::ranges::find(target.device_types, device) != target.device_types.end();
    if (device != "cpu" && !has_device) {
        if (!target.lists_devices()) {
            check.reasons.push_back(
                {"device", "compiled for " + device + "; the target's cache holds no " + device +
                               " graph, which does not say the machine has no " + device +
                               " device"});
            worsen(check, PreflightOutcome::CannotTell);
        } else {
            check.reasons.push_back(
                {"device", "compiled for " + device + "; the target has no " + device + " device"});
            worsen(check, PreflightOutcome::WillMiss);
        }
    }
    if (device == "cuda") {
        const auto wanted = target_sm(target);
        for (const auto& kernel : model.kernels) {
            if (!kernel.sm) {
                continue;
            }
            const int sm = *kernel.sm;
            if (!wanted) {
                check.reasons.push_back(
                    {"device", "its kernels are built for sm_" + std::to_string(sm) +
                                   "; the target's GPU architecture is not in its fingerprint"});
                worsen(check, PreflightOutcome::CannotTell);
            } else if (sm / 10 != *wanted / 10 || *wanted < sm) {
                check.reasons.push_back(
                    {"device", "its kernels are built for sm_" + std::to_string(sm) +
                                   "; the target's GPU is sm_" + std::to_string(*wanted) +
                                   ": a cubin runs only on its own architecture (a later minor "
                                   "version of it at most)"});
                worsen(check, PreflightOutcome::WillMiss);
            }
            break; // one kernel says what every kernel of the model was built for
        }
    }
    if (device == "cpu") {
        if (const auto isa = model.metadata_values.find("AOTI_CPU_ISA");
            isa != model.metadata_values.end() && !isa->second.empty()) {
            check.reasons.push_back(
                {"device", "compiled for the CPU features " + isa->second +
                               " of the machine that built it; the target's are not in its "
                               "fingerprint, and a CPU without them fails on the first call"});
            worsen(check, PreflightOutcome::CannotTell);
        }
    }
    return check;
}

} // namespace

std::size_t Pt2Preflight::count(PreflightOutcome outcome) const {
    return static_cast<std::size_t>(std::ranges::count(models, outcome, &Pt2ModelCheck::outcome));
}

std::string Pt2Preflight::answer() const {
    const std::size_t loads = count(PreflightOutcome::CanHit);
    std::string out = std::to_string(loads) + " of " + std::to_string(models.size()) +
                      (models.size() == 1 ? " model" : " models") + " can load on the target";
    if (loads < models.size()) {
        out += "; " + std::to_string(count(PreflightOutcome::WillMiss)) + " will not load, " +
               std::to_string(count(PreflightOutcome::CannotTell)) + " cannot tell";
    }
    return out;
}

bool Pt2Preflight::all_load() const {
    return !models.empty() && count(PreflightOutcome::CanHit) == models.size();
}

Pt2Preflight preflight_pt2(const pt2::Archive& archive, const cachedir::Fingerprint& target) {
    Pt2Preflight out;
    for (const auto& model : archive.models) {
        out.models.push_back(check_model(model, target));
    }
    out.notes.push_back("a package records neither the torch build nor the CUDA version its .so "
                        "was linked against: it loads only where the same libtorch is installed");
    if (archive.models.empty()) {
        out.notes.push_back("no AOTInductor model in it: nothing PyTorch's loader would load");
    }
    return out;
}

} // namespace cachelens::explain
