#include "data/key_comparison.h"

namespace cachelens::ui {

Result<cachedir::FxGraphEntry> loadFxGraph(const EntryRef& ref) {
    if (!ref.valid()) {
        return fail(ErrorKind::InvalidArgument, "no entry given");
    }
    return explain::load_graph_to_compare(ref.root, ref.entry);
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
    // The debug lines view the documents, which moved with the entries
    // unchanged; lines read from entries without them live in keep_alive.
    auto pair = explain::explain_entries(comparison->leftFx, comparison->rightFx);
    comparison->diff = std::move(pair.diff);
    comparison->inputs = std::move(pair.inputs);
    comparison->causes = std::move(pair.causes);
    comparison->fromFacts = pair.from_facts;
    comparison->leftLines = std::move(pair.before_lines);
    comparison->rightLines = std::move(pair.after_lines);
    comparison->keepAlive = std::move(pair.keep_alive);
    return std::shared_ptr<const KeyComparison>(std::move(comparison));
}

} // namespace cachelens::ui
