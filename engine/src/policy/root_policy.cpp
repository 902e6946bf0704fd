#include <cachelens/bundle/staging.h>
#include <cachelens/catalog/catalog.h>
#include <cachelens/policy/root_policy.h>
#include <cachelens/remote/mirror.h>

#include <fmt/format.h>

namespace cachelens::policy {

namespace fs = std::filesystem;

RootPolicy root_policy(const fs::path& root) {
    // A mirror records its server beside it, under the catalog's remote/; a
    // dir of the user's merely named like one is not a mirror.
    std::error_code error;
    const fs::path location = catalog::root_location(root);
    const bool mirror_like = fs::exists(remote::mirror_origin_file(location), error) ||
                             location.parent_path().filename() == "remote";
    if (auto server = mirror_like ? remote::mirror_origin(location) : std::nullopt) {
        return {RootKind::RedisMirror, std::move(*server)};
    }
    if (auto bundle = bundle::staged_origin(root)) {
        return {RootKind::StagedBundle, bundle->filename().string()};
    }
    return {};
}

Result<void> allow_write(const fs::path& root, RootWrite write) {
    const RootPolicy policy = root_policy(root);
    if (!policy.read_only()) {
        return {};
    }
    const bool mirror = policy.kind == RootKind::RedisMirror;
    const std::string what = mirror
                                 ? fmt::format("{} is a Redis server's mirror, browsed "
                                               "read-only",
                                               policy.origin)
                                 : fmt::format("{} is a bundle, opened read-only", policy.origin);
    const std::string elsewhere =
        mirror ? "Pull its entries into a cache dir" : "Import it into a cache dir";
    std::string message;
    switch (write) {
    case RootWrite::Prune:
        message = fmt::format("{}: nothing in it is pruned{}. {} to prune there.", what,
                              mirror ? " (the next refresh would bring it back)" : "", elsewhere);
        break;
    case RootWrite::BestConfig:
        message = fmt::format("{}: its best configs are not changed. {} to benchmark its "
                              "kernels and change their best configs there.",
                              what, elsewhere);
        break;
    case RootWrite::Import:
        message = fmt::format("{}: nothing is written into it{}. Choose a cache dir of yours.",
                              what, mirror ? " (the next refresh would undo it)" : "");
        break;
    }
    return fail(ErrorKind::InvalidArgument, message, root.string());
}

} // namespace cachelens::policy
