#include "data/key_comparison.h"

#include <cachelens/cachedir/entry_content.h>

namespace cachelens::ui {

Result<cachedir::FxGraphEntry> loadFxGraph(const EntryRef& ref) {
    if (!ref.valid()) {
        return fail(ErrorKind::InvalidArgument, "no entry given");
    }
    const std::string where = (ref.root / ref.entry.path).string();
    if (ref.entry.kind == cachedir::FileKind::AotAutograd) {
        // An AOT entry keeps no debug lines of its own: point at its graphs, as the CLI does.
        std::string hint;
        if (auto aot = cachedir::load_aot_autograd_entry(ref.root / ref.entry.path)) {
            if (aot->forward) {
                hint += " forward " + aot->forward->key;
            }
            if (aot->backward) {
                hint += " backward " + aot->backward->key;
            }
        }
        return fail(ErrorKind::InvalidArgument,
                    "an AOTAutograd entry stores no debug lines; compare its FX graphs:" +
                        (hint.empty() ? std::string(" (none recorded)") : hint),
                    where);
    }
    if (ref.entry.kind != cachedir::FileKind::FxGraph) {
        return fail(ErrorKind::InvalidArgument,
                    "a " + std::string(cachedir::to_string(ref.entry.kind)) +
                        " entry, not an FX graph entry: only FX graph keys have debug lines",
                    where);
    }
    return cachedir::load_fx_graph_entry(ref.root / ref.entry.path);
}

Result<std::shared_ptr<const KeyComparison>> compareEntries(const EntryRef& left,
                                                            const EntryRef& right) {
    auto a = loadFxGraph(left);
    if (!a) {
        return std::unexpected(a.error());
    }
    auto b = loadFxGraph(right);
    if (!b) {
        return std::unexpected(b.error());
    }
    auto comparison = std::make_shared<KeyComparison>();
    comparison->left = left;
    comparison->right = right;
    comparison->leftFx = std::move(*a);
    comparison->rightFx = std::move(*b);
    // The debug lines view the documents, which moved with the entries unchanged.
    auto pair =
        explain::explain_pair(comparison->leftFx.debug_lines, comparison->rightFx.debug_lines);
    comparison->diff = std::move(pair.diff);
    comparison->inputs = std::move(pair.inputs);
    comparison->causes = std::move(pair.causes);
    return std::shared_ptr<const KeyComparison>(std::move(comparison));
}

} // namespace cachelens::ui
