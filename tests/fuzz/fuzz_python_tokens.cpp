// libFuzzer target: the Python tokenizer and the code audit on arbitrary
// bytes. Tokenizing must end in tokens or an Error; every token must lie
// inside the input, in order, with its f-string fields inside the field list;
// every string token must decode or fail cleanly; the audit of the input as
// each kind of Python, and as C++, must end in findings (or the tokenizer's
// Error), never a crash or a hang.

#include <cachelens/safety/code_audit.h>
#include <cachelens/safety/python_tokens.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

void check_token(const cachelens::safety::PyToken& token, std::string_view text,
                 std::size_t fields) {
    if (token.text.data() < text.data() ||
        token.text.data() + token.text.size() > text.data() + text.size()) {
        __builtin_trap(); // a token outside the input
    }
    if (token.end_line < token.line || token.field_begin > token.field_end ||
        token.field_end > fields) {
        __builtin_trap();
    }
    if (token.kind == cachelens::safety::PyTokenKind::String) {
        (void)cachelens::safety::decode_string_token(token.text);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cachelens::safety;
    const std::string_view text(reinterpret_cast<const char*>(data), size);

    if (auto tokens = tokenize_python(text)) {
        if (tokens->tokens.empty() || tokens->tokens.back().kind != PyTokenKind::EndMarker) {
            __builtin_trap();
        }
        std::size_t previous_line = 0;
        for (const PyToken& token : tokens->tokens) {
            check_token(token, text, tokens->field_tokens.size());
            if (token.line < previous_line) {
                __builtin_trap(); // tokens out of order
            }
            previous_line = token.line;
        }
        for (const PyToken& token : tokens->field_tokens) {
            check_token(token, text, tokens->field_tokens.size());
        }
    }
    for (const PythonCode kind :
         {PythonCode::InductorWrapper, PythonCode::TritonKernel, PythonCode::GraphModule}) {
        (void)audit_python(text, "fuzz", kind);
    }
    (void)audit_cpp(text, "fuzz.cpp");
    return 0;
}
