#include <cachelens/bundle/import.h>
#include <cachelens/cachedir/aot_autograd_entry.h>
#include <cachelens/cachedir/best_config.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/cachedir/keyed_cache.h>
#include <cachelens/core/dir_handle.h>
#include <cachelens/core/format.h>
#include <cachelens/hash/sha256.h>
#include <cachelens/pickle/access.h>
#include <cachelens/pickle/unpickler.h>
#include <cachelens/safety/code_audit.h>
#include <cachelens/safety/pickle_policy.h>

#include <algorithm>
#include <map>
#include <system_error>

namespace cachelens::bundle {

namespace fs = std::filesystem;

namespace {

// "f" or "a" and then sha256_hash(): 51 lowercase base32 characters.
bool is_entry_key(std::string_view key, char first) {
    return key.size() == 52 && key[0] == first && std::ranges::all_of(key.substr(1), [](char c) {
               return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7');
           });
}

// "<xx>/<sha256 hex>.best_config", as AutotuneCache.save records it.
bool is_best_config_key(std::string_view key) {
    constexpr std::string_view suffix = ".best_config";
    if (key.size() != 3 + 64 + suffix.size() || key[2] != '/' || !key.ends_with(suffix)) {
        return false;
    }
    const auto shard = key.substr(0, 2);
    const auto hex = key.substr(3, 64);
    return std::ranges::all_of(shard,
                               [](char c) {
                                   return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                                          c == '_';
                               }) &&
           std::ranges::all_of(
               hex, [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// Why `key`, used as a path below the cache dir, would not stay there.
std::string escape_problem(std::string_view key) {
    if (key.empty()) {
        return "an empty key";
    }
    if (key.find('\0') != std::string_view::npos) {
        return "the key holds a NUL byte";
    }
    if (key.starts_with('/')) {
        return "the key '" + std::string(key) +
               "' is an absolute path: it would be written outside the cache dir";
    }
    for (std::size_t start = 0; start <= key.size();) {
        const auto slash = std::min(key.find('/', start), key.size());
        const auto part = key.substr(start, slash - start);
        if (part == "..") {
            return "the key '" + std::string(key) +
                   "' climbs out with '..': it would be "
                   "written outside the cache dir";
        }
        start = slash + 1;
    }
    return {};
}

// PyTorch's code_state_path(): the characters Windows refuses become "_".
std::string pgo_file_name(std::string_view key) {
    std::string name = "code_state_" + std::string(key) + ".pkl";
    for (char& c : name) {
        if (std::string_view(R"(<>:"/\|?*)").find(c) != std::string_view::npos) {
            c = '_';
        }
    }
    return name;
}

// "CompiledFxGraph" for "torch._inductor.output_code.CompiledFxGraph".
std::string short_class(std::string_view name) {
    const auto dot = name.rfind('.');
    return std::string(dot == std::string_view::npos ? name : name.substr(dot + 1));
}

std::string short_key(std::string_view key) {
    return std::string(key.substr(0, 12)) + (key.size() > 12 ? "…" : "");
}

std::size_t line_count(std::string_view text) {
    return static_cast<std::size_t>(std::ranges::count(text, '\n')) +
           (!text.empty() && !text.ends_with('\n') ? 1 : 0);
}

// Audits code PyTorch would run from the artifact; code that does not even
// tokenize is a problem (PyTorch would fail on it, and no audit can read it).
void audit_code(std::string_view source, const std::string& file, std::string_view what,
                safety::PythonCode kind, ArtifactCheck& check) {
    check.code.push_back(file + " (" + std::string(what) + ", " +
                         plural(line_count(source), "line") + ")");
    auto findings = safety::audit_python(source, file, kind);
    if (!findings) {
        check.problems.push_back(file + " does not read as Python: " + findings.error().message);
        return;
    }
    std::ranges::move(*findings, std::back_inserter(check.findings));
}

void check_fx_graph(std::string_view key, std::shared_ptr<const pickle::Document> document,
                    ArtifactCheck& check) {
    auto entry = cachedir::read_fx_graph_entry(std::move(document), key);
    if (!entry) {
        check.problems.push_back("not an FX graph entry: " + entry.error().message);
        return;
    }
    // Static autotuners name the graph's kernels (2.8 on); a 2.6 or 2.7 bundle
    // holds the compiled kernel dirs alone.
    const std::size_t kernels =
        entry->autotuners.empty() ? entry->triton_artifacts.size() : entry->autotuners.size();
    check.parses_to = short_class(entry->class_name) + ": " + plural(kernels, "Triton kernel") +
                      ", " +
                      (entry->guards_expr && !entry->guards_expr->empty()
                           ? "guards: " + std::string(*entry->guards_expr)
                           : std::string("no guards"));
    if (entry->key != key) {
        check.problems.push_back("the entry inside is for key " + entry->key +
                                 ", not the bundle's key");
    }
    if (!entry->source_code.empty()) {
        audit_code(entry->source_code, "source_code", "wrapper module",
                   safety::PythonCode::InductorWrapper, check);
    }
}

void check_aot_entry(std::shared_ptr<const pickle::Document> document,
                     const std::vector<safety::EmbeddedCode>& embedded, ArtifactCheck& check) {
    auto entry = cachedir::read_aot_autograd_entry(std::move(document));
    if (!entry) {
        check.problems.push_back("not an AOTAutograd entry: " + entry.error().message);
        return;
    }
    for (const auto& graph : embedded) {
        audit_code(graph.import_block + graph.source, graph.where, "GraphModule code",
                   safety::PythonCode::GraphModule, check);
    }
    check.parses_to = short_class(entry->class_name) + ": forward " +
                      (entry->forward ? short_key(entry->forward->key) : std::string("none")) +
                      ", backward " +
                      (entry->backward ? short_key(entry->backward->key) : std::string("none"));
}

// Decodes a pickle artifact and checks it against the pickle policy; nullptr
// when it does not decode (the problem is recorded). The code the pickle
// carries for PyTorch to exec goes to `embedded`.
std::shared_ptr<const pickle::Document> decode_pickle(std::string_view content,
                                                      safety::PickleSchema schema,
                                                      ArtifactCheck& check,
                                                      std::vector<safety::EmbeddedCode>* embedded) {
    auto document = pickle::unpickle(content);
    if (!document) {
        check.problems.push_back("the content does not parse as a pickle: " +
                                 document.error().message);
        return nullptr;
    }
    auto result = safety::check_pickle(**document, schema);
    std::ranges::move(result.findings, std::back_inserter(check.findings));
    if (embedded != nullptr) {
        *embedded = std::move(result.code);
    }
    return *document;
}

// What the artifact is, where it goes, what it parses to and the findings in
// it: everything but the verdict.
void read_artifact(std::string_view type, std::string_view key, std::string_view content,
                   const hash::Digest& digest, const ImportRules& rules, ArtifactCheck& check) {
    if (content.size() > rules.max_artifact_bytes) {
        check.problems.push_back(format_bytes(content.size()) + " of content, over the limit of " +
                                 format_bytes(rules.max_artifact_bytes) + " per artifact");
        return;
    }
    if (auto problem = escape_problem(key); !problem.empty()) {
        check.problems.push_back(std::move(problem));
        return;
    }
    if (type == "inductor" || type == "aot_autograd") {
        const bool fx = type == "inductor";
        if (!is_entry_key(key, fx ? 'f' : 'a')) {
            check.problems.push_back("the key '" + std::string(key) +
                                     "' does not look like PyTorch's " +
                                     (fx ? "FX graph key (\"f\" + 51 base32 characters)"
                                         : "AOTAutograd key (\"a\" + 51 base32 characters)"));
            return;
        }
        const std::string name = hash::sha256_hash(digest);
        check.destination =
            fx ? "fxgraph/" + std::string(key.substr(1, 2)) + "/" + std::string(key) + "/" + name
               : "aotautograd/" + std::string(key) + "/" + name;
        std::vector<safety::EmbeddedCode> embedded;
        if (auto document = decode_pickle(content, safety::PickleSchema::Entry, check, &embedded)) {
            if (fx) {
                check_fx_graph(key, std::move(document), check);
            } else {
                check_aot_entry(std::move(document), embedded, check);
            }
        }
    } else if (type == "autotune") {
        if (!is_best_config_key(key)) {
            check.problems.push_back("the key '" + std::string(key) +
                                     "' does not look like PyTorch's autotune key "
                                     "(\"<xx>/<sha256 hex>.best_config\")");
            return;
        }
        check.destination = std::string(key);
        auto config = cachedir::parse_best_config(content);
        if (!config) {
            check.problems.push_back("not a best_config: " + config.error().message);
        } else {
            check.parses_to = "best_config: " + config->config.describe();
        }
    } else if (type == "pgo") {
        const std::string name = pgo_file_name(key);
        if (name.size() > 255) {
            check.problems.push_back("the key is too long for a file name (" +
                                     std::to_string(name.size()) + " bytes)");
            return;
        }
        check.destination = "dynamo/" + name;
        if (auto document = decode_pickle(content, safety::PickleSchema::Pgo, check, nullptr)) {
            check.parses_to = "dynamo profile: " + pickle::type_name(document->root());
        }
    } else if (type == "precompile") {
        // PrecompileCacheArtifact.populate_cache: DynamoCache._write_to_local_cache(content, key).
        if (key.size() != 64 || !std::ranges::all_of(key, [](char c) {
                return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
            })) {
            check.problems.push_back("the key '" + std::string(key) +
                                     "' does not look like a DynamoCache key (sha256 hex of the "
                                     "function's name and first line)");
            return;
        }
        check.destination = "dynamo/" + std::string(key) + "/entry";
        auto file = cachedir::read_precompile(content, nullptr);
        if (!file) {
            check.problems.push_back("not a DynamoCache entry: " + file.error().message);
            return;
        }
        file->key = std::string(key);
        if (!file->expected_key.empty() && file->expected_key != key) {
            file->problems.push_back("the entry is for key " + file->expected_key +
                                     ", not the bundle's key: PyTorch would never load it");
        }
        auto judged = check_precompile(*file, check.destination);
        std::ranges::move(judged.findings, std::back_inserter(check.findings));
        std::ranges::move(judged.problems, std::back_inserter(check.problems));
        std::ranges::move(judged.code, std::back_inserter(check.code));
        check.parses_to = judged.parses_to;
    } else {
        check.problems.push_back("cachelens does not import '" + std::string(type) +
                                 "' artifacts: where PyTorch puts them is not known to it");
    }
}

// The verdict, and the refusal findings bring unless the rules allow them.
void judge(const safety::CodeTrust& trust, ArtifactCheck& check) {
    safety::drop_repeated(check.findings);
    check.readable = check.problems.empty();
    // A hostile pickle is often not a valid entry either: its findings are
    // what the user needs to see first.
    if (!check.findings.empty()) {
        check.verdict = safety::Verdict::CodeWithFindings;
    } else if (!check.readable) {
        check.verdict = safety::Verdict::Unreadable;
    } else {
        check.verdict =
            check.code.empty() ? safety::Verdict::DataOnly : safety::Verdict::InductorCode;
    }
    // Another problem refuses it whatever is allowed or trusted.
    check.consent = !check.findings.empty() && !check.readable
                        ? safety::CodeConsent::Refused
                        : safety::consent_for(check.findings, trust);
    if (check.consent == safety::CodeConsent::Refused) {
        const auto& first = check.findings.front();
        std::string problem = plural(check.findings.size(), "finding") +
                              " outside what PyTorch and Inductor generate, first " +
                              safety::location(first) + ": " + first.why;
        problem += " (import it anyway with --allow-code and the ids, or from a bundle signed "
                   "by a key you trust)";
        check.problems.push_back(std::move(problem));
    }
}

ArtifactCheck check_artifact(std::string_view type, std::string_view key, std::string_view content,
                             const hash::Digest& digest, const ImportRules& rules) {
    ArtifactCheck check;
    read_artifact(type, key, content, digest, rules, check);
    judge(rules.trust, check);
    return check;
}

} // namespace

ArtifactCheck check_artifact(std::string_view type, std::string_view key, std::string_view content,
                             const ImportRules& rules) {
    return check_artifact(type, key, content, hash::sha256(content), rules);
}

ArtifactCheck check_keyed_cache_value(std::string_view file_bytes, std::string_view path) {
    ArtifactCheck check;
    check.destination = std::string(path);
    const std::string_view pickled = cachedir::keyed_cache_pickle(file_bytes);
    if (pickled.empty()) {
        check.problems.push_back(
            "not an OnDiskCache value: no version prefix PyTorch writes, and no pickle");
    } else if (auto document =
                   decode_pickle(pickled, safety::PickleSchema::CacheValue, check, nullptr)) {
        check.parses_to = "cache value: " + pickle::type_name(document->root());
    }
    judge({}, check);
    return check;
}

ArtifactCheck check_in_memory_cache(const cachedir::InMemoryCacheContents& cache) {
    ArtifactCheck check;
    check.destination = cache.source;
    for (const auto& document : cache.documents) {
        auto result = safety::check_pickle(*document, safety::PickleSchema::CacheValue);
        std::ranges::move(result.findings, std::back_inserter(check.findings));
    }
    check.parses_to = "InMemoryCache: " + plural(cache.pairs.size(), "pair");
    judge({}, check);
    return check;
}

ArtifactCheck check_precompile(const cachedir::PrecompileFile& file, std::string destination) {
    ArtifactCheck check;
    check.destination = std::move(destination);
    for (const auto& [where, document] : file.documents) {
        auto result = safety::check_pickle(*document, safety::PickleSchema::Precompile);
        for (auto& finding : result.findings) {
            if (where != "file") {
                finding = safety::make_finding(finding.rule, finding.file, finding.line,
                                               where + ": " + finding.text, finding.why);
            }
            check.findings.push_back(std::move(finding));
        }
        for (const auto& graph : result.code) {
            audit_code(graph.import_block + graph.source, where + " " + graph.where,
                       "GraphModule code", safety::PythonCode::GraphModule, check);
        }
    }
    for (const auto& code : file.codes) {
        if (!code.runs) {
            continue;
        }
        const std::string where = "bytecode " + code.qualname;
        check.code.push_back(where + " (" + plural(code.bytecode_bytes, "byte") + " of bytecode)");
        std::ranges::move(safety::audit_code_names(code.names, where),
                          std::back_inserter(check.findings));
    }
    const std::string own_module =
        file.functions.empty() ? std::string() : file.functions.front().python_module;
    for (const auto& [alias, module] : file.imports) {
        std::ranges::move(safety::audit_import(module, own_module, "import_sources " + alias),
                          std::back_inserter(check.findings));
    }
    for (const auto& backend : file.backends) {
        for (const auto& module : backend.kernel_modules) {
            std::ranges::move(
                safety::audit_import(module, own_module, "triton kernel of " + backend.id),
                std::back_inserter(check.findings));
        }
        for (const auto& graph : backend.graphs) {
            if (!graph.source_code.empty()) {
                audit_code(graph.source_code, graph.cache_key + ".py",
                           backend.id + " " + graph.role + " module",
                           safety::PythonCode::InductorWrapper, check);
            }
        }
    }
    for (const auto& set : file.guards) {
        for (const auto& expr : set.shape_guards) {
            std::ranges::move(safety::audit_shape_guard(expr, set.where + " shape guard"),
                              std::back_inserter(check.findings));
        }
        for (const auto& expr : set.cpp_shape_guards) {
            std::ranges::move(safety::audit_shape_guard(expr, set.where + " C++ shape guard"),
                              std::back_inserter(check.findings));
        }
    }
    for (const auto& problem : file.problems) {
        check.problems.push_back(problem);
    }
    check.parses_to = std::string(cachedir::to_string(file.layout)) + ": " +
                      plural(file.functions.size(), "function") + ", " +
                      plural(file.backends.size(), "backend");
    judge({}, check);
    return check;
}

std::string_view to_string(ImportAction action) {
    switch (action) {
    case ImportAction::Write:
        return "write";
    case ImportAction::AlreadyPresent:
        return "already present";
    case ImportAction::Conflict:
        return "conflict";
    case ImportAction::Refused:
        return "refused";
    case ImportAction::Written:
        return "written";
    case ImportAction::Failed:
        return "failed";
    }
    return "unknown";
}

std::size_t ImportPlan::count(ImportAction action) const {
    return static_cast<std::size_t>(
        std::ranges::count(artifacts, action, &PlannedArtifact::action));
}

bool ImportPlan::clean() const {
    return count(ImportAction::Refused) == 0 && count(ImportAction::Conflict) == 0 &&
           count(ImportAction::Failed) == 0;
}

namespace {

// Compares what is at `destination` now with `content` and sets the action.
// A missing directory on the way is fine (it will be made); a symlinked or
// non-directory one refuses the artifact.
void compare_with_disk(const DirHandle* root, std::string_view content, const ImportRules& rules,
                       PlannedArtifact& artifact) {
    if (root == nullptr) {
        return; // the cache dir will be created: everything is new
    }
    const auto& destination = artifact.check.destination;
    const auto slash = destination.rfind('/');
    const std::string_view dir_path = slash == std::string::npos
                                          ? std::string_view()
                                          : std::string_view(destination).substr(0, slash);
    const std::string_view name = slash == std::string::npos
                                      ? std::string_view(destination)
                                      : std::string_view(destination).substr(slash + 1);
    auto dir = root->open_beneath(dir_path);
    if (!dir) {
        if (dir.error().kind == ErrorKind::NotFound) {
            return;
        }
        artifact.action = ImportAction::Refused;
        artifact.check.problems.push_back(dir.error().path + ": " + dir.error().message);
        return;
    }
    auto existing =
        dir->read_file(name, std::max<std::uint64_t>(rules.max_artifact_bytes, content.size()));
    if (!existing) {
        artifact.action = ImportAction::Refused;
        artifact.check.problems.push_back(existing.error().path + ": " + existing.error().message);
    } else if (!*existing) {
        return;
    } else if (**existing == content) {
        artifact.action = ImportAction::AlreadyPresent;
    } else {
        artifact.action = ImportAction::Conflict;
        artifact.notes.push_back(destination + " exists with other bytes (sha256 " +
                                 hash::sha256_hex(**existing).substr(0, 12) + "…): left alone");
    }
}

} // namespace

Result<ImportPlan> plan_import(const MegaBundle& bundle, const fs::path& cache_dir,
                               const ImportRules& rules, const ProgressFn& progress) {
    ImportPlan plan;
    plan.cache_dir = cache_dir;
    std::error_code error;
    const auto status = fs::status(cache_dir, error);
    std::optional<DirHandle> root;
    if (fs::exists(status)) {
        if (!fs::is_directory(status)) {
            return fail(ErrorKind::InvalidArgument, "not a directory", cache_dir.string());
        }
        auto opened = DirHandle::open_root(cache_dir);
        if (!opened) {
            return std::unexpected(opened.error());
        }
        root.emplace(std::move(*opened));
    } else {
        plan.creates_cache_dir = true;
    }

    Progress checked{.stage = ProgressStage::Checking,
                     .unit = ProgressUnit::Files,
                     .done = 0,
                     .total = bundle.artifact_count(),
                     .bytes = 0,
                     .item = {}};
    if (!report_progress(progress, checked)) {
        return cancelled();
    }
    std::map<std::string, std::size_t> by_destination; // -> index in plan.artifacts
    for (std::size_t s = 0; s < bundle.sections.size(); ++s) {
        const auto& section = bundle.sections[s];
        for (std::size_t i = 0; i < section.artifacts.size(); ++i) {
            const auto& source = section.artifacts[i];
            PlannedArtifact artifact;
            artifact.section = s;
            artifact.index = i;
            artifact.type = section.type;
            artifact.key = source.key;
            artifact.size = source.content.size();
            // One hash for both the report's hex and the entry's file name.
            const hash::Digest digest = hash::sha256(source.content);
            artifact.sha256 = hash::to_hex(digest);
            artifact.check =
                check_artifact(section.type, source.key, source.content, digest, rules);
            if (!artifact.check.problems.empty()) {
                artifact.action = ImportAction::Refused;
            } else if (auto seen = by_destination.find(artifact.check.destination);
                       seen != by_destination.end()) {
                const auto& first = plan.artifacts[seen->second];
                const bool same = first.sha256 == artifact.sha256;
                artifact.action = same ? ImportAction::AlreadyPresent : ImportAction::Conflict;
                artifact.notes.push_back(
                    std::string(same ? "the same bytes as" : "other bytes than") + " artifact " +
                    std::to_string(seen->second + 1) + ", which goes to the same file");
            } else {
                by_destination.emplace(artifact.check.destination, plan.artifacts.size());
                compare_with_disk(root ? &*root : nullptr, source.content, rules, artifact);
            }
            plan.artifacts.push_back(std::move(artifact));
            ++checked.done;
            checked.bytes += source.content.size();
            checked.item = source.key;
            if (!report_progress(progress, checked)) {
                return cancelled();
            }
        }
    }
    return plan;
}

std::vector<std::string> unknown_finding_ids(const ImportPlan& plan, const ImportRules& rules) {
    std::vector<std::string> unknown;
    for (const auto& id : rules.trust.allowed_ids) {
        const bool found =
            std::ranges::any_of(plan.artifacts, [&](const PlannedArtifact& artifact) {
                return std::ranges::any_of(
                    artifact.check.findings,
                    [&](const safety::Finding& finding) { return finding.id == id; });
            });
        if (!found) {
            unknown.push_back(id);
        }
    }
    return unknown;
}

} // namespace cachelens::bundle
