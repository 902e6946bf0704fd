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

#include <cachelens/cachedir/benchmark_cache.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/environment.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/cachedir/triton_kernel.h>
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

    // What the cache's own files say of the machine, beside its keys: the
    // GPU its benchmark cache (cache/) names, the Triton, CUDA and HIP
    // versions there and in its kernels' metadata. Known where the keys
    // record no environment: entries of PyTorch 2.7 and older store no debug
    // lines, and caches of 2.3 and older rarely have FX entries (the FX
    // graph cache was opt-in).
    std::vector<std::string> gpu_names;       // "NVIDIA GeForce RTX 3090", sorted
    std::vector<std::string> triton_versions; // "3.3.0", sorted
    std::vector<std::string> cuda_versions;   // "12.6"
    std::vector<std::string> hip_versions;    // "6.3.42131"
    bool has_machine_facts() const;
    // Whether its graphs run through HIP (ROCm), where PyTorch still names
    // the device "cuda": a HIP version, or a kernel targeting HIP.
    bool runs_on_hip() const;

    // "NVIDIA H100 80GB HBM3 (sm90), CUDA 13.0, Triton 3.6.0, torch build
    // bhbxfhox": the environment with the Triton targets after the GPU. When
    // the keys record no environment, what the files say, and that:
    // "NVIDIA GeForce RTX 3090 (sm86), Triton 3.3.0; the machine is not in the keys".
    std::string describe() const;
    // "NVIDIA H100 80GB HBM3 (cuda 90), CUDA 13.0, ... for cpu": the machine
    // it was compiled on, then the devices its graphs were compiled for
    // (said "compiled on ...": a CPU graph made beside a GPU is not for it).
    std::string describe_with_devices() const;
    // Whether device_types are the machine's devices (asked of its Python by
    // `cachelens env`), not only those its cache's graphs ran on.
    bool lists_devices() const { return !learnt_from.starts_with("cache dir"); }
    // describe(), the devices said after the machine.
    std::string describe_for(std::string_view devices) const;
    // "10 of its 50 FX entries name it", "1 of its 3 FX entries names it":
    // how many of a dir's entries record this environment in their keys;
    // empty when none does (or it was not learnt from a dir).
    std::string agreement() const;
    // The config names whose value is not the same in every FX entry.
    std::vector<std::string> varying_config() const;
};

// "sm86" for "cuda 86", "HIP gfx90a" for "hip gfx90a": a Triton target as
// people name it.
std::string describe_triton_target(std::string_view target);

// What one FX graph's key and kernels say (fx_entries and agreeing stay 0):
// its bundle's kernel metadata (targets, Triton version), or the
// DeviceProperties its wrapper's kernels were generated for.
Fingerprint fingerprint_of(const FxGraphEntry& entry);

// FX entries' fingerprints gathered into their dir's, for whoever reads the
// entries anyway (scan parses every one).
class FingerprintTally {
public:
    void add(Fingerprint graph);
    // The machine facts of the dir's other files.
    void add(const BenchmarkCache& benchmarks);
    void add(const TritonMetadata& kernel);
    // NotFound when neither an FX entry nor a machine fact was added ("no FX
    // graph entry ..." naming `root`).
    Result<Fingerprint> result(const std::filesystem::path& root) const;

private:
    void add_config(Fingerprint graph);

    Fingerprint machine_;
    // Each environment an entry's key records, how many name it (an entry
    // that records none is not counted: `agreeing` is of those that do).
    std::vector<std::pair<Environment, std::size_t>> environments_;
};

// The fingerprint of the machine that wrote `scan`'s FX entries: the
// environment most of them name (scan order breaks ties), every device and
// Triton target, and for each config name the value most of them have; and
// the machine facts of its benchmark cache and Triton kernels. NotFound when
// the dir has neither a readable FX entry nor a fact; Cancelled on a stop.
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
