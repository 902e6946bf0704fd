#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/triton_kernel.h>
#include <cachelens/cachedir/verify.h>
#include <cachelens/hash/sha256.h>
#include <cachelens/pickle/unpickler.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <set>
#include <tuple>

namespace cachelens::cachedir {

namespace {

// An OnDiskCache value as PyTorch's get() would take it (keyed_cache.h).
std::vector<Problem> keyed_value_problems(const Entry& entry, const KeyedCacheValue& value) {
    std::vector<Problem> out;
    const auto add = [&](ProblemKind kind, std::string message) {
        out.push_back({entry.path, kind, std::move(message), out.size()});
    };
    if (!is_keyed_cache_value_name(entry.key)) {
        add(ProblemKind::NameMismatch, "not a name OnDiskCache gives (32 lowercase hex digits of "
                                       "sha256(pickle.dumps(key))): no key leads PyTorch to it");
    }
    const std::string current = std::to_string(kOnDiskCacheVersion);
    switch (value.version) {
    case ValueVersion::Current:
    case ValueVersion::Unknown: // never read: load_entry fails on it
        break;
    case ValueVersion::Stale:
        add(ProblemKind::Stale, "written by OnDiskCache version " +
                                    std::to_string(*value.prefix_version) + " (prefix " +
                                    value.prefix_hex + "); PyTorch (version " + current +
                                    ") deletes it the next time it reads this key");
        break;
    case ValueVersion::Bare:
        add(ProblemKind::Stale,
            "a pickle with no version prefix, written before OnDiskCache versioned its values; "
            "PyTorch (version " +
                current + ") deletes it the next time it reads this key");
        break;
    }
    return out;
}

class Verifier {
public:
    explicit Verifier(const Scan& scan)
        : scan_(scan)
        , entries_(scan.entries()) {
        for (const Entry& entry : entries_) {
            if (entry.kind == FileKind::FxGraph) {
                fx_keys_.insert(entry.key);
            } else if (entry.kind == FileKind::Triton) {
                triton_dirs_.insert(entry.key);
            }
        }
    }

    VerifyReport run() {
        for (const Error& error : scan_.errors) {
            std::error_code ec;
            const auto relative =
                std::filesystem::path(error.path).lexically_relative(scan_.root).generic_string();
            add(relative.empty() ? error.path : relative, ProblemKind::Unreadable, error.message);
        }
        // FX graphs first: the Triton kernels their bundles carry count as present
        // when the best_configs are checked.
        for (const Entry& entry : entries_) {
            if (entry.kind == FileKind::FxGraph) {
                ++report_.entries_checked;
                check(entry);
            }
        }
        for (const Entry& entry : entries_) {
            if (entry.kind != FileKind::FxGraph) {
                ++report_.entries_checked;
                check(entry);
            }
        }
        check_keyed_cache_locks();
        for (const std::string& dir : scan_.empty_key_dirs) {
            report_.warnings.push_back(
                {dir, ProblemKind::EmptyKeyDir,
                 "empty key dir (no entries): PyTorch misses on this key as if the dir were not "
                 "there; prune removes it once it is older than --keep-recent",
                 report_.warnings.size()});
        }
        // By path; a file's problems stay in the order they were found.
        std::sort(report_.problems.begin(), report_.problems.end(),
                  [](const Problem& a, const Problem& b) {
                      return std::tie(a.path, a.order) < std::tie(b.path, b.order);
                  });
        return std::move(report_);
    }

private:
    static std::int64_t now_ns() {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    }

    void add(std::string path, ProblemKind kind, std::string message) {
        const std::size_t order = report_.problems.size();
        report_.problems.push_back({std::move(path), kind, std::move(message), order});
    }

    void warn(std::string path, ProblemKind kind, std::string message) {
        const std::size_t order = report_.warnings.size();
        report_.warnings.push_back({std::move(path), kind, std::move(message), order});
    }

    // Whole seconds since `mtime_ns` when that is within kBeingWrittenNs: what
    // looks broken then is a writer at work (a temp file before its rename, a
    // lock before its value, a Triton dir before its group file).
    static std::optional<std::int64_t> seconds_if_recent(std::int64_t mtime_ns) {
        const std::int64_t age_ns = now_ns() - mtime_ns;
        if (age_ns >= kBeingWrittenNs) {
            return std::nullopt;
        }
        return std::max<std::int64_t>(0, age_ns) / 1'000'000'000;
    }

    void parse_failed(const Entry& entry, const Error& error) {
        if (is_written_in_place(entry.kind)) {
            if (const auto seconds = seconds_if_recent(entry.mtime_ns)) {
                warn(entry.path, ProblemKind::ParseError,
                     "being written: written in place " + std::to_string(*seconds) +
                         " s ago and not whole yet (" + error.message + ")");
                return;
            }
        }
        add(entry.path, ProblemKind::ParseError, error.message);
    }

    // Checks the name of a file named sha256_hash(bytes); returns the bytes.
    std::shared_ptr<const MappedFile> open_content_addressed(const Entry& entry) {
        auto file = MappedFile::open(scan_.root / entry.path);
        if (!file) {
            add(entry.path, ProblemKind::Unreadable, file.error().message);
            return nullptr;
        }
        const std::string_view name =
            std::string_view(entry.path).substr(entry.path.rfind('/') + 1);
        // PyTorch 2.4 to 2.7 named every AOTAutograd entry "entry" (vLLM
        // 0.8's caches have them): nothing to check the content against.
        if (entry.kind == FileKind::AotAutograd && name == "entry") {
            ++report_.names_not_content_addressed;
            return *file;
        }
        const std::string actual = hash::sha256_hash((*file)->bytes());
        if (actual == name) {
            ++report_.names_verified;
        } else {
            add(entry.path, ProblemKind::NameMismatch,
                "content hashes to " + actual +
                    ", not to its name: the file changed after PyTorch wrote it");
        }
        return *file;
    }

    // Checks the name of a pickled entry, then decodes it with `read`.
    template <class Read>
    auto decode_content_addressed(const Entry& entry, Read read) -> std::optional<
        typename std::invoke_result_t<Read, std::shared_ptr<const pickle::Document>>::value_type> {
        auto file = open_content_addressed(entry);
        if (!file) {
            return std::nullopt;
        }
        auto decoded = pickle::unpickle_as(std::move(file), read);
        if (!decoded) {
            parse_failed(entry, decoded.error());
            return std::nullopt;
        }
        return std::move(*decoded);
    }

    void check_fx_graph(const Entry& entry) {
        auto fx = decode_content_addressed(entry, [&](auto document) {
            return read_fx_graph_entry(std::move(document), entry.key);
        });
        if (!fx) {
            return;
        }
        for (const auto& kernel : fx->triton_artifacts) {
            bundled_triton_dirs_.insert(kernel.kernel_hash);
        }
        if (fx->key != entry.key) {
            add(entry.path, ProblemKind::KeyMismatch,
                "the entry is for key " + fx->key + " but sits under " + entry.key);
        }
        const std::string shard = entry.key.size() >= 3 ? entry.key.substr(1, 2) : entry.key;
        if (entry.path.rfind("fxgraph/" + shard + "/", 0) != 0) {
            add(entry.path, ProblemKind::Misplaced,
                "key " + entry.key + " belongs under fxgraph/" + shard + "/");
        }
    }

    void check_aot(const Entry& entry) {
        auto aot = decode_content_addressed(entry, read_aot_autograd_entry);
        if (!aot) {
            return;
        }
        for (const auto& [link, role] :
             {std::pair{&aot->forward, "forward"}, std::pair{&aot->backward, "backward"}}) {
            if (link->has_value() && !(*link)->bundled && !fx_keys_.contains((*link)->key)) {
                add(entry.path, ProblemKind::DanglingLink,
                    std::string("its ") + role + " graph " + (*link)->key +
                        " is not in fxgraph/: PyTorch will miss and recompile it");
            }
        }
    }

    void check_module(const Entry& entry) {
        auto loaded = load_entry(scan_.root, entry);
        if (!loaded) {
            return parse_failed(entry, loaded.error());
        }
        const auto& source = std::get<ModuleSource>(*loaded);
        if (source.module.is_autotune_template_candidate) {
            ++report_.names_not_content_addressed;
            return;
        }
        // PyTorch 2.2 on names a module by the hash of its text stripped,
        // 2.0 and 2.1 by the hash of its text as written.
        if (hash::code_hash_rule(entry.key, source.text())) {
            ++report_.names_verified;
        } else {
            add(entry.path, ProblemKind::NameMismatch,
                "code hash is " + hash::code_hash(hash::python_strip(source.text())) +
                    " (of its text stripped; " + hash::code_hash(source.text()) +
                    " as written), not its name: the module changed after PyTorch wrote it");
        }
    }

    void check_best_config(const Entry& entry, const BestConfig& best) {
        // PyTorch writes a bundled kernel to triton/ when it loads the FX entry
        // that carries it, so a kernel in any entry's bundle is as good as present.
        const auto& hash = best.triton_cache_hash;
        if (hash && !triton_dirs_.contains(*hash) && !bundled_triton_dirs_.contains(*hash)) {
            add(entry.path, ProblemKind::DanglingLink,
                "its winner's Triton kernel " + *hash +
                    " is neither under triton/ nor in any FX entry's bundle: the cubin did not "
                    "travel with the config");
        }
    }

    void check_triton(const Entry& entry, const TritonKernelDir& kernel) {
        // Triton puts a kernel's files one by one and its group file last: a dir
        // without one that was written to within the last minute is a compile
        // writing now, not a broken kernel (said as a warning, checked no further).
        const bool grouped = std::ranges::any_of(
            kernel.files, [](const TritonFile& f) { return is_triton_group_file_name(f.name); });
        const auto seconds = seconds_if_recent(entry.mtime_ns);
        if (!grouped && seconds) {
            warn(entry.path, ProblemKind::Incomplete,
                 "being written: no group file yet, its newest file written " +
                     std::to_string(*seconds) +
                     " s ago (Triton finds the kernel once its group file lands)");
            return;
        }
        if (!kernel.metadata) {
            add(entry.path, ProblemKind::Incomplete, "no metadata JSON");
            return;
        }
        // Triton 2.x recorded no hash: its dir's name (an md5 of the compile's
        // inputs) cannot be checked.
        if (kernel.metadata->hash.empty()) {
            ++report_.names_not_content_addressed;
        } else if (hash::is_triton_dir_name_of(kernel.hash, kernel.metadata->hash)) {
            ++report_.names_verified;
        } else {
            add(entry.path, ProblemKind::NameMismatch,
                "its metadata hash " + kernel.metadata->hash +
                    " names no dir by any Triton release's rule (" +
                    hash::triton_dir_from_hex(kernel.metadata->hash) + " from Triton 3.3 on)");
        }
        if (!kernel.has(".cubin") && !kernel.has(".hsaco") && !kernel.has(".spv")) {
            add(entry.path, ProblemKind::Incomplete, "no compiled binary (.cubin)");
        }
        // Triton looks a kernel up by its group file, written after every other
        // file (CompiledKernel needs get_group() to name the metadata JSON): a
        // dir without one, idle for a minute, is a compile that died.
        if (!grouped) {
            add(entry.path, ProblemKind::Incomplete,
                "no group file (__grp__" + kernel.kernel_name +
                    ".json): Triton finds nothing here and compiles the kernel again (a compile "
                    "that died: nothing was written here for a minute)");
        }
        // __grp__<name>.json lists the kernel's files. Triton loads a kernel from its
        // metadata and binary alone (missing IRs are skipped), so only those count.
        for (const auto& file : kernel.files) {
            if (!is_triton_group_file_name(file.name)) {
                continue;
            }
            auto text = read_text_file(scan_.root / entry.path / file.name);
            auto json = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
            // child_paths: {name: path} (Triton 3.x), or a list of names (2.x).
            if (!json.is_object() || !json.contains("child_paths") ||
                !(json["child_paths"].is_object() || json["child_paths"].is_array())) {
                add(entry.path + "/" + file.name, ProblemKind::ParseError,
                    "not a Triton group file (no child_paths)");
                continue;
            }
            warn_if_moved(entry, file.name, json["child_paths"]);
            std::vector<std::string> children;
            for (const auto& [name, value] : json["child_paths"].items()) {
                children.push_back(json["child_paths"].is_array() && value.is_string()
                                       ? value.get<std::string>()
                                       : name);
            }
            for (const auto& child : children) {
                const bool essential = child.ends_with(".json") || child.ends_with(".cubin") ||
                                       child.ends_with(".hsaco") || child.ends_with(".spv");
                const bool present =
                    std::any_of(kernel.files.begin(), kernel.files.end(),
                                [&](const TritonFile& f) { return f.name == child; });
                if (essential && !present) {
                    add(entry.path, ProblemKind::Incomplete,
                        "missing " + child + " (listed in " + file.name + ")");
                }
            }
        }
    }

    // Triton (3.0-3.6) records each file of a kernel by its absolute path and
    // get_group() keeps only the paths that exist: a Triton cache copied or
    // moved to another path finds nothing and compiles every kernel again.
    // (Newer Triton records names only; PyTorch rewrites the paths of the
    // kernels it restores from an FX entry, so an Inductor cache is spared.)
    void warn_if_moved(const Entry& entry, const std::string& group,
                       const nlohmann::json& children) {
        if (scan_.layout() != RootLayout::Triton || !children.is_object()) {
            return;
        }
        const std::filesystem::path here = std::filesystem::absolute(scan_.root / entry.path);
        for (const auto& [child, where] : children.items()) {
            if (!where.is_string()) {
                continue;
            }
            const std::filesystem::path recorded(where.get<std::string>());
            if (recorded.parent_path() != here && !std::filesystem::exists(recorded)) {
                warn(entry.path + "/" + group, ProblemKind::Moved,
                     "names its files under " + recorded.parent_path().string() +
                         ", where they are not: Triton finds nothing and compiles this kernel "
                         "again (the cache was copied or moved from there)");
                return;
            }
        }
    }

    void check_keyed_value(const Entry& entry, const KeyedCacheValue& value) {
        // The name hashes a key the cache does not keep: only its form can be checked.
        ++report_.names_not_content_addressed;
        for (auto& problem : keyed_value_problems(entry, value)) {
            add(std::move(problem.path), problem.kind, std::move(problem.message));
        }
    }

    // cache/<name>/locks/<4 hex>.lock guards the values of cache/<name>/ whose
    // names start with those 4 digits (OnDiskCache._flock_from_fpath).
    void check_keyed_cache_locks() {
        std::set<std::string, std::less<>> value_prefixes;
        for (const Entry& entry : entries_) {
            if (entry.kind == FileKind::KeyedCacheValue) {
                value_prefixes.insert("cache/" + entry.name + "/" + entry.key.substr(0, 4));
            }
        }
        for (const FileRecord& file : scan_.files) {
            const std::string_view path = file.path;
            if (file.kind != FileKind::Lock || !path.starts_with("cache/") ||
                !path.ends_with(".lock") || std::ranges::count(path, '/') != 3) {
                continue;
            }
            const auto locks = path.rfind("/locks/");
            if (locks == std::string_view::npos) {
                continue;
            }
            const std::string_view stem =
                path.substr(locks + 7, path.size() - locks - 7 - std::string_view(".lock").size());
            const std::string owner = std::string(path.substr(0, locks)) + "/" + std::string(stem);
            if (value_prefixes.contains(owner)) {
                continue;
            }
            if (const auto seconds = seconds_if_recent(file.mtime_ns)) {
                warn(std::string(path), ProblemKind::OrphanLock,
                     "being written: a lock taken " + std::to_string(*seconds) +
                         " s ago, its value not there yet (an insert in progress)");
            } else {
                add(std::string(path), ProblemKind::OrphanLock,
                    "a lock no value of " + std::string(path.substr(0, locks)) +
                        "/ uses (values named " + std::string(stem) +
                        "...): left by an insert that failed or a value removed since");
            }
        }
    }

    void check(const Entry& entry) {
        switch (entry.kind) {
        case FileKind::FxGraph:
            return check_fx_graph(entry);
        case FileKind::AotAutograd:
            return check_aot(entry);
        case FileKind::Module:
            return check_module(entry);
        case FileKind::CppSource:
            ++report_.names_not_content_addressed;
            return;
        case FileKind::Temp:
            if (const auto seconds = seconds_if_recent(entry.mtime_ns)) {
                warn(entry.path, ProblemKind::StrayTemp,
                     "being written: the temp file of an atomic write, written " +
                         std::to_string(*seconds) + " s ago");
            } else {
                add(entry.path, ProblemKind::StrayTemp,
                    "temp file of an atomic write that never finished (nothing written to it for "
                    "a minute)");
            }
            return;
        case FileKind::SharedLibrary:
        case FileKind::Lock:
        case FileKind::Unknown:
            return;
        default:
            break;
        }
        auto loaded = load_entry(scan_.root, entry);
        if (!loaded) {
            return parse_failed(entry, loaded.error());
        }
        if (const auto* best = std::get_if<BestConfig>(&*loaded)) {
            check_best_config(entry, *best);
        } else if (const auto* kernel = std::get_if<TritonKernelDir>(&*loaded)) {
            check_triton(entry, *kernel);
        } else if (std::holds_alternative<TritonAutotuneResult>(*loaded)) {
            // Its dir is named after a hash of Triton's version, the function's
            // source and the configs: parsing is all that can be checked.
            ++report_.names_not_content_addressed;
        } else if (const auto* value = std::get_if<KeyedCacheValue>(&*loaded)) {
            check_keyed_value(entry, *value);
        } else if (const auto* precompiled = std::get_if<PrecompileFile>(&*loaded)) {
            // Its dir is named by the function it holds: that is checked.
            for (const auto& problem : precompiled->problems) {
                add(entry.path,
                    problem.starts_with("the dir is named") ? ProblemKind::NameMismatch
                                                            : ProblemKind::ParseError,
                    problem);
            }
            if (!precompiled->expected_key.empty() && precompiled->expected_key == entry.key) {
                ++report_.names_verified;
            } else {
                ++report_.names_not_content_addressed;
            }
        } else if (const auto* output = std::get_if<AotiOutputDir>(&*loaded)) {
            for (const auto& problem : output->problems) {
                add(entry.path, ProblemKind::ParseError, problem);
            }
            ++report_.names_not_content_addressed;
        } else if (const auto* cache = std::get_if<BenchmarkCache>(&*loaded)) {
            if (!cache->system_hash.empty() && cache->system_hash != entry.key) {
                add(entry.path, ProblemKind::NameMismatch,
                    "holds system hash " + cache->system_hash + ", not its name");
            } else if (!cache->system_hash.empty()) {
                ++report_.names_verified;
            }
        }
    }

    const Scan& scan_;
    std::vector<Entry> entries_;
    std::set<std::string> fx_keys_;
    std::set<std::string> triton_dirs_;
    std::set<std::string> bundled_triton_dirs_;
    VerifyReport report_;
};

} // namespace

std::string_view to_string(ProblemKind kind) {
    switch (kind) {
    case ProblemKind::NameMismatch:
        return "name-mismatch";
    case ProblemKind::ParseError:
        return "parse-error";
    case ProblemKind::KeyMismatch:
        return "key-mismatch";
    case ProblemKind::Misplaced:
        return "misplaced";
    case ProblemKind::DanglingLink:
        return "dangling-link";
    case ProblemKind::Incomplete:
        return "incomplete";
    case ProblemKind::StrayTemp:
        return "stray-temp";
    case ProblemKind::Unreadable:
        return "unreadable";
    case ProblemKind::EmptyKeyDir:
        return "empty-key-dir";
    case ProblemKind::Moved:
        return "moved";
    case ProblemKind::Stale:
        return "stale";
    case ProblemKind::OrphanLock:
        return "orphan-lock";
    case ProblemKind::Unsafe:
        return "unsafe";
    case ProblemKind::CrcMismatch:
        return "crc-mismatch";
    }
    return "problem";
}

VerifyReport verify_cache_dir(const Scan& scan) {
    return Verifier(scan).run();
}

Result<VerifyReport> verify_standalone_file(const StandaloneFile& file,
                                            const ProgressFn& progress) {
    VerifyReport report;
    report.entries_checked = 1;
    if (const auto* value = std::get_if<KeyedCacheValue>(&file.content)) {
        ++report.names_not_content_addressed;
        report.problems = keyed_value_problems(file.entry, *value);
    }
    if (const auto* archive = std::get_if<pt2::Archive>(&file.content)) {
        const auto add = [&](std::string path, ProblemKind kind, std::string message) {
            report.problems.push_back(
                {std::move(path), kind, std::move(message), report.problems.size()});
        };
        for (const auto& problem : archive->problems) {
            add(file.entry.path, ProblemKind::ParseError, problem);
        }
        auto crcs = pt2::check_member_crcs(*archive, progress);
        if (!crcs) {
            return std::unexpected(crcs.error());
        }
        report.entries_checked = archive->members.size();
        for (const auto& check : *crcs) {
            const pt2::Member& member = archive->members[check.member];
            for (const auto& problem : member.problems) {
                add(member.name, ProblemKind::Unsafe, problem);
            }
            if (check.problem.empty()) {
                ++report.names_verified; // its crc
            } else {
                add(member.name, ProblemKind::CrcMismatch, check.problem);
            }
        }
    }
    return report;
}

} // namespace cachelens::cachedir
