#pragma once

// One word per artifact for what importing it means (docs/SECURITY.md,
// "Threat model"): the answer `import`, `remote pull`, `bundle ls`, `verify`
// and the GUI's import and pull dialogs give first, before the details.

#include <cachelens/safety/finding.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::safety {

enum class Verdict : std::uint8_t {
    DataOnly,         // nothing PyTorch will run: best_configs, profiles, entries without code
    InductorCode,     // code PyTorch will run, all of it Inductor's generated vocabulary
    CodeWithFindings, // a pickle call outside the policy or code outside the vocabulary
    Unreadable,       // does not parse, or a key/path/size problem: never imported
};

// "data only", "Inductor code", "code with findings", "unreadable".
std::string_view to_string(Verdict verdict);
// "data-only", "inductor-code", "code-with-findings", "unreadable": --json.
std::string_view json_name(Verdict verdict);

// Why an artifact with findings may still be imported.
enum class CodeConsent : std::uint8_t {
    NotNeeded,     // no findings
    Refused,       // findings, and neither of the two below
    AllowedByUser, // every finding's id was given (--allow-code ID...)
    TrustedSigner, // the bundle's signature was verified against a key the user trusts
};

// What the user allows beyond the verdicts: finding ids, or a trusted signer.
struct CodeTrust {
    std::vector<std::string> allowed_ids; // --allow-code
    bool signed_by_trusted_key = false;   // a bundle verified with --require-signature
};

// The consent for an artifact with these findings under `trust`.
CodeConsent consent_for(const std::vector<Finding>& findings, const CodeTrust& trust);

} // namespace cachelens::safety
