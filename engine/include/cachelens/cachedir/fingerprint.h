#pragma once

// A fingerprint: what a graph's cache key says about where it can hit. An FX
// graph's key names the environment it was compiled for (environment.h), the
// devices its graph runs on, and every Inductor config value; its kernels'
// Triton metadata names the architecture they were built for. A machine's
// fingerprint is what its own compiles write: learnt from a cache dir made
// there (the environment most of its FX entries name, the config value most
// of them have), or asked of PyTorch itself by `cachelens env`
// (machine_fingerprint.h). Its JSON form is what `cachelens env` prints and
// `preflight --target` reads.

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/environment.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/core/error.h>
#include <cachelens/core/progress.h>

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::cachedir {

// One value of an `inductor_config[name]` line: values compare by the
// line's hash.
struct InductorSetting {
    std::string hash;
    std::string text;       // "True", "'max-autotune'", as the line shows it
    std::size_t graphs = 1; // how many FX entries have it
};

struct Fingerprint {
    Environment environment;
    std::vector<std::string> device_types;   // "cpu", "cuda", sorted
    std::vector<std::string> triton_targets; // "cuda 90", "hip gfx942", sorted
    // By name, every value seen, the most common first; empty when not known
    // (a machine asked through Python: its config is whatever the user's
    // program sets).
    std::map<std::string, std::vector<InductorSetting>> inductor_config;
    std::string torch_version;  // "2.11.0+cu130": known only when asked through Python
    std::string learnt_from;    // "python3 (torch 2.11.0+cu130)", "cache dir /path"
    std::size_t fx_entries = 0; // FX entries read to learn a dir's
    std::size_t agreeing = 0;   // of them, those naming `environment`

    // "NVIDIA H100 80GB HBM3 (cuda 90), CUDA 13.0, Triton 3.6.0, torch build
    // bhbxfhox": the environment with the Triton targets after the GPU.
    std::string describe() const;
    // "NVIDIA H100 80GB HBM3 (cuda 90), CUDA 13.0, ... for cpu": the machine
    // it was compiled on, then the devices its graphs were compiled for
    // (said "compiled on ...": a CPU graph made beside a GPU is not for it).
    std::string describe_with_devices() const;
    // Whether device_types are the machine's devices (asked of its Python by
    // `cachelens env`), not only those its cache's graphs ran on.
    bool lists_devices() const { return !learnt_from.starts_with("cache dir"); }
    // The config names whose value is not the same in every FX entry.
    std::vector<std::string> varying_config() const;
};

// What one FX graph's key and kernels say (fx_entries and agreeing stay 0).
Fingerprint fingerprint_of(const FxGraphEntry& entry);

// FX entries' fingerprints gathered into their dir's, for whoever reads the
// entries anyway (scan parses every one).
class FingerprintTally {
public:
    void add(Fingerprint graph);
    // NotFound when nothing was added ("no FX graph entry ..." naming `root`).
    Result<Fingerprint> result(const std::filesystem::path& root) const;

private:
    Fingerprint machine_;
    std::vector<std::pair<Environment, std::size_t>> environments_; // each, how many name it
};

// The fingerprint of the machine that wrote `scan`'s FX entries: the
// environment most of them name (scan order breaks ties), every device and
// Triton target, and for each config name the value most of them have.
// NotFound when the dir has no readable FX entry; Cancelled on a stop.
Result<Fingerprint> fingerprint_of_dir(const Scan& scan, const ProgressFn& progress = {});

// The config values of `graph` (one FX entry's) that `reference` never has,
// among names both know: what a key compiled with one and looked up with the
// other would differ in.
struct ConfigDifference {
    std::string name;
    std::string graph_text;
    std::string reference_text; // its values, most common first: "False", "False or True"
};
std::vector<ConfigDifference> config_differences(const Fingerprint& graph,
                                                 const Fingerprint& reference);

// The JSON `cachelens env` prints, and back. Reading checks every field's
// type; errors name `file`.
std::string to_json(const Fingerprint& fingerprint);
Result<Fingerprint> fingerprint_from_json(std::string_view json, std::string_view file);
Result<Fingerprint> load_fingerprint(const std::filesystem::path& file);

// A machine named by what the user has of it: a fingerprint file (what
// `cachelens env --output` wrote) or a cache dir made there.
Result<Fingerprint> fingerprint_of_target(const std::filesystem::path& target,
                                          const ProgressFn& progress = {});

} // namespace cachelens::cachedir
