#include <cachelens/bundle/code_verdicts.h>
#include <cachelens/bundle/compiled_artifact.h>
#include <cachelens/core/format.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/safety/code_audit.h>

#include <algorithm>

namespace cachelens::bundle {

namespace {

// The bundle artifact type an entry of this kind is, or empty for a source
// file (audited as code) and for files that hold neither.
std::string_view artifact_type(cachedir::FileKind kind) {
    switch (kind) {
    case cachedir::FileKind::FxGraph:
        return "inductor";
    case cachedir::FileKind::AotAutograd:
        return "aot_autograd";
    case cachedir::FileKind::DynamoProfile:
        return "pgo";
    default:
        return {};
    }
}

bool is_source(cachedir::FileKind kind) {
    return kind == cachedir::FileKind::Module || kind == cachedir::FileKind::CppSource;
}

// A dynamo profile's key as PyTorch names the file: code_state_<key>.pkl.
std::string profile_key(const std::string& path) {
    std::string name = path.substr(path.rfind('/') + 1);
    constexpr std::string_view prefix = "code_state_";
    constexpr std::string_view suffix = ".pkl";
    if (name.starts_with(prefix) && name.ends_with(suffix)) {
        name = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    }
    return name;
}

ArtifactCheck judge_source(std::string_view text, const std::string& path) {
    ArtifactCheck check;
    check.destination = path;
    auto findings = safety::audit_cache_file(text, path);
    if (!findings) {
        check.problems.push_back(findings.error().message);
        check.verdict = safety::Verdict::Unreadable;
        check.readable = false;
        return check;
    }
    const auto lines = static_cast<std::size_t>(std::ranges::count(text, '\n'));
    check.code.push_back(path + " (" + plural(lines, "line") + ")");
    check.findings = std::move(*findings);
    safety::drop_repeated(check.findings);
    check.verdict =
        check.findings.empty() ? safety::Verdict::InductorCode : safety::Verdict::CodeWithFindings;
    check.consent = safety::consent_for(check.findings, {});
    return check;
}

// Holds a pickle or source PyTorch would unpickle, import or compile.
bool is_judged(cachedir::FileKind kind) {
    return is_source(kind) || !artifact_type(kind).empty() ||
           kind == cachedir::FileKind::KeyedCacheValue || kind == cachedir::FileKind::AotiOutput ||
           kind == cachedir::FileKind::Precompile || kind == cachedir::FileKind::CompiledArtifact;
}

bool is_source_path(std::string_view path) {
    return path.ends_with(".cpp") || path.ends_with(".h") || path.ends_with(".cu");
}

// Many sources as one verdict: every finding, every piece of code.
ArtifactCheck merge_checks(std::string destination, std::vector<ArtifactCheck> checks) {
    ArtifactCheck all;
    all.destination = std::move(destination);
    for (auto& check : checks) {
        std::ranges::move(check.code, std::back_inserter(all.code));
        std::ranges::move(check.findings, std::back_inserter(all.findings));
        std::ranges::move(check.problems, std::back_inserter(all.problems));
    }
    all.readable = all.problems.empty();
    all.verdict = !all.findings.empty() ? safety::Verdict::CodeWithFindings
                  : !all.readable       ? safety::Verdict::Unreadable
                  : !all.code.empty()   ? safety::Verdict::InductorCode
                                        : safety::Verdict::DataOnly;
    all.consent = safety::consent_for(all.findings, {});
    return all;
}

// An AOTInductor output dir: its C++ sources, which PyTorch compiled into
// the .so beside them (and compiles again from a package without one).
ArtifactCheck judge_aoti_output(const std::filesystem::path& root, const cachedir::Entry& entry) {
    std::vector<ArtifactCheck> checks;
    std::error_code error;
    for (auto it = std::filesystem::recursive_directory_iterator(root / entry.path, error);
         !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
        const std::string relative = (std::filesystem::path(entry.path) /
                                      std::filesystem::relative(it->path(), root / entry.path))
                                         .generic_string();
        if (!it->is_regular_file(error) || !is_source_path(relative)) {
            continue;
        }
        auto file = MappedFile::open(it->path());
        if (!file) {
            ArtifactCheck check;
            check.problems.push_back(file.error().message);
            checks.push_back(std::move(check));
            continue;
        }
        checks.push_back(judge_source((*file)->bytes(), relative));
    }
    auto all = merge_checks(entry.path, std::move(checks));
    all.parses_to = "AOTInductor output dir";
    return all;
}

// An entry that does not read: no consent lets it in.
ArtifactCheck unreadable_check(const std::string& destination, std::string problem) {
    ArtifactCheck check;
    check.destination = destination;
    check.problems.push_back(std::move(problem));
    check.readable = false;
    check.verdict = safety::Verdict::Unreadable;
    return check;
}

} // namespace

std::optional<ArtifactCheck> judge_entry(const std::filesystem::path& root,
                                         const cachedir::Entry& entry) {
    if (!is_judged(entry.kind)) {
        return std::nullopt;
    }
    if (entry.kind == cachedir::FileKind::Precompile) {
        auto file = cachedir::read_precompile_dir(root, entry);
        if (!file) {
            return unreadable_check(entry.path, file.error().message);
        }
        return check_precompile(*file, entry.path);
    }
    if (entry.kind == cachedir::FileKind::AotiOutput) {
        return judge_aoti_output(root, entry);
    }
    if (entry.kind == cachedir::FileKind::CompiledArtifact) {
        // Standalone compile's binary file: what load_cache_artifacts would
        // write from its bundle, each artifact judged as an import judges it.
        auto artifact = load_compiled_artifact(root / entry.path);
        if (!artifact) {
            return unreadable_check(entry.path, artifact.error().message);
        }
        std::vector<ArtifactCheck> checks;
        if (artifact->bundle) {
            for (const auto& section : artifact->bundle->sections) {
                for (const auto& item : section.artifacts) {
                    checks.push_back(
                        check_artifact(section.type, item.key, item.content.view(),
                                       {.max_artifact_bytes = UINT64_MAX, .trust = {}}));
                }
            }
        }
        return merge_checks(entry.path, std::move(checks));
    }
    auto file = MappedFile::open(root / entry.path);
    if (!file) {
        ArtifactCheck check;
        check.problems.push_back(file.error().message);
        check.readable = false;
        return check;
    }
    if (is_source(entry.kind)) {
        return judge_source((*file)->bytes(), entry.path);
    }
    if (entry.kind == cachedir::FileKind::KeyedCacheValue) {
        return check_keyed_cache_value((*file)->bytes(), entry.path);
    }
    const std::string key =
        entry.kind == cachedir::FileKind::DynamoProfile ? profile_key(entry.path) : entry.key;
    // The size limit is for what a stranger sends; this cache is on disk already.
    return check_artifact(artifact_type(entry.kind), key, (*file)->bytes(),
                          {.max_artifact_bytes = UINT64_MAX, .trust = {}});
}

std::vector<FileVerdict> judge_pt2_archive(const pt2::Archive& archive) {
    std::vector<FileVerdict> out;
    for (const auto& member : archive.members) {
        if (!is_source_path(member.path)) {
            continue;
        }
        auto text = pt2::read_member(archive, member);
        if (!text) {
            ArtifactCheck check;
            check.destination = member.path;
            check.problems.push_back(text.error().message);
            check.readable = false;
            out.push_back({member.path, std::move(check)});
            continue;
        }
        out.push_back({member.path, judge_source(*text, member.path)});
    }
    return out;
}

ArtifactCheck judge_standalone_file(const cachedir::StandaloneFile& file) {
    if (const auto* cache = std::get_if<cachedir::InMemoryCacheContents>(&file.content)) {
        return check_in_memory_cache(*cache);
    }
    if (const auto* archive = std::get_if<pt2::Archive>(&file.content)) {
        // One verdict for the archive: every source's findings and code.
        std::vector<ArtifactCheck> checks;
        for (auto& verdict : judge_pt2_archive(*archive)) {
            checks.push_back(std::move(verdict.check));
        }
        auto all = merge_checks(file.entry.path, std::move(checks));
        all.parses_to = std::string(pt2::to_string(archive->layout));
        return all;
    }
    if (const auto* precompiled = std::get_if<cachedir::PrecompileFile>(&file.content)) {
        return check_precompile(*precompiled, file.entry.path);
    }
    auto mapped = MappedFile::open(file.entry.path);
    if (!mapped) {
        ArtifactCheck check;
        check.problems.push_back(mapped.error().message);
        check.readable = false;
        return check;
    }
    if (file.entry.kind == cachedir::FileKind::KeyedCacheValue) {
        return check_keyed_cache_value((*mapped)->bytes(), file.entry.path);
    }
    ArtifactCheck check;
    check.problems.push_back("cachelens does not judge a " +
                             std::string(cachedir::to_string(file.entry.kind)) + " on its own");
    check.readable = false;
    return check;
}

Result<std::vector<FileVerdict>> judge_cache_dir(const cachedir::Scan& scan,
                                                 const ProgressFn& progress) {
    std::vector<const cachedir::Entry*> judged;
    const auto entries = scan.entries();
    for (const auto& entry : entries) {
        if (is_judged(entry.kind)) {
            judged.push_back(&entry);
        }
    }
    Progress checked{.stage = ProgressStage::Checking,
                     .unit = ProgressUnit::Files,
                     .done = 0,
                     .total = judged.size(),
                     .bytes = 0,
                     .item = {}};
    if (!report_progress(progress, checked)) {
        return cancelled();
    }
    std::vector<FileVerdict> verdicts;
    for (const auto* entry : judged) {
        FileVerdict verdict{.path = entry->path, .check = *judge_entry(scan.root, *entry)};
        checked.bytes += entry->size;
        checked.item = entry->path;
        ++checked.done;
        verdicts.push_back(std::move(verdict));
        if (!report_progress(progress, checked)) {
            return cancelled();
        }
    }
    std::ranges::sort(verdicts, {}, &FileVerdict::path);
    return verdicts;
}

} // namespace cachelens::bundle
