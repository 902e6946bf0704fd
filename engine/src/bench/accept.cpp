// Rewriting a .best_config the way PyTorch writes one (AutotuneCache.save:
// json.dumps of {**kwargs, num_warps, num_stages, configs_hash,
// found_by_coordesc, time_taken_ms, triton_cache_hash}, then
// write_atomic), so that _load_cached_autotuning picks the candidate: it
// needs configs_hash unchanged and, unless found_by_coordesc with coordinate
// descent on, exactly one candidate whose kwargs, num_warps and num_stages
// equal the file's.

#include "../core/python_json.h"

#include <cachelens/bench/accept.h>
#include <cachelens/core/dir_handle.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/hash/sha256.h>
#include <cachelens/pickle/repr.h>

#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <set>
#include <utility>

namespace cachelens::bench {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using cachedir::BestConfig;
using cachedir::ConfigValue;
using cachedir::KernelConfig;

Json json_of(const ConfigValue& value) {
    return std::visit([](const auto& v) { return Json(v); }, value);
}

// --- What the plan and the file say.

bool same_launch_config(const KernelConfig& a, const KernelConfig& b) {
    return a.kwargs == b.kwargs && a.num_warps == b.num_warps && a.num_stages == b.num_stages;
}

bool same_best_config(const BestConfig& a, const BestConfig& b) {
    return a.config == b.config && a.configs_hash == b.configs_hash &&
           a.found_by_coordesc == b.found_by_coordesc && a.time_taken_ms == b.time_taken_ms &&
           a.triton_cache_hash == b.triton_cache_hash && a.other_fields == b.other_fields;
}

// .best_config names the cubin by its Triton dir (base32); the plans carry
// the hash in hex, as the FX bundle and the metadata JSON do.
std::string triton_dir_name(const std::string& hash) {
    const bool hex = hash.size() == 64 && std::all_of(hash.begin(), hash.end(), [](char c) {
                         return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                     });
    return hex ? hash::triton_dir_from_hex(hash) : hash;
}

std::string utc_stamp() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &utc);
    return text;
}

// --- Files.

// A file named by the user, through a held handle of its directory.
struct HeldFile {
    DirHandle dir;
    std::string name;
    fs::path path;
};

Result<HeldFile> hold(const fs::path& file) {
    auto dir = DirHandle::open_root(file.has_parent_path() ? file.parent_path() : fs::path("."));
    if (!dir) {
        return std::unexpected(dir.error());
    }
    return HeldFile{std::move(*dir), file.filename().string(), file};
}

// A file's bytes, and which file they are: its identity before and after the
// read agree, or it was being written meanwhile.
struct CheckedBytes {
    std::string bytes;
    FileIdentity identity;
    mode_t mode = 0;
};

Result<CheckedBytes> read_checked(const HeldFile& file) {
    auto before = file.dir.stat_entry(file.name);
    if (!before) {
        return std::unexpected(before.error());
    }
    auto bytes = file.dir.read_file(file.name, std::size_t{1} << 20);
    if (!bytes) {
        return std::unexpected(bytes.error());
    }
    auto after = file.dir.stat_entry(file.name);
    if (!*bytes || !after || FileIdentity::of(*after) != FileIdentity::of(*before)) {
        return fail(ErrorKind::InvalidArgument,
                    "changed while it was being read (PyTorch may be tuning it): nothing written, "
                    "plan again",
                    file.path.string());
    }
    return CheckedBytes{std::move(**bytes), FileIdentity::of(*after), after->st_mode & 07777};
}

// `<file>.cachelens-backup-<UTC time>`, or with a counter after it when a
// backup of that second exists: an existing backup is never overwritten.
Result<std::string> write_backup(const HeldFile& file, std::string_view bytes, mode_t mode) {
    const std::string base = file.name + ".cachelens-backup-" + utc_stamp();
    for (int counter = 0; counter < 1000; ++counter) {
        const std::string name = counter == 0 ? base : base + "-" + std::to_string(counter);
        auto written = file.dir.write_file(name, bytes, DirHandle::WriteMode::CreateOnly, mode);
        if (!written) {
            return std::unexpected(written.error());
        }
        if (*written) {
            return name;
        }
    }
    return fail(ErrorKind::Io, "too many backups of this second already",
                (file.path.parent_path() / base).string());
}

} // namespace

Result<AcceptOutcome> accept_candidate(const KernelCandidates& kernel, const LaunchPlan& plan,
                                       std::optional<double> time_ms, bool explored) {
    if (!kernel.best_config_path || !kernel.best_config) {
        return fail(ErrorKind::NotFound,
                    kernel.kernel_name + " has no .best_config: PyTorch keeps no autotune "
                                         "result for it to rewrite",
                    kernel.module.string());
    }
    const fs::path& file = *kernel.best_config_path;
    const auto is_plan = [&](const LaunchPlan& candidate) {
        return candidate.kernel_name == plan.kernel_name &&
               candidate.module_key == plan.module_key &&
               candidate.source.triton_hash == plan.source.triton_hash &&
               candidate.config == plan.config;
    };
    if (explored && !kernel.coordinate_descent_tuning) {
        return fail(ErrorKind::InvalidArgument,
                    "the explored config " + plan.config.describe() + " is not one of " +
                        kernel.kernel_name +
                        "'s cubins, and without coordinate descent PyTorch takes only those",
                    file.string());
    }
    if (plan.kernel_name != kernel.kernel_name ||
        (!explored && std::none_of(kernel.plans.begin(), kernel.plans.end(), is_plan))) {
        return fail(ErrorKind::InvalidArgument,
                    "the candidate " + plan.config.describe() + " (Triton " +
                        plan.source.triton_hash + ") is not one of " + kernel.kernel_name +
                        "'s cubins",
                    file.string());
    }
    if (!plan.config.num_warps || !plan.config.num_stages) {
        return fail(ErrorKind::InvalidArgument,
                    "the candidate " + plan.config.describe() +
                        " has no num_warps or num_stages, which PyTorch matches on",
                    file.string());
    }
    // PyTorch takes the file's config only when exactly one candidate matches it.
    const auto ambiguous =
        std::count_if(kernel.plans.begin(), kernel.plans.end(), [&](const LaunchPlan& other) {
            return other.source.triton_hash != plan.source.triton_hash &&
                   same_launch_config(other.config, plan.config);
        });
    if (ambiguous > 0) {
        return fail(ErrorKind::InvalidArgument,
                    "another cubin of " + kernel.kernel_name + " has the same config " +
                        plan.config.describe() + ": PyTorch would not know which one is meant",
                    file.string());
    }
    // (1e15 ms, some 30 000 years, keeps the int conversion defined.)
    if (time_ms && !(*time_ms >= 0 && *time_ms < 1e15)) {
        return fail(ErrorKind::InvalidArgument, "the time taken must be a number of ms >= 0",
                    file.string());
    }

    auto held = hold(file);
    if (!held) {
        return std::unexpected(held.error());
    }
    auto read = read_checked(*held);
    if (!read) {
        return std::unexpected(read.error());
    }
    const std::string* bytes = &read->bytes;
    auto current = cachedir::parse_best_config(*bytes);
    if (!current) {
        return std::unexpected(std::move(current.error()).at(file.string()));
    }
    if (!same_best_config(*current, *kernel.best_config)) {
        return fail(ErrorKind::InvalidArgument,
                    "changed since it was read (PyTorch may have tuned it again): nothing "
                    "written, plan again",
                    file.string());
    }
    const Json old = Json::parse(*bytes, nullptr, /*allow_exceptions=*/false);
    if (!old.contains("configs_hash")) {
        return fail(ErrorKind::Corrupt,
                    "has no configs_hash: PyTorch ignores it, and it cannot be rewritten "
                    "without one",
                    file.string());
    }

    // A key of the file is the config's own when a candidate has a kwarg of
    // that name (parse_best_config cannot tell kwargs from other numbers).
    std::set<std::string> replaced = {"num_warps",     "num_stages",       "num_ctas",
                                      "maxnreg",       "configs_hash",     "found_by_coordesc",
                                      "time_taken_ms", "triton_cache_hash"};
    for (const auto& candidate : kernel.plans) {
        for (const auto& kwarg : candidate.config.kwargs) {
            replaced.insert(kwarg.first);
        }
    }
    KernelConfig old_config = current->config;
    std::erase_if(old_config.kwargs,
                  [&](const auto& kwarg) { return !replaced.contains(kwarg.first); });

    // The keys of AutotuneCache.save, in its order.
    Json next = Json::object();
    for (const auto& [name, value] : plan.config.kwargs) {
        next[name] = json_of(value);
    }
    next["num_warps"] = *plan.config.num_warps;
    next["num_stages"] = *plan.config.num_stages;
    next["configs_hash"] = old.at("configs_hash");
    // As PyTorch writes it: a coordinate-descent kernel's winner is marked
    // found_by_coordesc (with the flag, _load_cached_autotuning takes the
    // config as written rather than looking for it among the heuristic
    // configs; why_not_launched_as_written says what 2.11 then does). Without
    // coordinate descent the flag is not read.
    if (kernel.coordinate_descent_tuning) {
        next["found_by_coordesc"] = true;
    } else {
        next["found_by_coordesc"] =
            same_launch_config(old_config, plan.config) && old.contains("found_by_coordesc")
                ? old.at("found_by_coordesc")
                : Json(false);
    }
    // PyTorch stores how long autotuning took, in whole ms (time_taken_ns //
    // 1_000_000); a given time is stored the same way, rounded down to an
    // int, as what the re-benchmark measured; without one the old value stays.
    if (time_ms) {
        next["time_taken_ms"] = static_cast<std::int64_t>(std::floor(*time_ms));
    } else {
        next["time_taken_ms"] = old.contains("time_taken_ms") ? old.at("time_taken_ms") : Json(0);
    }
    next["triton_cache_hash"] = plan.source.triton_hash.empty()
                                    ? Json(nullptr)
                                    : Json(triton_dir_name(plan.source.triton_hash));
    // Keys PyTorch adds after these (num_consumer_groups ... with warp
    // specialization) and any others stay as they were, in their order.
    for (const auto& [key, value] : old.items()) {
        if (!replaced.contains(key) && !next.contains(key)) {
            next[key] = value;
        }
    }
    std::string text;
    text += python_json_dumps(next);

    auto backup = write_backup(*held, *bytes, read->mode);
    if (!backup) {
        return std::unexpected(backup.error());
    }
    // PyTorch may write the file meanwhile: its result wins over ours. Only
    // the file read above is replaced (its mode kept); any other is left.
    if (auto written = held->dir.write_file(held->name, text, DirHandle::WriteMode::Replace, 0666,
                                            read->identity);
        !written) {
        (void)held->dir.remove_file(*backup);
        return std::unexpected(written.error());
    }
    return AcceptOutcome{file, file.parent_path() / *backup, current->config.describe(),
                         plan.config.describe()};
}

std::optional<std::string> why_not_launched_as_written(const KernelCandidates& kernel) {
    if (kernel.coordinate_descent_tuning) {
        return kernel.kernel_name +
               " tunes by coordinate descent (coordinate_descent_tuning in its inductor_meta): "
               "PyTorch 2.11 starts a new search from the config in its .best_config every "
               "time it loads the kernel and launches whichever neighbour wins there, so it "
               "would not launch this config as written";
    }
    return std::nullopt;
}

Result<void> restore_backup(const fs::path& backup, const fs::path& best_config) {
    auto bytes = read_text_file(backup, std::size_t{1} << 20);
    if (!bytes) {
        return std::unexpected(bytes.error());
    }
    auto held = hold(best_config);
    if (!held) {
        return std::unexpected(held.error());
    }
    // The file as it is now is what gets swapped out (its mode kept); one
    // written meanwhile is left as it is.
    if (auto written = held->dir.write_file(held->name, *bytes, DirHandle::WriteMode::Replace);
        !written) {
        return std::unexpected(written.error());
    }
    return {};
}

} // namespace cachelens::bench
