#include <cachelens/cachedir/machine_fingerprint.h>
#include <cachelens/core/child_process.h>
#include <cachelens/core/text.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>

namespace cachelens::cachedir {

namespace {

// What PyTorch's FxGraphHashDetails would hash of this machine, as the debug
// lines FxGraphCachePickler.debug_lines() gives for it: the same hashes and
// the same text, so that environment_of() reads them as it reads a key's.
constexpr std::string_view kScript = R"PY(
import json, sys
sys.path[:] = [p for p in sys.path if p not in ("", ".")]

def fingerprint():
    try:
        import torch
        from torch._inductor import codecache
    except Exception as error:
        return {"error": "cannot import torch: %s: %s" % (type(error).__name__, error)}
    try:
        pickler = codecache.FxGraphCachePickler(
            torch.fx.GraphModule(torch.nn.Module(), torch.fx.Graph()))
    except TypeError:
        pickler = codecache.FxGraphCachePickler  # torch 2.5: class methods
    lines = ["[%s] torch_version: <bytes>" % pickler.get_hash(codecache.torch_key())]
    for name, value in codecache.CacheBase.get_system().items():
        lines.append("[%s] system_info[%s]: %s" % (pickler.get_hash(value), name, value))
    devices, targets = ["cpu"], []
    if torch.cuda.is_available():
        devices.append("cuda")
        properties = torch.cuda.get_device_properties(torch.cuda.current_device())
        if torch.version.hip:
            targets.append("hip " + properties.gcnArchName.split(":")[0])
        else:
            targets.append("cuda %d" % (properties.major * 10 + properties.minor))
    for other in ("xpu", "mps"):  # torch.xpu.is_available(), torch.backends.mps.is_available()
        backends = (getattr(torch, other, None), getattr(torch.backends, other, None))
        if any(getattr(backend, "is_available", lambda: False)() for backend in backends):
            devices.append(other)
    return {"torch_version": str(torch.__version__), "debug_lines": lines,
            "device_types": devices, "triton_targets": targets}

try:
    result = fingerprint()
except Exception as error:
    result = {"error": "%s: %s" % (type(error).__name__, error)}
print("cachelens-fingerprint: " + json.dumps(result))
sys.exit(3 if "error" in result else 0)
)PY";

constexpr std::string_view kMarker = "cachelens-fingerprint: ";

// The marked line: torch may print its own lines before it.
std::string_view marked_line(std::string_view out) {
    std::string_view found;
    std::size_t start = 0;
    while (start < out.size()) {
        const std::size_t end = std::min(out.find('\n', start), out.size());
        const std::string_view line = out.substr(start, end - start);
        if (line.starts_with(kMarker)) {
            found = line.substr(kMarker.size());
        }
        start = end + 1;
    }
    return found;
}

Result<std::vector<std::string>> strings(const nlohmann::json& list, const char* name,
                                         const std::string& python) {
    std::vector<std::string> out;
    if (!list.is_array()) {
        return fail(ErrorKind::Corrupt, std::string("its '") + name + "' is not a list", python);
    }
    for (const auto& item : list) {
        if (!item.is_string()) {
            return fail(ErrorKind::Corrupt, std::string("its '") + name + "' holds a non-string",
                        python);
        }
        out.push_back(item.get<std::string>());
    }
    return out;
}

} // namespace

std::string_view fingerprint_script() {
    return kScript;
}

Result<Fingerprint> fingerprint_from_python(const std::string& python,
                                            std::chrono::milliseconds timeout,
                                            const ProgressFn& progress) {
    const std::array<std::string, 3> argv = {python, "-c", std::string(kScript)};
    ChildLimits limits;
    limits.timeout = timeout;
    const std::string waiting = python + ": importing torch";
    limits.keep_going = [&] {
        return report_progress(progress,
                               {ProgressStage::Reading, ProgressUnit::Files, 0, 0, 0, waiting});
    };
    auto ran = run_child(argv, limits);
    if (!ran) {
        return std::unexpected(ran.error().kind == ErrorKind::Cancelled ? ran.error()
                                                                        : ran.error().at(python));
    }
    const std::string_view line = marked_line(ran->out);
    const nlohmann::json json = nlohmann::json::parse(line, nullptr, false);
    if (line.empty() || json.is_discarded() || !json.is_object()) {
        std::string said = last_lines(ran->err, 3);
        return fail(ErrorKind::Corrupt,
                    (ran->signal != 0 ? "ended by signal " + std::to_string(ran->signal)
                                      : "exited " + std::to_string(ran->exit_code)) +
                        " without printing a fingerprint" + (said.empty() ? "" : ": " + said),
                    python);
    }
    if (const auto error = json.find("error"); error != json.end()) {
        return fail(ErrorKind::NotFound, error->is_string() ? error->get<std::string>() : "failed",
                    python);
    }
    const auto field = [&](const char* name) {
        const auto found = json.find(name);
        return found == json.end() ? nlohmann::json() : *found;
    };
    auto lines = strings(field("debug_lines"), "debug_lines", python);
    auto devices = lines ? strings(field("device_types"), "device_types", python)
                         : std::unexpected(lines.error());
    auto targets = devices ? strings(field("triton_targets"), "triton_targets", python)
                           : std::unexpected(devices.error());
    if (!targets) {
        return std::unexpected(targets.error());
    }
    const nlohmann::json version = field("torch_version");
    if (!version.is_string()) {
        return fail(ErrorKind::Corrupt, "its 'torch_version' is not a string", python);
    }
    const std::vector<std::string_view> views(lines->begin(), lines->end());
    Fingerprint machine;
    machine.environment = environment_of(views);
    if (machine.environment.torch_build.empty()) {
        return fail(ErrorKind::Corrupt, "its debug lines name no torch build", python);
    }
    machine.torch_version = version.get<std::string>();
    std::ranges::sort(*devices);
    std::ranges::sort(*targets);
    machine.device_types = std::move(*devices);
    machine.triton_targets = std::move(*targets);
    machine.learnt_from = python + " (torch " + machine.torch_version + ")";
    return machine;
}

} // namespace cachelens::cachedir
