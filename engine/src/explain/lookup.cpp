#include <cachelens/cachedir/aot_autograd_entry.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/core/format.h>
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

// The symbols an entry's guards read; none when they do not parse (the
// evaluation reports that).
std::optional<std::vector<std::string>> symbols_of(const std::optional<std::string>& guards_expr) {
    if (!guards_expr) {
        return std::vector<std::string>{};
    }
    auto expression = guards::GuardExpression::parse(*guards_expr);
    if (!expression) {
        return std::nullopt;
    }
    return expression->symbols();
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
        auto guards = guards_of(dir / name, aot);
        if (!guards) {
            tried.error = guards.error().message;
            tried.unreadable = true;
        } else {
            tried.guards_expr = std::move(*guards);
            if (auto read = symbols_of(tried.guards_expr)) {
                result.symbols_read.push_back(std::move(*read));
            }
        }
        if (result.hit) {
            continue; // PyTorch stops at the hit; only the symbols are wanted
        }
        if (!tried.unreadable) {
            evaluate_guards(tried, hints);
            // PyTorch's find_guarded_entry: guard_miss once a loaded entry's
            // guards fail; entries that do not load leave a full miss.
            result.status = tried.hit ? LookupStatus::Hit : LookupStatus::GuardMiss;
        }
        if (tried.hit) {
            result.hit = name;
        }
        result.tried.push_back(std::move(tried));
    }
    result.key_dir_empty = files.empty() && fs::is_directory(dir, ec);
    return result;
}

bool LookupResult::any_unreadable() const {
    return std::ranges::any_of(tried, &TriedEntry::unreadable);
}

Result<void> check_hints(const LookupResult& lookup, const guards::Hints& hints) {
    if (lookup.symbols_read.empty()) {
        return {};
    }
    const std::size_t entries = lookup.symbols_read.size();
    const std::string reader =
        entries == 1 ? "the guards of " + lookup.key
                     : "the guards of " + lookup.key + "'s " + plural(entries, "entry");
    return guards::check_hints(hints, lookup.symbols_read, reader);
}

} // namespace cachelens::explain
