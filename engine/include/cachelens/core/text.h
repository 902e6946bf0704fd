#pragma once

// Text helpers shared by the decoders: UTF-8 checks and Python's escape
// decoders (string literals, protocol-0 pickle strings); and the one way text
// from a cache reaches a terminal (escape_for_terminal).

#include <cstdint>
#include <expected>
#include <span>
#include <string>
#include <string_view>

namespace cachelens {

bool is_ascii(std::string_view bytes);

// `text` without leading and trailing ASCII whitespace (" \t\r\n\f\v").
std::string_view trim_space(std::string_view text);

// `text` on one line, for a row of a report: each run of white space that
// holds a line break becomes " / ", the ends trimmed ("raised:\nRuntimeError:
// x" -> "raised: / RuntimeError: x"). Multi-line reasons PyTorch logs stay
// readable without breaking the layout around them.
std::string one_line(std::string_view text);

// The items with `separator` between each two: "a, b, c".
std::string join(std::span<const std::string> items, std::string_view separator = ", ");

// The last `lines` lines of `text` without its trailing newlines and spaces:
// where a child process said it failed, from its stderr.
std::string last_lines(std::string_view text, std::size_t lines);

// UTF-8 as Python's "surrogatepass" decoder accepts it (encoded surrogates are
// allowed, overlong forms and code points past U+10FFFF are not).
bool is_valid_utf8(std::string_view bytes);

void append_utf8(std::string& out, std::uint32_t code_point);

// Text from a cache made safe to print on a terminal: it is data, never a
// control sequence. Escaped: the ASCII controls but \n and \t as `\xNN`
// (`\r` as `\r`, DEL as `\x7f`); the C1 controls (U+0080-U+009F), encoded
// surrogates, the line and paragraph separators (U+2028, U+2029) and the
// bidi controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) as
// `\uNNNN`; each byte that is not UTF-8 as `\xNN`. Everything else, the
// backslash included, is kept: the result is for reading, not for decoding.
std::string escape_for_terminal(std::string_view text);
void append_escaped_for_terminal(std::string& out, std::string_view text);

// The bytes at the end of `text` that start a UTF-8 sequence the next bytes
// may complete (0 to 3): a writer that receives text in pieces keeps them for
// the next piece instead of escaping half a character.
std::size_t incomplete_utf8_tail(std::string_view text);

// `word` as a POSIX shell reads it back: as it is when it holds only
// characters no shell treats specially, else in single quotes ('\'' for a quote).
// For commands cachelens suggests ("cachelens ls '/my dir' ...").
std::string shell_quote(std::string_view word);

// The value of a hex digit (either case), or -1.
int hex_digit_value(char c);

enum class EscapeMode {
    Bytes, // b'...' and pickle STRING: \xhh and octal are bytes; no \u
    Text,  // '...': \xhh, octal, \u, \U name code points, written as UTF-8
};

// Decodes the backslash escapes of a Python string literal body (without its
// quotes). Unknown escapes stay as written, as Python does. The error says
// which escape is malformed.
std::expected<std::string, std::string> decode_python_escapes(std::string_view body,
                                                              EscapeMode mode);

// Python's raw-unicode-escape codec (pickle protocol 0 UNICODE): \uXXXX and
// \UXXXXXXXX after an odd run of backslashes; every other byte is Latin-1.
std::expected<std::string, std::string> decode_raw_unicode_escape(std::string_view raw);

} // namespace cachelens
