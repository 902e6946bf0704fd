#pragma once

// This machine's fingerprint as PyTorch computes it: what its compiles would
// write into their keys. Only PyTorch can say (the torch build is a hash of
// its installed sources, the GPU's name comes from the driver), so the user's
// own Python runs a short script shipped with cachelens in a child process.
// The script imports torch and nothing else: not from a cache, not from the
// working dir (it runs in "/" with the script dir off sys.path).

#include <cachelens/cachedir/fingerprint.h>
#include <cachelens/core/error.h>
#include <cachelens/core/progress.h>

#include <chrono>
#include <string>
#include <string_view>

namespace cachelens::cachedir {

// The script, run as `python -c <script>`. It prints one JSON object:
// torch_version, torch_build (the hash of the key's torch_version line),
// device_name, cuda, hip, triton_key, system_hash, device_types,
// triton_targets; or {"error": "..."} and exits 3.
std::string_view fingerprint_script();

// Runs `python` with the script. Errors name `python`: not found, no torch
// ("cannot import torch: ..."), a crash, output that is no fingerprint.
// `progress` hears one Reading report every tenth of a second while Python
// works; a stop kills it (Cancelled).
Result<Fingerprint> fingerprint_from_python(const std::string& python,
                                            std::chrono::milliseconds timeout,
                                            const ProgressFn& progress = {});

} // namespace cachelens::cachedir
