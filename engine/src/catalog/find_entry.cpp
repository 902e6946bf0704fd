// Catalog::find_entry: what a user means by a key, a name or a path, over
// every indexed root, through the same search the table pages with.

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/catalog/catalog.h>

#include <algorithm>
#include <map>
#include <set>
#include <system_error>

namespace cachelens::catalog {

namespace fs = std::filesystem;

namespace {

// How well a hit matches, higher first; a hit in another root than the one
// to avoid gets one more.
constexpr int kByPath = 6;
constexpr int kByKey = 4;
constexpr int kByPrefix = 2;
constexpr std::size_t kPage = 500;
// Keys named in the message of an ambiguous prefix.
constexpr std::size_t kKeysNamed = 5;

int rank_of(cachedir::EntryQuery::Match match, bool prefix) {
    switch (match) {
    case cachedir::EntryQuery::Match::Path:
        return kByPath;
    case cachedir::EntryQuery::Match::Key:
        return kByKey;
    case cachedir::EntryQuery::Match::None:
        break;
    }
    return prefix ? kByPrefix : 0;
}

} // namespace

Result<std::optional<SearchHit>> Catalog::find_entry(std::string_view query,
                                                     cachedir::FileKind kind,
                                                     const std::optional<fs::path>& root,
                                                     const std::optional<fs::path>& avoid_root,
                                                     KeyPrefix key_prefix) const {
    const std::string wanted(query);
    if (wanted.empty()) {
        return std::nullopt;
    }
    SearchQuery search;
    if (root) {
        search.root = root_location(*root);
    }
    // An absolute path names its root.
    if (fs::path(wanted).is_absolute()) {
        auto roots = this->roots();
        if (!roots) {
            return std::unexpected(roots.error());
        }
        std::error_code ec;
        const fs::path absolute = fs::weakly_canonical(wanted, ec);
        const auto inside = std::ranges::find_if(*roots, [&](const Root& candidate) {
            const fs::path relative = absolute.lexically_relative(candidate.location);
            return !relative.empty() && *relative.begin() != "..";
        });
        if (inside == roots->end() || (search.root && *search.root != inside->location)) {
            return std::nullopt;
        }
        search.root = inside->location;
    }
    search.text = cachedir::EntryQuery(search.root.value_or(std::string()), wanted).search_key();
    if (kind != cachedir::FileKind::Unknown) {
        search.kinds = {kind};
    }
    const std::string avoid = avoid_root ? root_location(*avoid_root) : std::string();
    // A path cannot be the start of a key.
    const bool by_path = wanted.find('/') != std::string::npos;
    // No better match can come: its path names it (a key or name names several
    // entries: the first is taken), in another root than avoid_root.
    const int best_possible = (by_path ? kByPath : kByKey) + (avoid_root ? 1 : 0);
    std::map<std::string, cachedir::EntryQuery> queries; // per root: a path is relative to it
    std::set<std::string> prefixed_keys;                 // the keys `wanted` is the start of
    std::optional<SearchHit> best;
    int best_rank = 0;
    search.limit = kPage;
    for (search.offset = 0; best_rank < best_possible; search.offset += search.limit) {
        auto hits = this->search(search);
        if (!hits) {
            return std::unexpected(hits.error());
        }
        for (auto& hit : *hits) {
            auto entry_query = queries.find(hit.root);
            if (entry_query == queries.end()) {
                entry_query =
                    queries.emplace(hit.root, cachedir::EntryQuery(hit.root, wanted)).first;
            }
            cachedir::Entry entry;
            entry.kind = hit.kind;
            entry.key = hit.key;
            entry.path = hit.path;
            entry.name = hit.name;
            const bool prefix = key_prefix == KeyPrefix::Accepted && !by_path &&
                                wanted.size() >= cachedir::kMinKeyPrefix &&
                                hit.key.starts_with(wanted);
            if (prefix) {
                prefixed_keys.insert(hit.key);
            }
            int rank = rank_of(entry_query->second.match(entry), prefix);
            if (rank > 0 && avoid_root && hit.root != avoid) {
                ++rank;
            }
            if (rank > best_rank) {
                best_rank = rank;
                best = std::move(hit);
            }
        }
        if (hits->size() < search.limit) {
            break;
        }
    }
    if (best_rank > 0 && best_rank < kByKey && prefixed_keys.size() > 1) {
        std::string named;
        std::size_t count = 0;
        for (const auto& key : prefixed_keys) {
            named += ++count > kKeysNamed ? std::string(" ...") : (count > 1 ? " " : "") + key;
            if (count > kKeysNamed) {
                break;
            }
        }
        return fail(ErrorKind::InvalidArgument, "'" + wanted + "' is the start of " +
                                                    std::to_string(prefixed_keys.size()) +
                                                    " keys; give more of one: " + named);
    }
    return best;
}

} // namespace cachelens::catalog
