#include <cachelens/bundle/export.h>
#include <cachelens/bundle/signed_bundle.h>
#include <cachelens/bundle/signing.h>
#include <cachelens/cachedir/aot_autograd_entry.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/core/dir_handle.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/hash/sha256.h>
#include <cachelens/pickle/unpickler.h>

#include <algorithm>
#include <map>
#include <set>
#include <system_error>

namespace cachelens::bundle {

namespace fs = std::filesystem;

namespace {

// The regular files directly in `dir`, sorted (PyTorch's lookup order), with
// temp files and locks left out. Empty when `dir` is not there.
std::vector<fs::path> entry_files(const fs::path& dir) {
    std::vector<fs::path> files;
    std::error_code error;
    for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
        const std::string name = it->path().filename().string();
        if (name.starts_with('.') || name.ends_with(".lock") || name.ends_with(".tmp") ||
            !it->is_regular_file(error) || it->is_symlink(error)) {
            continue;
        }
        files.push_back(it->path());
    }
    std::ranges::sort(files);
    return files;
}

std::vector<std::string> subdir_names(const fs::path& dir) {
    std::vector<std::string> names;
    std::error_code error;
    for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
        if (it->is_directory(error) && !it->is_symlink(error)) {
            names.push_back(it->path().filename().string());
        }
    }
    std::ranges::sort(names);
    return names;
}

// Reads a content-addressed file and checks its name is the hash of its bytes.
Result<std::string> read_addressed(const fs::path& file) {
    auto bytes = read_text_file(file, std::size_t{1} << 31, Links::Refuse);
    if (!bytes) {
        return bytes;
    }
    if (hash::sha256_hash(*bytes) != file.filename().string()) {
        return fail(ErrorKind::Corrupt,
                    "its name is not the hash of its bytes (damaged?): not exported; "
                    "`cachelens verify` tells more",
                    file.string());
    }
    return bytes;
}

// The entry the bytes just read from `file` hold, decoded with `read`: the
// file is not read and mapped again. Errors name the file.
template <class Read>
auto read_entry(const std::string& content, const fs::path& file, Read read)
    -> std::invoke_result_t<Read, std::shared_ptr<const pickle::Document>> {
    auto document = pickle::unpickle(content);
    if (!document) {
        return std::unexpected(std::move(document.error()).at(file.string()));
    }
    auto entry = read(std::move(*document));
    if (!entry) {
        return std::unexpected(std::move(entry.error()).at(file.string()));
    }
    return entry;
}

std::string fx_key_dir_name(std::string_view key) {
    return "fxgraph/" + std::string(key.substr(1, 2)) + "/" + std::string(key);
}

fs::path fx_key_dir(const fs::path& root, std::string_view key) {
    return root / fx_key_dir_name(key);
}

class Exporter {
public:
    Exporter(fs::path root, const ProgressFn& progress)
        : root_(std::move(root))
        , progress_(progress) {}

    // The Reading stage: how many files will be read is known only at the end.
    bool start() { return report_progress(progress_, read_); }
    bool finish_reading() {
        read_.total = read_.done;
        read_.item = {};
        return report_progress(progress_, read_);
    }

    Result<void> add_fx_key(const std::string& key) {
        if (!fx_keys_.insert(key).second) {
            return {};
        }
        const auto files = entry_files(fx_key_dir(root_, key));
        if (files.empty()) {
            return no_entries(fx_key_dir_name(key), "no FX graph entry with key " + key);
        }
        for (const auto& file : files) {
            auto content = read_addressed(file);
            if (!content) {
                return std::unexpected(content.error());
            }
            auto entry = read_entry(*content, file, [&](auto document) {
                return cachedir::read_fx_graph_entry(std::move(document), key);
            });
            if (!entry) {
                return std::unexpected(entry.error());
            }
            if (!counted(file, content->size())) {
                return cancelled();
            }
            for (const auto& autotuner : entry->autotuners) {
                if (auto added = add_best_config(autotuner.best_config_path, key); !added) {
                    return added;
                }
            }
            inductor_.push_back({key, std::move(*content)});
            inductor_sources_.push_back(relative(file));
        }
        return {};
    }

    Result<void> add_aot_key(const std::string& key) {
        if (!aot_keys_.insert(key).second) {
            return {};
        }
        const auto files = entry_files(root_ / "aotautograd" / key);
        if (files.empty()) {
            return no_entries("aotautograd/" + key, "no AOTAutograd entry with key " + key);
        }
        for (const auto& file : files) {
            auto content = read_addressed(file);
            if (!content) {
                return std::unexpected(content.error());
            }
            auto entry = read_entry(*content, file, cachedir::read_aot_autograd_entry);
            if (!entry) {
                return std::unexpected(entry.error());
            }
            if (!counted(file, content->size())) {
                return cancelled();
            }
            // The entry views the content, which moves on: its links' keys are kept.
            std::vector<std::string> links;
            for (const auto* link : {&entry->forward, &entry->backward}) {
                if (*link && !(*link)->bundled) { // a bundled graph travels inside the entry
                    links.push_back((*link)->key);
                }
            }
            aot_.push_back({key, std::move(*content)});
            aot_sources_.push_back(relative(file));
            for (const auto& link : links) {
                if (fx_keys_.contains(link)) {
                    continue;
                }
                if (entry_files(fx_key_dir(root_, link)).empty()) {
                    notes_.push_back("AOTAutograd entry " + key + " is made of FX graph " + link +
                                     ", which is not in the cache dir: PyTorch will compile "
                                     "that graph again");
                    continue;
                }
                if (auto added = add_fx_key(link); !added) {
                    return added;
                }
            }
        }
        return {};
    }

    // The AOT entries made of any exported FX graph, and what they bring.
    Result<void> add_linked_aot_entries() {
        for (bool grew = true; grew;) {
            grew = false;
            for (const auto& key : subdir_names(root_ / "aotautograd")) {
                if (aot_keys_.contains(key) || !links_to_exported(key)) {
                    continue;
                }
                if (auto added = add_aot_key(key); !added) {
                    return added;
                }
                grew = true;
            }
        }
        return {};
    }

    Result<void> add_everything() {
        // A key dir without entries is a miss to PyTorch: nothing to bring.
        for (const auto& shard : subdir_names(root_ / "fxgraph")) {
            for (const auto& key : subdir_names(root_ / "fxgraph" / shard)) {
                const std::string dir = "fxgraph/" + shard + "/" + key;
                if (entry_files(root_ / dir).empty()) {
                    notes_.push_back(cachedir::empty_key_dir_note(dir));
                } else if (auto added = add_fx_key(key); !added) {
                    return added;
                }
            }
        }
        for (const auto& key : subdir_names(root_ / "aotautograd")) {
            const std::string dir = "aotautograd/" + key;
            if (entry_files(root_ / dir).empty()) {
                notes_.push_back(cachedir::empty_key_dir_note(dir));
            } else if (auto added = add_aot_key(key); !added) {
                return added;
            }
        }
        // Best configs no exported graph names still belong to the dir.
        for (const auto& shard : subdir_names(root_)) {
            if (shard.size() != 2) {
                continue;
            }
            for (const auto& file : entry_files(root_ / shard)) {
                if (file.extension() == ".best_config") {
                    if (auto added = add_best_config(file.string(), {}); !added) {
                        return added;
                    }
                }
            }
        }
        for (const auto& file : entry_files(root_ / "dynamo")) {
            const std::string name = file.filename().string();
            if (name.starts_with("code_state_") && name.ends_with(".pkl")) {
                auto content = read_text_file(file, std::size_t{1} << 31, Links::Refuse);
                if (!content) {
                    return std::unexpected(content.error());
                }
                if (!counted(file, content->size())) {
                    return cancelled();
                }
                pgo_.push_back({name.substr(11, name.size() - 15), std::move(*content)});
                pgo_sources_.push_back(relative(file));
            }
        }
        return {};
    }

    ExportResult finish() {
        ExportResult result;
        auto add = [&](std::string type, std::vector<MegaArtifact>& artifacts,
                       std::vector<std::string>& sources) {
            if (!artifacts.empty()) {
                result.bundle.sections.push_back({std::move(type), std::move(artifacts)});
                result.sources.push_back(std::move(sources));
            }
        };
        add("inductor", inductor_, inductor_sources_);
        add("autotune", autotune_, autotune_sources_);
        add("aot_autograd", aot_, aot_sources_);
        add("pgo", pgo_, pgo_sources_);
        result.notes = std::move(notes_);
        return result;
    }

private:
    // A key named explicitly with no entry: not found, whether its dir is
    // missing or empty (the message says which).
    Result<void> no_entries(const std::string& key_dir, const std::string& missing) const {
        std::error_code error;
        return fail(ErrorKind::NotFound,
                    fs::is_directory(root_ / key_dir, error) ? cachedir::no_entries_message(key_dir)
                                                             : missing,
                    root_.string());
    }

    bool links_to_exported(const std::string& aot_key) const {
        for (const auto& file : entry_files(root_ / "aotautograd" / aot_key)) {
            auto entry = cachedir::load_aot_autograd_entry(file);
            if (!entry) {
                continue;
            }
            for (const auto* link : {&entry->forward, &entry->backward}) {
                if (*link && !(*link)->bundled && fx_keys_.contains((*link)->key)) {
                    return true;
                }
            }
        }
        return false;
    }

    std::string relative(const fs::path& file) const {
        return file.lexically_relative(root_).generic_string();
    }

    // One more file read: reported; whether to go on.
    bool counted(const fs::path& file, std::size_t bytes) {
        const std::string item = relative(file);
        ++read_.done;
        read_.bytes += bytes;
        read_.item = item;
        return report_progress(progress_, read_);
    }

    // `path` is where the compiling machine kept the best_config; the artifact
    // key is its last two components, as AutotuneCache.save records it.
    Result<void> add_best_config(const std::string& path, const std::string& fx_key) {
        if (path.empty()) {
            return {};
        }
        const fs::path compiled(path);
        const std::string key =
            compiled.parent_path().filename().string() + "/" + compiled.filename().string();
        if (!best_config_keys_.insert(key).second) {
            return {};
        }
        const fs::path file = root_ / key;
        auto content = read_text_file(file, std::size_t{16} << 20, Links::Refuse);
        if (!content) {
            notes_.push_back("best_config " + key + " (a kernel of " + fx_key +
                             ") is not in the cache dir: the kernel will autotune again");
            return {};
        }
        if (!counted(file, content->size())) {
            return cancelled();
        }
        autotune_.push_back({key, std::move(*content)});
        autotune_sources_.push_back(relative(file));
        return {};
    }

    fs::path root_;
    const ProgressFn& progress_;
    Progress read_{.stage = ProgressStage::Reading,
                   .unit = ProgressUnit::Files,
                   .done = 0,
                   .total = 0,
                   .bytes = 0,
                   .item = {}};
    std::set<std::string> fx_keys_;
    std::set<std::string> aot_keys_;
    std::set<std::string> best_config_keys_;
    std::vector<MegaArtifact> inductor_;
    std::vector<MegaArtifact> autotune_;
    std::vector<MegaArtifact> aot_;
    std::vector<MegaArtifact> pgo_;
    // Each artifact's file, relative to root_ (ExportResult::sources).
    std::vector<std::string> inductor_sources_;
    std::vector<std::string> autotune_sources_;
    std::vector<std::string> aot_sources_;
    std::vector<std::string> pgo_sources_;
    std::vector<std::string> notes_;
};

} // namespace

Result<ExportResult> export_bundle(const fs::path& cache_dir, const ExportRequest& request,
                                   const ProgressFn& progress) {
    std::error_code error;
    if (!fs::is_directory(cache_dir, error)) {
        return fail(ErrorKind::NotFound, "not a cache dir", cache_dir.string());
    }
    Exporter exporter(cache_dir, progress);
    if (!exporter.start()) {
        return cancelled();
    }
    if (request.keys.empty()) {
        if (auto added = exporter.add_everything(); !added) {
            return std::unexpected(added.error());
        }
        if (!exporter.finish_reading()) {
            return cancelled();
        }
        return exporter.finish();
    }
    // Keys as every command takes them (cachedir::resolve_entries): a scan
    // only when one is not a full key.
    std::optional<cachedir::Scan> scan;
    for (const auto& query : request.keys) {
        std::string key = query;
        if (key.size() != 52 || (key[0] != 'f' && key[0] != 'a')) {
            if (!scan) {
                auto scanned = cachedir::scan_cache_dir(cache_dir);
                if (!scanned) {
                    return std::unexpected(scanned.error());
                }
                scan = std::move(*scanned);
            }
            auto found = cachedir::resolve_entries(*scan, query);
            if (!found) {
                return std::unexpected(found.error());
            }
            const auto graph = std::ranges::find_if(*found, [](const cachedir::Entry& entry) {
                return entry.kind == cachedir::FileKind::FxGraph ||
                       entry.kind == cachedir::FileKind::AotAutograd;
            });
            if (graph == found->end()) {
                return fail(ErrorKind::InvalidArgument,
                            "'" + query + "' names " +
                                std::string(cachedir::to_string(found->front().kind)) + " " +
                                found->front().path +
                                ": export takes FX graph and AOTAutograd keys",
                            cache_dir.string());
            }
            key = graph->key;
        }
        const bool fx = key[0] == 'f';
        auto added = fx ? exporter.add_fx_key(key) : exporter.add_aot_key(key);
        if (!added) {
            return std::unexpected(added.error());
        }
    }
    if (auto added = exporter.add_linked_aot_entries(); !added) {
        return std::unexpected(added.error());
    }
    if (!exporter.finish_reading()) {
        return cancelled();
    }
    return exporter.finish();
}

Result<ExportedFile> export_bundle_file(const fs::path& cache_dir, const ExportFileRequest& request,
                                        const ProgressFn& progress) {
    std::optional<PrivateKey> key;
    if (request.signing_key) {
        auto loaded = load_private_key(*request.signing_key);
        if (!loaded) {
            return std::unexpected(loaded.error());
        }
        key = std::move(*loaded);
    }
    auto exported = export_bundle(cache_dir, {.keys = request.keys}, progress);
    if (!exported) {
        return std::unexpected(exported.error());
    }
    if (exported->bundle.artifact_count() == 0) {
        return fail(ErrorKind::NotFound, "nothing to export: no entries", cache_dir.string());
    }
    // Unsigned, the encoded bundle is its framing and views of the contents
    // the export read, written as they are: the bundle is in memory once.
    // Signing hashes and checks the whole signed file, made in memory.
    const EncodedMegaCache encoded = encode_mega_cache_pieces(exported->bundle);
    std::string signed_bytes;
    if (key) {
        std::string bytes;
        bytes.reserve(encoded.size());
        for (const auto piece : encoded.pieces()) {
            bytes += piece;
        }
        auto made = sign_bundle(bytes, *key);
        if (!made) {
            return std::unexpected(made.error());
        }
        signed_bytes = std::move(*made);
    }
    const std::string_view whole(signed_bytes);
    const std::span<const std::string_view> pieces =
        key ? std::span<const std::string_view>(&whole, 1) : encoded.pieces();
    std::size_t size = 0;
    hash::Sha256 sha256;
    for (const auto piece : pieces) {
        size += piece.size();
        sha256.update(piece);
    }
    const std::string item = request.file.string();
    Progress writing{.stage = ProgressStage::Writing,
                     .unit = ProgressUnit::Files,
                     .done = 0,
                     .total = 1,
                     .bytes = 0,
                     .item = item};
    if (!report_progress(progress, writing)) {
        return cancelled();
    }
    if (auto written = replace_file_atomically(request.file, pieces); !written) {
        return std::unexpected(written.error());
    }
    writing.done = 1;
    writing.bytes = size;
    // The file is written: a stop asked now has nothing left to stop.
    (void)report_progress(progress, writing);
    return ExportedFile{.bundle = std::move(exported->bundle),
                        .notes = std::move(exported->notes),
                        .size = size,
                        .sha256 = hash::to_hex(sha256.finish()),
                        .signer =
                            key ? std::optional(key->public_key().fingerprint()) : std::nullopt};
}

} // namespace cachelens::bundle
