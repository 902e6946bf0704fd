// libFuzzer target: the mega-cache bundle codec, every form (crc32, no crc,
// type enum, pickle). Any bytes give a bundle or an Error, never a crash or an
// allocation past the input's size; a bundle that decodes encodes to a
// current-form bundle that decodes to the same artifacts and encodes to the
// same bytes again; with the crc check off, a bundle that decoded with it
// decodes the same. Each artifact of a bundle that decodes is judged as an
// import judges it (key, parse, pickle policy, code audit: issue #17): a
// verdict with its findings complete, never a crash or a hang.

#include <cachelens/bundle/import.h>
#include <cachelens/bundle/mega_cache.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

using cachelens::bundle::MegaBundle;

bool same_artifacts(const MegaBundle& a, const MegaBundle& b) {
    if (a.sections.size() != b.sections.size()) {
        return false;
    }
    for (std::size_t s = 0; s < a.sections.size(); ++s) {
        const auto& x = a.sections[s];
        const auto& y = b.sections[s];
        if (x.type != y.type || x.artifacts.size() != y.artifacts.size()) {
            return false;
        }
        for (std::size_t i = 0; i < x.artifacts.size(); ++i) {
            if (x.artifacts[i].key != y.artifacts[i].key ||
                x.artifacts[i].content != y.artifacts[i].content) {
                return false;
            }
        }
    }
    return true;
}

void trap_unless(bool promise) {
    if (!promise) {
        __builtin_trap();
    }
}

// check_artifact's promises: findings only with "code with findings", which
// the default rules refuse; an unreadable artifact is never let in.
void judge(const MegaBundle& bundle) {
    using namespace cachelens;
    for (const auto& section : bundle.sections) {
        for (const auto& artifact : section.artifacts) {
            const auto checked =
                bundle::check_artifact(section.type, artifact.key, artifact.content);
            const bool findings = !checked.findings.empty();
            trap_unless(findings == (checked.verdict == safety::Verdict::CodeWithFindings));
            trap_unless(findings == (checked.consent == safety::CodeConsent::Refused));
            // Unreadable: something besides findings refuses it, and no consent can.
            trap_unless((checked.verdict == safety::Verdict::Unreadable) ==
                        (!findings && !checked.readable));
            trap_unless(checked.readable || !checked.problems.empty());
            for (const auto& finding : checked.findings) {
                trap_unless(finding.id.size() == 13 && !finding.rule.empty() &&
                            !finding.file.empty());
            }
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens::bundle;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    auto unchecked = decode_mega_cache(bytes, MegaDecodeOptions{.check_crc = false, .owner = {}});
    auto decoded = decode_mega_cache(bytes);
    if (!decoded) {
        return 0;
    }
    if (!unchecked || !unchecked->crc_matches || !same_artifacts(*decoded, *unchecked)) {
        __builtin_trap();
    }
    const std::string encoded = encode_mega_cache(*decoded);
    auto again = decode_mega_cache(encoded);
    if (!again || again->form != MegaBundle::Form::Crc32 || !same_artifacts(*decoded, *again) ||
        encode_mega_cache(*again) != encoded) {
        __builtin_trap();
    }
    judge(*decoded);
    return 0;
}
