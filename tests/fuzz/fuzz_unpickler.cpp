// libFuzzer target for the safe pickle VM. Any bytes must either decode to a tree or
// give an Error, within the Limits, and whatever decodes must be safe to walk and to
// print: the VM's promise is "an Error, never a crash, a hang or a big allocation".
// Whatever decodes is then judged by the pickle policy as an entry and as a PGO
// profile (import safety, issue #17): findings, each complete, and any
// GraphModule code it carries audited as PyTorch would exec it. Read as an FX
// graph entry and as an AOTAutograd entry of any release (2.4's without a key,
// 2.6's list-form Triton bundle, ...): what such an entry holds of its key, and
// of the machine, is read without a fault.

#include <cachelens/cachedir/aot_autograd_entry.h>
#include <cachelens/cachedir/fingerprint.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/core/text.h>
#include <cachelens/explain/entry_facts.h>
#include <cachelens/pickle/repr.h>
#include <cachelens/pickle/unpickler.h>
#include <cachelens/safety/code_audit.h>
#include <cachelens/safety/pickle_policy.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_set>
#include <vector>

using namespace cachelens;
using namespace cachelens::pickle;

namespace {

// Well under libFuzzer's 2 GB RSS limit: running out of budget must be an Error the
// VM reports, not an out-of-memory kill the fuzzer would report instead.
Limits fuzz_limits() {
    Limits limits;
    limits.max_alloc = std::size_t{96} << 20;
    return limits;
}

// A broken promise: abort, so libFuzzer saves the input that did it.
void check(bool promise) {
    if (!promise) {
        __builtin_trap();
    }
}

// Visits every reachable node once (the tree is a graph: the memo shares nodes and
// makes cycles) and calls the accessors a reader of cache entries uses.
void walk(const Value& root, const Limits& limits) {
    std::unordered_set<const Value*> seen;
    std::vector<const Value*> pending{&root};
    while (!pending.empty()) {
        const Value* node = pending.back();
        pending.pop_back();
        if (node == nullptr || !seen.insert(node).second) {
            continue;
        }
        check(node->depth() <= limits.max_depth);
        switch (node->kind()) {
        case Kind::Str:
            // Every str was validated or decoded: it is UTF-8 (surrogates allowed).
            check(is_valid_utf8(node->text()));
            break;
        case Kind::BigInt:
            check(!node->to_decimal().empty());
            break;
        case Kind::Dict:
            (void)node->find("_fx_graph_cache_key");
            break;
        case Kind::Object:
            (void)node->class_name();
            (void)node->attribute("_fx_graph_cache_key");
            pending.insert(pending.end(),
                           {node->callable(), node->args(), node->kwargs(), node->state()});
            break;
        case Kind::PersistentId:
            pending.push_back(node->persistent_id());
            break;
        default:
            break;
        }
        for (const Value* item : node->items()) {
            pending.push_back(item);
        }
        for (const DictItem& item : node->dict_items()) {
            pending.push_back(item.key);
            pending.push_back(item.value);
        }
    }
}

// The policy's verdict on a decoded pickle: every finding complete and
// placed in the pickle; embedded code audited as reduce_graph_module runs it.
void judge(const Document& doc) {
    for (const auto schema : {safety::PickleSchema::Entry, safety::PickleSchema::Pgo}) {
        const auto checked = safety::check_pickle(doc, schema);
        for (const auto& finding : checked.findings) {
            check(finding.id.size() == 13 && finding.id[0] == 'F' && !finding.rule.empty() &&
                  !finding.why.empty() && finding.line == 0);
        }
        for (const auto& code : checked.code) {
            check(!code.where.empty());
            (void)safety::audit_python(code.import_block + code.source, code.where,
                                       safety::PythonCode::GraphModule);
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const Limits limits = fuzz_limits();
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto result = unpickle(bytes, nullptr, limits);
    if (!result) {
        check(!result.error().message.empty());
        return 0;
    }
    const Document& doc = **result;
    walk(doc.root(), limits);

    const ReprOptions defaults;
    check(repr(doc.root(), defaults).size() <= defaults.max_length + 3);
    ReprOptions qualified;
    qualified.qualified_names = true;
    qualified.max_items = 4;
    qualified.max_string = 8;
    (void)repr(doc.root(), qualified);
    judge(doc);
    if (auto fx = cachedir::read_fx_graph_entry(
            *result, "ffuzzfuzzfuzzfuzzfuzzfuzzfuzzfuzzfuzzfuzzfuzzfuzzfuzz")) {
        check(!fx->key.empty() && !fx->written_by.empty());
        (void)explain::recorded_key_facts(*fx);
        (void)cachedir::fingerprint_of(*fx).describe_with_devices();
    }
    (void)cachedir::read_aot_autograd_entry(*result);
    return 0;
}
