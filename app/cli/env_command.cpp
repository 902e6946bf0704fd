// `cachelens env [--python PYTHON | --from DIR] [--json] [--output FILE]`:
// this machine's fingerprint, what its compiles write into their keys, for
// `preflight --target` to check a cache against before shipping it there.

#include "commands.h"
#include "output.h"
#include "progress_line.h"
#include "write_target.h"

#include <cachelens/cachedir/fingerprint.h>
#include <cachelens/cachedir/machine_fingerprint.h>
#include <cachelens/core/dir_handle.h>
#include <cachelens/core/format.h>
#include <cachelens/core/text.h>

#include <cstdio>

namespace cachelens::cli {

namespace {

struct EnvOptions {
    std::string python = "python3";
    std::string from;
    std::string output;
    double timeout_seconds = 300;
    bool json = false;
};

std::string joined(const std::vector<std::string>& items) {
    return items.empty() ? "none" : join(items);
}

void print_fingerprint(const cachedir::Fingerprint& machine) {
    std::printf("%s\n", machine.describe().c_str());
    std::printf("learnt from  %s", machine.learnt_from.c_str());
    if (const std::string agreement = machine.agreement(); !agreement.empty()) {
        std::printf(" (%s)", agreement.c_str());
    }
    std::printf("\ndevices      %s%s\n", joined(machine.device_types).c_str(),
                machine.runs_on_hip() ? " (HIP: ROCm's PyTorch names its GPUs cuda)" : "");
    std::vector<std::string> targets;
    for (const auto& target : machine.triton_targets) {
        targets.push_back(cachedir::describe_triton_target(target));
    }
    std::printf("triton       %s", joined(targets).c_str());
    if (!machine.triton_versions.empty()) {
        std::printf(" (Triton %s)", joined(machine.triton_versions).c_str());
    }
    std::printf("\n");
    if (!machine.gpu_names.empty() && machine.environment.device_name.empty()) {
        std::printf("gpu          %s (its benchmark cache)\n", joined(machine.gpu_names).c_str());
    }
    if (machine.inductor_config.empty()) {
        std::printf(machine.lists_devices()
                        ? "config       not known: it is what the program sets (a cache dir made "
                          "there shows it: --from DIR)\n"
                    : machine.fx_entries == 0
                        ? "config       not recorded: the dir has no FX graph entry\n"
                        : "config       not recorded: the dir's entries store no debug lines "
                          "(PyTorch 2.7 and older)\n");
        return;
    }
    const auto varying = machine.varying_config();
    std::printf("config       %zu Inductor settings", machine.inductor_config.size());
    if (varying.empty()) {
        std::printf(", the same in every FX entry\n");
        return;
    }
    std::printf("; %zu differ between FX entries:\n", varying.size());
    for (const auto& name : varying) {
        std::string values;
        for (const auto& value : machine.inductor_config.at(name)) {
            values +=
                (values.empty() ? "" : ", ") + value.text + " in " + std::to_string(value.graphs);
        }
        std::printf("  %s: %s\n", name.c_str(), values.c_str());
    }
}

int run_env(const EnvOptions& options) {
    ProgressLine progress(options.from.empty() ? "asking " + options.python + " (torch)"
                                               : "reading " + options.from,
                          options.json);
    auto machine =
        options.from.empty()
            ? cachedir::fingerprint_from_python(options.python,
                                                std::chrono::milliseconds(static_cast<std::int64_t>(
                                                    options.timeout_seconds * 1000)),
                                                progress.callback())
            : cachedir::fingerprint_of_target(options.from, progress.callback());
    if (!machine) {
        return report_failure(progress, machine.error(), "stopped: nothing was written");
    }
    progress.clear();
    const std::string json = cachedir::to_json(*machine);
    if (!options.output.empty()) {
        if (auto written = replace_file_atomically(options.output, json + "\n"); !written) {
            return report(written.error());
        }
    }
    if (options.json) {
        print_json(Json::parse(json));
        return kExitOk;
    }
    print_fingerprint(*machine);
    if (!options.output.empty()) {
        std::printf("written to   %s: check a cache against it with `cachelens preflight CACHE "
                    "--target %s`\n",
                    target_path(options.output).c_str(), options.output.c_str());
    }
    return kExitOk;
}

} // namespace

void add_env_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<EnvOptions>();
    auto* command = app.add_subcommand(
        "env",
        "This machine's fingerprint: what its torch.compile runs write into their cache keys "
        "(the GPU and its Triton target, CUDA or HIP, Triton, the torch build, the devices), "
        "asked of PyTorch itself: PYTHON runs a short script shipped with cachelens that "
        "imports torch and nothing else. Without torch there, --from DIR learns it from a "
        "cache dir made on that machine, with the Inductor config its compiles used. --output "
        "writes the JSON `preflight --target` reads. Exit 2 when PYTHON cannot run or has no "
        "torch");
    command->add_option("--python", options->python,
                        "the Python with torch to ask (default: python3 on PATH)");
    command->add_option("--from", options->from,
                        "learn it from this cache dir instead of asking Python");
    command->add_option("--output,-o", options->output,
                        "also write the fingerprint's JSON here (replaced whole)");
    command
        ->add_option("--timeout", options->timeout_seconds,
                     "seconds Python may take (importing torch and hashing its sources); "
                     "default 300")
        ->check(CLI::PositiveNumber);
    command->add_flag("--json", options->json,
                      "print {cachelens_fingerprint: 1, learnt_from, torch_version, environment: "
                      "{device_name, cuda, hip, triton, triton_key, torch_build, system_hash}, "
                      "device_types, triton_targets, inductor_config: {NAME: [{hash, value, "
                      "graphs}]}, fx_entries, agreeing}");
    command->callback([options, &exit_code] { exit_code = run_env(*options); });
}

} // namespace cachelens::cli
