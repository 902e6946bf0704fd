#include <cachelens/cachedir/aot_autograd_entry.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/explain/lookup.h>

#include <algorithm>

namespace cachelens::explain {

namespace fs = std::filesystem;

namespace {

// fxgraph/<key[1:3]>/<key>/ or aotautograd/<key>/.
std::string key_dir_of(std::string_view key) {
    if (key.starts_with('a')) {
        return "aotautograd/" + std::string(key);
    }
    const std::string shard(key.substr(1, 2));
    return "fxgraph/" + shard + "/" + std::string(key);
}

// The guards of the entry in `file`, read the way its kind is stored.
Result<std::optional<std::string>> guards_of(const fs::path& file, bool aot) {
    if (aot) {
        auto entry = cachedir::load_aot_autograd_entry(file);
        if (!entry) {
            return std::unexpected(entry.error());
        }
        return entry->guards_expr ? std::optional<std::string>(*entry->guards_expr) : std::nullopt;
    }
    auto entry = cachedir::load_fx_graph_entry(file);
    if (!entry) {
        return std::unexpected(entry.error());
    }
    return entry->guards_expr ? std::optional<std::string>(*entry->guards_expr) : std::nullopt;
}

// PyTorch skips an entry whose guards it cannot evaluate only by failing;
// an empty expression always matches.
void evaluate_guards(TriedEntry& tried, const guards::Hints& hints) {
    if (!tried.guards_expr || tried.guards_expr->empty()) {
        tried.hit = true;
        return;
    }
    auto expression = guards::GuardExpression::parse(*tried.guards_expr);
    if (!expression) {
        tried.error = "guards do not parse: " + expression.error().message;
        return;
    }
    auto evaluation = expression->evaluate(hints);
    if (!evaluation) {
        tried.error = evaluation.error().message;
        return;
    }
    tried.hit = evaluation->result;
    tried.evaluation = std::move(*evaluation);
}

} // namespace

std::string_view to_string(LookupStatus status) {
    switch (status) {
    case LookupStatus::Hit:
        return "hit";
    case LookupStatus::GuardMiss:
        return "guard_miss";
    case LookupStatus::FullMiss:
        return "full_miss";
    }
    return "full_miss";
}

Result<LookupResult> simulate_lookup(const fs::path& root, std::string_view key,
                                     const guards::Hints& hints) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) {
        return fail(ErrorKind::NotFound, "no such cache dir", root.string());
    }
    if (key.size() < 3 || (key.front() != 'f' && key.front() != 'a') ||
        key.find('/') != std::string_view::npos) {
        return fail(ErrorKind::InvalidArgument, "'" + std::string(key) +
                                                    "' is not an fxgraph (f...) or aotautograd "
                                                    "(a...) key");
    }
    LookupResult result;
    result.key = std::string(key);
    result.key_dir = key_dir_of(key);
    const fs::path dir = root / result.key_dir;
    std::vector<std::string> files;
    for (const auto& item : fs::directory_iterator(dir, ec)) {
        const std::string name = item.path().filename().string();
        if (item.is_regular_file(ec) && !name.starts_with('.')) {
            files.push_back(name);
        }
    }
    std::sort(files.begin(), files.end()); // Python's sorted() on ASCII names
    const bool aot = key.front() == 'a';
    for (const std::string& name : files) {
        TriedEntry tried;
        tried.file = name;
        if (auto guards = guards_of(dir / name, aot)) {
            tried.guards_expr = std::move(*guards);
            evaluate_guards(tried, hints);
        } else {
            tried.error = guards.error().message;
        }
        const bool hit = tried.hit;
        result.tried.push_back(std::move(tried));
        if (hit) {
            result.status = LookupStatus::Hit;
            result.hit = name;
            return result;
        }
    }
    result.status = files.empty() ? LookupStatus::FullMiss : LookupStatus::GuardMiss;
    result.key_dir_empty = files.empty() && fs::is_directory(dir, ec);
    return result;
}

} // namespace cachelens::explain
