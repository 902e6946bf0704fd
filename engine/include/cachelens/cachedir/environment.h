#pragma once

// The environment an FX graph entry was compiled for, read from its cache
// key's debug lines: what another machine must match for the entry to hit
// there. PyTorch hashes into every key the torch build (`torch_version`: the
// raw bytes of its source hash, never shown, compared by the line's hash) and
// `system_info` (codecache.py get_system(): the GPU's name, the CUDA or HIP
// version, Triton's key, and a hash of all of them).

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cachelens::cachedir {

struct Environment {
    std::string torch_build;    // the hash of the torch_version line: equal builds, equal hashes
    std::string device_name;    // "NVIDIA H100 80GB HBM3" (ROCm: the gcnArchName); empty: none
    std::string cuda_version;   // "13.0"
    std::string hip_version;    // on ROCm
    std::string triton_version; // "3.6.0": Triton's key without its source hashes
    std::string triton_key;     // the whole key: two builds of one version differ here
    std::string system_hash;    // system_info[hash]

    bool empty() const;
    bool operator==(const Environment&) const = default;
    // "NVIDIA H100 80GB HBM3, CUDA 13.0, Triton 3.6.0, torch build bhbxfhox"
    std::string describe() const;
    // Every field by its JSON name (device_name, cuda, hip, triton,
    // triton_key, torch_build, system_hash), in that order: what every JSON
    // output of an environment holds.
    std::vector<std::pair<std::string_view, const std::string*>> json_fields() const;
    std::vector<std::pair<std::string_view, std::string*>> json_fields(); // to fill them
};

// Triton's version from its key ("3.6.0" + the sha256 of its sources + more
// hashes after '-'); a plain version comes back as it is.
std::string triton_version_of_key(std::string_view key);

// Fields whose lines are absent, or do not read as get_system() writes
// them, stay empty.
Environment environment_of(std::span<const std::string_view> debug_lines);

} // namespace cachelens::cachedir
