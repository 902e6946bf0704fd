#pragma once

// A tokenizer for Python source following the rules of CPython's `tokenize`
// module (3.11: an f-string is one STRING token): NAME, NUMBER, STRING (every
// prefix of r/u/b/f in any case and order, single and triple quotes, escapes,
// backslash-newline inside strings), OP, COMMENT, NEWLINE and NL, INDENT and
// DEDENT, implicit line joining inside brackets and explicit `\` joining.
//
// The code inside an f-string's replacement fields is code: it is tokenized
// too (recursively, nested f-strings included) and kept beside the string
// token, so `f"{__import__('os')}"` is seen as the call it is.
//
// Used by the code audit (code_audit.h) on sources PyTorch would import: it
// never evaluates anything, and it is bounded on hostile input: iterative,
// with bracket nesting and f-string nesting limited as CPython limits them.
// Errors (an unterminated string, a dedent to no outer level, a stray
// character) name the line.

#include <cachelens/core/error.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::safety {

enum class PyTokenKind : std::uint8_t {
    Name,
    Number,
    String,
    Op,
    Comment,
    Newline, // ends a logical line
    Nl,      // a line break that does not end a logical line (blank, comment, in brackets)
    Indent,
    Dedent,
    EndMarker,
};

// tokenize's name for a kind: "NAME", "NUMBER", "STRING", "OP", ...
std::string_view to_string(PyTokenKind kind);

struct PyToken {
    PyTokenKind kind = PyTokenKind::Op;
    std::string_view text; // as written, a view into the source
    // 1-based lines, 0-based columns in code points (as tokenize counts them).
    std::size_t line = 0;
    std::size_t column = 0;
    std::size_t end_line = 0;
    std::size_t end_column = 0;
    // An f-string: its replacement fields' tokens are
    // PyTokens::field_tokens[field_begin, field_end) (fields of nested
    // f-strings included, each after its own string token).
    std::uint32_t field_begin = 0;
    std::uint32_t field_end = 0;
};

struct PyTokens {
    std::vector<PyToken> tokens;       // the module's tokens, ENDMARKER last
    std::vector<PyToken> field_tokens; // the code of every f-string's replacement fields
};

// Tokenizes `source` (UTF-8). The views in the result point into `source`.
Result<PyTokens> tokenize_python(std::string_view source);

// A STRING token's prefix letters, lowercased ("rb", "f", ""); empty when the
// text is not a string literal.
std::string string_prefix(std::string_view token_text);

struct DecodedString {
    std::string value; // UTF-8; the bytes themselves for a bytes literal
    // The 0-based line offset, from the token's first line, of each line of
    // `value` (line 0 starts on the token's own line): where an escape or a
    // backslash-newline makes the decoded lines differ from the written ones.
    std::vector<std::size_t> line_offsets;
};

// Decodes a STRING token's value as Python would: raw strings keep their
// backslashes; \n \t \\ \' \" \a \b \f \v \r, octal, \xhh, \uXXXX and
// \UXXXXXXXX (str only) are decoded; a backslash-newline is removed; unknown
// escapes are kept as written. Fails on an f-string (its value is computed),
// on \N{...} (a name table this reader does not carry) and on a malformed
// escape.
Result<DecodedString> decode_string_token(std::string_view token_text);

} // namespace cachelens::safety
