#include <cachelens/core/mapped_file.h>
#include <cachelens/core/work_dir.h>
#include <cachelens/serving/serving_tree.h>

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <set>
#include <span>

namespace cachelens::serving {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kRoot = "torch_compile_cache";
constexpr std::string_view kAotDir = "torch_aot_compile";
constexpr std::string_view kInductorCache = "inductor_cache";
constexpr std::string_view kTritonCache = "triton_cache";
// Index and factor files are a few KB; a larger one is not vLLM's.
constexpr std::size_t kMaxSmallFile = std::size_t{16} << 20;

bool is_lower_hex(std::string_view text) {
    return !text.empty() && std::ranges::all_of(text, [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    });
}

bool is_digits(std::string_view text) {
    return !text.empty() && std::ranges::all_of(text, [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<std::int64_t> to_int(std::string_view text) {
    if (!is_digits(text) || text.size() > 18) {
        return std::nullopt;
    }
    std::int64_t value = 0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
}

std::vector<std::string_view> split(std::string_view path) {
    std::vector<std::string_view> parts;
    while (!path.empty()) {
        const auto slash = path.find('/');
        parts.push_back(path.substr(0, slash));
        if (slash == std::string_view::npos) {
            break;
        }
        path.remove_prefix(slash + 1);
    }
    return parts;
}

std::string join(std::span<const std::string_view> parts) {
    std::string out;
    for (const auto part : parts) {
        out += (out.empty() ? "" : "/") + std::string(part);
    }
    return out;
}

std::string joined(std::string_view a, std::string_view b) {
    return a.empty() ? std::string(b) : std::string(a) + "/" + std::string(b);
}

bool is_index_name(std::string_view name) {
    return name == kVllmIndexName || name == kSglangIndexName ||
           name == "inductor_hash_cache.py"; // vLLM's first name for it (Dec 2024)
}

bool is_graph_name(std::string_view name) {
    return name == "computation_graph.py" || name == "transformed_code.py" ||
           name == "transformed_code_README.txt" ||
           (name.starts_with("computation_graph_") && name.ends_with(".py"));
}

// A file vLLM or SGLang wrote in a rank or prefix dir, by its name.
std::optional<cachedir::FileKind> classify_serving_file(std::string_view name) {
    if (is_index_name(name)) {
        return cachedir::FileKind::ServingIndex;
    }
    if (name == kFactorsFileName) {
        return cachedir::FileKind::ServingFactors;
    }
    if (is_graph_name(name)) {
        return cachedir::FileKind::ServingGraph;
    }
    if (name == "model") {
        return cachedir::FileKind::Precompile; // torch_aot_compile's save_compiled_function file
    }
    if (name.starts_with("model.") && name.ends_with(".tmp")) {
        return cachedir::FileKind::Temp; // an AOT save that never reached os.replace
    }
    if (name.starts_with("artifact_") && name.ends_with(".tmp")) {
        return cachedir::FileKind::Temp; // write_atomic's temp file of an artifact
    }
    if (parse_artifact_name(name)) {
        return cachedir::FileKind::CompiledArtifact;
    }
    if (name == ".vllm_compile.lock") {
        return cachedir::FileKind::Lock; // forks carrying vllm#26521's lock
    }
    return std::nullopt;
}

// The kind of a file inside an inner cache dir (its parts after the dir).
cachedir::FileKind classify_inner(std::span<const std::string_view> rest) {
    if (rest.empty()) {
        return cachedir::FileKind::Unknown;
    }
    return cachedir::classify(join(rest));
}

bool contains(const std::vector<std::string>& names, std::string_view name) {
    return std::ranges::find(names, name) != names.end();
}

struct DirListing {
    std::vector<std::string> dirs;
    std::vector<std::string> files;
    std::vector<std::string> links;
};

DirListing list_dir(const fs::path& dir) {
    DirListing out;
    std::error_code error;
    for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
        const auto status = it->symlink_status(error);
        if (error) {
            break;
        }
        const std::string name = it->path().filename().string();
        if (fs::is_symlink(status)) {
            out.links.push_back(name);
        } else if (fs::is_directory(status)) {
            out.dirs.push_back(name);
        } else if (fs::is_regular_file(status)) {
            out.files.push_back(name);
        }
    }
    std::ranges::sort(out.dirs);
    std::ranges::sort(out.files);
    return out;
}

bool has_rank_dirs(const fs::path& dir) {
    const auto listing = list_dir(dir);
    return std::ranges::any_of(listing.dirs, [](const std::string& name) {
        return parse_rank_dir_name(name).has_value();
    });
}

// Totals of everything under a dir, symlinks not followed.
void add_totals(const fs::path& dir, HashDir& hash_dir) {
    std::error_code error;
    fs::recursive_directory_iterator it(dir, fs::directory_options::none, error), end;
    for (; !error && it != end; it.increment(error)) {
        struct stat st {};
        if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
            continue;
        }
        ++hash_dir.files;
        hash_dir.bytes += static_cast<std::uint64_t>(st.st_size);
        hash_dir.newest_mtime_ns = std::max(
            hash_dir.newest_mtime_ns,
            static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec);
    }
}

Result<std::string> read_small_file(const fs::path& path) {
    auto file = MappedFile::open(path, kMaxSmallFile);
    if (!file) {
        return std::unexpected(file.error());
    }
    return std::string((*file)->bytes());
}

PrefixDir read_prefix_dir(const fs::path& root, std::string relative, std::string name,
                          const DirListing& listing) {
    PrefixDir prefix;
    prefix.name = std::move(name);
    prefix.path = std::move(relative);
    for (const auto& file : listing.files) {
        if (is_index_name(file)) {
            prefix.index_file = file;
            auto text = read_small_file(root / prefix.path / file);
            auto index = text ? parse_compile_index(*text)
                              : Result<CompileIndex>(std::unexpected(text.error()));
            if (index) {
                prefix.index = std::move(*index);
            } else {
                prefix.index_error = std::move(index.error()).at(joined(prefix.path, file));
            }
        } else if (file == kFactorsFileName) {
            auto text = read_small_file(root / prefix.path / file);
            auto factors = text ? parse_cache_key_factors(*text)
                                : Result<CacheKeyFactors>(std::unexpected(text.error()));
            if (factors) {
                prefix.factors = std::move(*factors);
            } else {
                prefix.factors_error = std::move(factors.error()).at(joined(prefix.path, file));
            }
        } else if (is_graph_name(file)) {
            prefix.graph_files.push_back(file);
        } else if (parse_artifact_name(file)) {
            std::error_code error;
            const auto size = fs::file_size(root / prefix.path / file, error);
            prefix.artifacts.push_back({file, false, error ? 0 : size});
        }
    }
    for (const auto& dir : listing.dirs) {
        if (parse_artifact_name(dir)) {
            prefix.artifacts.push_back({dir, true, 0});
        } else if (dir == kInductorCache) {
            prefix.inductor_cache = joined(prefix.path, dir);
        } else if (dir == kTritonCache) {
            prefix.triton_cache = joined(prefix.path, dir);
        }
    }
    std::ranges::sort(prefix.artifacts, {}, &ArtifactOnDisk::name);
    prefix.symlinks = listing.links;
    return prefix;
}

RankDir read_rank_dir(const fs::path& root, std::string relative, std::string name, RankName rank) {
    RankDir out;
    out.name = std::move(name);
    out.path = std::move(relative);
    out.rank = rank;
    const auto listing = list_dir(root / out.path);
    out.has_inductor_cache = contains(listing.dirs, std::string(kInductorCache));
    out.has_triton_cache = contains(listing.dirs, std::string(kTritonCache));
    out.has_model = contains(listing.files, std::string("model"));
    // vLLM 0.8: no prefix level, the rank dir holds the index itself.
    const bool flat = std::ranges::any_of(listing.files, [](const std::string& file) {
        return is_index_name(file) || file == kFactorsFileName || is_graph_name(file);
    });
    const auto with_rank_caches = [&](PrefixDir prefix) {
        if (prefix.inductor_cache.empty() && out.has_inductor_cache) {
            prefix.inductor_cache = joined(out.path, kInductorCache);
        }
        if (prefix.triton_cache.empty() && out.has_triton_cache) {
            prefix.triton_cache = joined(out.path, kTritonCache);
        }
        return prefix;
    };
    if (flat) {
        out.prefixes.push_back(with_rank_caches(read_prefix_dir(root, out.path, "", listing)));
    }
    for (const auto& dir : listing.dirs) {
        if (dir == kInductorCache || dir == kTritonCache) {
            continue;
        }
        // Any other dir is a prefix (its name is the model tag, whatever it is);
        // vllm-ascend's dev<N>/ level reads as one too, its prefixes unsplit.
        const std::string path = joined(out.path, dir);
        out.prefixes.push_back(
            with_rank_caches(read_prefix_dir(root, path, dir, list_dir(root / path))));
    }
    return out;
}

HashDir read_hash_dir(const fs::path& root, HashDir::Kind kind, std::string relative,
                      std::string name) {
    HashDir out;
    out.kind = kind;
    out.name = std::move(name);
    out.path = std::move(relative);
    const auto listing = list_dir(out.path.empty() ? root : root / out.path);
    out.has_inductor_cache = contains(listing.dirs, std::string(kInductorCache));
    for (const auto& dir : listing.dirs) {
        if (const auto rank = parse_rank_dir_name(dir)) {
            out.ranks.push_back(read_rank_dir(root, joined(out.path, dir), dir, *rank));
        }
    }
    if (kind == HashDir::Kind::Unhashed) {
        for (const auto& rank : out.ranks) {
            add_totals(root / rank.path, out);
        }
    } else {
        add_totals(root / out.path, out);
    }
    return out;
}

bool mentions_sglang(const fs::path& path) {
    for (const auto& part : path) {
        if (part == "sglang") {
            return true;
        }
    }
    return false;
}

} // namespace

std::string_view to_string(Stack stack) {
    return stack == Stack::Sglang ? "sglang" : "vllm";
}

std::string_view display_name(Stack stack) {
    return stack == Stack::Sglang ? "SGLang" : "vLLM";
}

cachedir::RootLayout layout_of(Stack stack) {
    return stack == Stack::Sglang ? cachedir::RootLayout::Sglang : cachedir::RootLayout::Vllm;
}

std::optional<RankName> parse_rank_dir_name(std::string_view name) {
    if (!name.starts_with("rank_")) {
        return std::nullopt;
    }
    // rank_<r>, rank_<r>_<dp>, or rank_<r>_<dp>_dev<N>
    std::vector<std::string_view> fields;
    std::string_view rest = name.substr(5);
    while (true) {
        const auto at = rest.find('_');
        fields.push_back(rest.substr(0, at));
        if (at == std::string_view::npos) {
            break;
        }
        rest.remove_prefix(at + 1);
    }
    if (fields.size() > 3) {
        return std::nullopt;
    }
    const auto number = [](std::string_view field) -> std::optional<int> {
        const auto value = to_int(field);
        if (!value || *value > 1'000'000) {
            return std::nullopt;
        }
        return static_cast<int>(*value);
    };
    const auto rank = number(fields[0]);
    if (!rank) {
        return std::nullopt;
    }
    RankName out{*rank, std::nullopt, std::nullopt};
    if (fields.size() >= 2) {
        out.dp_rank = number(fields[1]);
        if (!out.dp_rank) {
            return std::nullopt;
        }
    }
    if (fields.size() == 3) {
        if (!fields[2].starts_with("dev")) {
            return std::nullopt;
        }
        out.device = number(fields[2].substr(3));
        if (!out.device) {
            return std::nullopt;
        }
    }
    return out;
}

std::optional<ArtifactName> parse_artifact_name(std::string_view name) {
    constexpr std::string_view kArtifact = "artifact_";
    constexpr std::string_view kSubgraph = "_subgraph_";
    if (!name.starts_with(kArtifact)) {
        return std::nullopt;
    }
    const auto sub = name.rfind(kSubgraph);
    if (sub == std::string_view::npos) {
        return std::nullopt;
    }
    const auto graph = to_int(name.substr(sub + kSubgraph.size()));
    if (!graph) {
        return std::nullopt;
    }
    const std::string_view shape = name.substr(kArtifact.size(), sub - kArtifact.size());
    ArtifactName out;
    out.graph_index = *graph;
    if (shape == "shape_None") {
        return out;
    }
    if (shape.starts_with("shape_")) {
        const auto size = to_int(shape.substr(6));
        if (!size) {
            return std::nullopt;
        }
        out.shape = {CompileShape::Kind::Size, *size, *size};
        return out;
    }
    if (shape.starts_with("compile_range_")) {
        const std::string_view range = shape.substr(14);
        const auto middle = range.find('_');
        const auto start = to_int(range.substr(0, middle));
        const auto end =
            middle == std::string_view::npos ? std::nullopt : to_int(range.substr(middle + 1));
        if (!start || !end || *start > *end) {
            return std::nullopt;
        }
        out.shape = {CompileShape::Kind::Range, *start, *end};
        return out;
    }
    return std::nullopt;
}

const CacheKeyFactors* HashDir::factors() const {
    for (const auto& rank : ranks) {
        for (const auto& prefix : rank.prefixes) {
            if (prefix.factors) {
                return &*prefix.factors;
            }
        }
    }
    return nullptr;
}

const HashDir* ServingTree::find_hash_dir(std::string_view name) const {
    for (const auto& dir : hash_dirs) {
        if (dir.name == name || dir.path == name) {
            return &dir;
        }
    }
    return nullptr;
}

std::size_t ServingTree::rank_count() const {
    std::size_t count = 0;
    for (const auto& dir : hash_dirs) {
        count += dir.ranks.size();
    }
    return count;
}

std::vector<std::string> ServingTree::prefix_names() const {
    std::set<std::string> names;
    for (const auto& dir : hash_dirs) {
        for (const auto& rank : dir.ranks) {
            for (const auto& prefix : rank.prefixes) {
                if (!prefix.name.empty()) {
                    names.insert(prefix.name);
                }
            }
        }
    }
    return {names.begin(), names.end()};
}

std::optional<ServingLocation> locate_serving_tree(const fs::path& path) {
    std::error_code error;
    fs::path at = fs::weakly_canonical(path, error);
    if (error || !fs::is_directory(at, error)) {
        return std::nullopt;
    }
    // $VLLM_CACHE_ROOT, ~/.cache/sglang: the tree is their torch_compile_cache/.
    if (fs::is_directory(at / kRoot, error)) {
        return ServingLocation{at / kRoot, "", mentions_sglang(at) ? Stack::Sglang : Stack::Vllm};
    }
    // Walk up (a prefix dir is at most 4 levels below the root) to the first
    // dir that is a root: named torch_compile_cache, or the parent of a dir
    // holding rank dirs (a compilation_config.cache_dir of the user's own).
    std::vector<std::string> below;
    for (int level = 0; level <= 4 && !at.empty(); ++level) {
        const std::string name = at.filename().string();
        if (name == kInductorCache || name == kTritonCache || parse_artifact_name(name)) {
            return std::nullopt; // a cache dir of its own
        }
        bool is_root = name == kRoot;
        if (!is_root && below.empty()) {
            // Named itself: a dir whose children are hash dirs with ranks.
            for (const auto& dir : list_dir(at).dirs) {
                // vLLM and SGLang name them by 10 hex digits: an Inductor
                // cache's 2-character shard dirs are not listed.
                if ((dir.size() == 10 && is_lower_hex(dir) && has_rank_dirs(at / dir)) ||
                    dir == kAotDir) {
                    is_root = true;
                    break;
                }
            }
        }
        if (!is_root && below.size() == 1 && !parse_rank_dir_name(below.front()) &&
            has_rank_dirs(at / below.front())) {
            is_root = true; // at/<hash dir>/rank_*
        }
        if (is_root) {
            std::string relative;
            for (auto it = below.rbegin(); it != below.rend(); ++it) {
                relative = joined(relative, *it);
            }
            const Stack stack = mentions_sglang(at) ? Stack::Sglang : Stack::Vllm;
            return ServingLocation{at, relative, stack};
        }
        below.push_back(name);
        if (at == at.parent_path()) {
            break;
        }
        at = at.parent_path();
    }
    return std::nullopt;
}

Result<ServingTree> read_serving_tree(const fs::path& root) {
    std::error_code error;
    if (!fs::is_directory(root, error)) {
        return fail(ErrorKind::NotFound, "not a directory", root.string());
    }
    ServingTree tree;
    tree.root = root;
    tree.stack = mentions_sglang(root) ? Stack::Sglang : Stack::Vllm;
    const auto listing = list_dir(root);
    bool unhashed_ranks = false;
    for (const auto& dir : listing.dirs) {
        if (dir == kAotDir) {
            for (const auto& hash : list_dir(root / dir).dirs) {
                tree.hash_dirs.push_back(
                    read_hash_dir(root, HashDir::Kind::Aot, joined(dir, hash), hash));
            }
        } else if (parse_rank_dir_name(dir)) {
            unhashed_ranks = true;
        } else if (is_cachelens_work_dir(dir)) {
            continue; // an unpack's staging dir, a prune's trash
        } else if (has_rank_dirs(root / dir)) {
            tree.hash_dirs.push_back(read_hash_dir(root, HashDir::Kind::Jit, dir, dir));
        } else {
            tree.other_dirs.push_back(dir);
        }
    }
    if (unhashed_ranks) {
        tree.hash_dirs.push_back(read_hash_dir(root, HashDir::Kind::Unhashed, "", ""));
    }
    std::ranges::sort(tree.hash_dirs, {}, &HashDir::path);
    for (const auto& dir : tree.hash_dirs) {
        for (const auto& rank : dir.ranks) {
            for (const auto& prefix : rank.prefixes) {
                if (prefix.index_file == kSglangIndexName) {
                    tree.stack = Stack::Sglang;
                }
            }
        }
    }
    return tree;
}

cachedir::FileKind classify_serving_path(std::string_view relative_path) {
    const auto parts = split(relative_path);
    // An unpack in progress (or one that died): staged files, renamed into
    // place at the end; a pruned hash dir being removed. Wherever the walk began.
    if (std::ranges::any_of(parts,
                            [](std::string_view part) { return is_cachelens_work_dir(part); })) {
        return cachedir::FileKind::Temp;
    }
    // $VLLM_CACHE_ROOT walked whole: vLLM's model-info cache beside torch_compile_cache/.
    if (parts.size() == 2 && parts[0] == "modelinfos" && parts[1].ends_with(".json")) {
        return cachedir::FileKind::Text;
    }
    const auto rank_at = std::ranges::find_if(
        parts, [](std::string_view part) { return parse_rank_dir_name(part).has_value(); });
    if (rank_at == parts.end()) {
        // torch_aot_compile/<hash>/inductor_cache/...: the AOT dir's shared cache.
        const auto aot = std::ranges::find(parts, kAotDir);
        const auto at = static_cast<std::size_t>(aot - parts.begin());
        if (aot != parts.end() && parts.size() > at + 3 && parts[at + 2] == kInductorCache) {
            return classify_inner(std::span(parts).subspan(at + 3));
        }
        return cachedir::FileKind::Unknown;
    }
    auto rest = std::span(parts).subspan(static_cast<std::size_t>(rank_at - parts.begin()) + 1);
    // A rank dir's own files (vLLM 0.8, the AOT model), then a prefix dir's.
    for (int level = 0; level < 2 && !rest.empty(); ++level) {
        if (rest.size() == 1) {
            return classify_serving_file(rest[0]).value_or(cachedir::FileKind::Unknown);
        }
        if (rest[0] == kInductorCache || rest[0] == kTritonCache || parse_artifact_name(rest[0])) {
            return classify_inner(rest.subspan(1));
        }
        rest = rest.subspan(1); // the prefix dir
    }
    return cachedir::FileKind::Unknown;
}

std::string describe_tree(const ServingTree& tree) {
    std::size_t jit = 0, aot = 0;
    for (const auto& dir : tree.hash_dirs) {
        (dir.kind == HashDir::Kind::Aot ? aot : jit) += 1;
    }
    const auto plural = [](std::size_t count, std::string_view one, std::string_view many) {
        return std::to_string(count) + " " + std::string(count == 1 ? one : many);
    };
    std::string out = std::string(display_name(tree.stack)) +
                      " compile cache: " + plural(jit, "cache dir", "cache dirs");
    if (aot > 0) {
        out += ", " + plural(aot, "AOT-compiled model", "AOT-compiled models");
    }
    out += ", " + plural(tree.rank_count(), "rank", "ranks");
    const auto prefixes = tree.prefix_names();
    if (!prefixes.empty()) {
        out += prefixes.size() == 1 ? ", prefix " : ", prefixes ";
        for (std::size_t i = 0; i < prefixes.size(); ++i) {
            out += (i == 0 ? "" : ", ") + prefixes[i];
        }
    }
    return out;
}

} // namespace cachelens::serving
