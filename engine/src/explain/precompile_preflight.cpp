#include <cachelens/explain/preflight.h>

#include <algorithm>

namespace cachelens::explain {

std::string PrecompilePreflight::answer() const {
    switch (outcome) {
    case PreflightOutcome::CanHit:
        return "The precompiled function can load on the target";
    case PreflightOutcome::WillMiss:
        return "The precompiled function will not load on the target: PyTorch refuses it and "
               "compiles again";
    case PreflightOutcome::CannotTell:
        break;
    }
    return "Cannot tell whether the precompiled function loads on the target";
}

PrecompilePreflight preflight_precompile(const cachedir::PrecompileFile& file,
                                         const cachedir::Fingerprint& target) {
    PrecompilePreflight out;
    const auto fails = [&](std::string category, std::string text) {
        out.reasons.push_back({std::move(category), std::move(text)});
        out.outcome = PreflightOutcome::WillMiss;
    };
    // Said only when nothing decides it will not load.
    std::vector<PreflightReason> unknowns;
    const auto cannot_tell = [&](std::string category, std::string text) {
        unknowns.push_back({std::move(category), std::move(text), PreflightOutcome::CannotTell});
    };
    const cachedir::PrecompileSystem& saved = file.system;
    if (!saved.recorded) {
        out.notes.push_back("the file records no system info: PyTorch checks nothing before it "
                            "runs the code, and it fails wherever it fails");
        out.reasons.push_back(
            {"environment", "nothing recorded to compare", PreflightOutcome::CannotTell});
        out.outcome = PreflightOutcome::CannotTell;
        return out;
    }
    out.outcome = PreflightOutcome::CanHit;
    if (!saved.python_version.empty()) {
        out.notes.push_back("needs Python " + saved.python_version +
                            " exactly (\"Compile package was created with a different Python "
                            "version\"): no fingerprint records the target's Python");
    }
    if (target.torch_version.empty()) {
        cannot_tell("environment", "torch " + saved.torch_version +
                                       ": the target's torch version is not known (`cachelens env "
                                       "-o FILE` run there records it)");
    } else if (target.torch_version != saved.torch_version) {
        fails("environment", "Compile package was created with a different PyTorch version: " +
                                 saved.torch_version + " -> " + target.torch_version);
    }
    const bool gpu = file.device_type == "cuda" || file.device_type == "xpu";
    const auto& env = target.environment;
    if (gpu && env.device_name.empty()) {
        if (!target.device_types.empty() &&
            std::ranges::find(target.device_types, file.device_type) == target.device_types.end()) {
            fails("device", file.device_type + " is not available on the target");
        } else {
            cannot_tell("device", "the target's GPU is not known");
        }
    }
    if (gpu && !env.device_name.empty()) {
        if (!saved.toolkit_version.empty() && !env.cuda_version.empty() &&
            saved.toolkit_version != env.cuda_version) {
            fails("environment", "Compile package was created with a different toolkit "
                                 "version: " +
                                     saved.toolkit_version + " -> " + env.cuda_version);
        }
        if (!saved.triton_version.empty() && saved.triton_version != "0.0" &&
            !env.triton_version.empty()) {
            // SystemInfo keeps (major, minor); a fingerprint the whole version.
            const auto first_dot = env.triton_version.find('.');
            const std::string major_minor =
                env.triton_version.substr(0, env.triton_version.find('.', first_dot + 1));
            if (major_minor != saved.triton_version) {
                fails("environment", "Compile package was created with a different Triton "
                                     "version: " +
                                         saved.triton_version + " -> " + env.triton_version);
            }
        }
        if (!saved.gpu_name.empty() && saved.gpu_name != env.device_name) {
            fails("device", "Compile package was created with different GPU: cached=" +
                                saved.gpu_name + ", current=" + env.device_name);
        }
    }
    if (out.outcome != PreflightOutcome::WillMiss && !unknowns.empty()) {
        out.outcome = PreflightOutcome::CannotTell;
        out.reasons = std::move(unknowns);
    }
    if (!file.problems.empty() && out.outcome != PreflightOutcome::WillMiss) {
        for (const auto& problem : file.problems) {
            fails("file", problem);
        }
    }
    return out;
}

} // namespace cachelens::explain
