#include <cachelens/core/text.h>
#include <cachelens/safety/python_tokens.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>

namespace cachelens::safety {

namespace {

// CPython's own limits (Parser/tokenizer.c MAXLEVEL; f-strings nest far less
// deep in any real source): past them the input is refused, not recursed into.
constexpr std::size_t max_bracket_depth = 200;
constexpr int max_fstring_depth = 32;

bool is_ascii_alpha(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_digit(unsigned char c) {
    return c >= '0' && c <= '9';
}
bool is_name_start(unsigned char c) {
    return is_ascii_alpha(c) || c == '_' || c >= 0x80;
}
bool is_name_char(unsigned char c) {
    return is_name_start(c) || is_digit(c);
}

bool is_string_prefix(std::string_view name) {
    if (name.empty() || name.size() > 2) {
        return false;
    }
    std::string lower;
    for (const char c : name) {
        lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    static constexpr std::array prefixes{"r", "u", "b", "f", "br", "rb", "fr", "rf"};
    return std::ranges::find(prefixes, lower) != prefixes.end();
}

class Lexer {
public:
    Lexer(std::string_view source, PyTokens& out)
        : src_(source)
        , out_(out) {}

    Result<void> run() {
        bool continuation = false;
        bool logical_has_tokens = false;
        while (pos_ < src_.size()) {
            if (brackets_.empty() && !continuation) {
                std::size_t width = 0;
                std::size_t p = pos_;
                for (; p < src_.size(); ++p) {
                    const char c = src_[p];
                    if (c == ' ') {
                        ++width;
                    } else if (c == '\t') {
                        width = (width / 8 + 1) * 8;
                    } else if (c == '\f') {
                        width = 0;
                    } else {
                        break;
                    }
                }
                pos_ = p;
                if (p >= src_.size()) {
                    break;
                }
                if (src_[p] == '#' || newline_length(p) > 0) {
                    // A blank or comment-only line: no indentation change.
                    if (src_[p] == '#') {
                        emit_comment(out_.tokens);
                    }
                    if (pos_ < src_.size()) {
                        emit_line_break(PyTokenKind::Nl, out_.tokens);
                    } else {
                        // A comment on the last line, with no line break after it.
                        const std::size_t col = column(pos_);
                        out_.tokens.push_back(PyToken{.kind = PyTokenKind::Nl,
                                                      .text = src_.substr(pos_, 0),
                                                      .line = line_,
                                                      .column = col,
                                                      .end_line = line_,
                                                      .end_column = col});
                    }
                    continue;
                }
                if (auto indented = indent_to(width); !indented) {
                    return indented;
                }
            }
            continuation = false;
            // The tokens of one physical line.
            while (true) {
                skip_blanks();
                if (pos_ >= src_.size()) {
                    break;
                }
                const char c = src_[pos_];
                if (newline_length(pos_) > 0) {
                    const bool ends_statement = brackets_.empty() && logical_has_tokens;
                    emit_line_break(ends_statement ? PyTokenKind::Newline : PyTokenKind::Nl,
                                    out_.tokens);
                    if (ends_statement) {
                        logical_has_tokens = false;
                    }
                    break;
                }
                if (c == '#') {
                    emit_comment(out_.tokens);
                    continue;
                }
                if (c == '\\') {
                    const std::size_t after = newline_length(pos_ + 1);
                    if (after == 0) {
                        return error(pos_ + 1 >= src_.size()
                                         ? "unexpected end of file after a line continuation"
                                         : "unexpected character after line continuation "
                                           "character");
                    }
                    pos_ += 1;
                    consume_newline(after);
                    continuation = true;
                    break;
                }
                if (auto scanned = scan_token(brackets_, out_.tokens, 0); !scanned) {
                    return scanned;
                }
                logical_has_tokens = true;
            }
            if (continuation && pos_ >= src_.size()) {
                return error("unexpected end of file after a line continuation");
            }
        }
        if (!brackets_.empty()) {
            return fail(ErrorKind::Corrupt,
                        fmt::format("line {}: end of file inside an open '{}' (opened at line {})",
                                    line_, brackets_.back(), bracket_lines_.back()));
        }
        const bool ends_with_newline = !src_.empty() && newline_length(src_.size() - 1) > 0;
        if (logical_has_tokens) {
            const std::size_t col = column(pos_);
            out_.tokens.push_back(PyToken{.kind = PyTokenKind::Newline,
                                          .text = src_.substr(pos_, 0),
                                          .line = line_,
                                          .column = col,
                                          .end_line = line_,
                                          .end_column = col + 1});
        }
        const std::size_t end_line = ends_with_newline || src_.empty() ? line_ : line_ + 1;
        for (; indents_.size() > 1; indents_.pop_back()) {
            out_.tokens.push_back(PyToken{.kind = PyTokenKind::Dedent,
                                          .text = src_.substr(src_.size(), 0),
                                          .line = end_line,
                                          .end_line = end_line});
        }
        out_.tokens.push_back(PyToken{.kind = PyTokenKind::EndMarker,
                                      .text = src_.substr(src_.size(), 0),
                                      .line = end_line,
                                      .end_line = end_line});
        return {};
    }

private:
    std::unexpected<Error> error(std::string_view what) const {
        return fail(ErrorKind::Corrupt, fmt::format("line {}: {}", line_, what));
    }

    std::size_t newline_length(std::size_t p) const {
        if (p >= src_.size()) {
            return 0;
        }
        if (src_[p] == '\n') {
            return 1;
        }
        if (src_[p] == '\r') {
            return p + 1 < src_.size() && src_[p + 1] == '\n' ? 2 : 1;
        }
        return 0;
    }

    void consume_newline(std::size_t length) {
        pos_ += length;
        ++line_;
        line_start_ = pos_;
    }

    // Code points from the start of the current line to `p` (on that line).
    // Cached, so a long line is counted once, not once per token.
    std::size_t column(std::size_t p) {
        if (cached_line_start_ != line_start_ || p < cached_pos_) {
            cached_line_start_ = line_start_;
            cached_pos_ = line_start_;
            cached_column_ = 0;
        }
        for (; cached_pos_ < p; ++cached_pos_) {
            if ((static_cast<unsigned char>(src_[cached_pos_]) & 0xC0) != 0x80) {
                ++cached_column_;
            }
        }
        return cached_column_;
    }

    void skip_blanks() {
        while (pos_ < src_.size() &&
               (src_[pos_] == ' ' || src_[pos_] == '\t' || src_[pos_] == '\f')) {
            ++pos_;
        }
    }

    Result<void> indent_to(std::size_t width) {
        const std::size_t col = column(pos_);
        if (width > indents_.back()) {
            indents_.push_back(width);
            out_.tokens.push_back(PyToken{.kind = PyTokenKind::Indent,
                                          .text = src_.substr(line_start_, pos_ - line_start_),
                                          .line = line_,
                                          .column = 0,
                                          .end_line = line_,
                                          .end_column = col});
            return {};
        }
        while (width < indents_.back()) {
            indents_.pop_back();
            out_.tokens.push_back(PyToken{.kind = PyTokenKind::Dedent,
                                          .text = src_.substr(pos_, 0),
                                          .line = line_,
                                          .column = col,
                                          .end_line = line_,
                                          .end_column = col});
        }
        if (width != indents_.back()) {
            return error("unindent does not match any outer indentation level");
        }
        return {};
    }

    void emit_comment(std::vector<PyToken>& sink) {
        const std::size_t start = pos_;
        while (pos_ < src_.size() && newline_length(pos_) == 0) {
            ++pos_;
        }
        push(sink, PyTokenKind::Comment, start, line_, column(start));
    }

    void emit_line_break(PyTokenKind kind, std::vector<PyToken>& sink) {
        const std::size_t start = pos_;
        const std::size_t col = column(start);
        const std::size_t length = newline_length(pos_);
        sink.push_back(PyToken{.kind = kind,
                               .text = src_.substr(start, length),
                               .line = line_,
                               .column = col,
                               .end_line = line_,
                               .end_column = col + length});
        consume_newline(length);
    }

    // Pushes the token src_[start, pos_) that began at (line, col).
    void push(std::vector<PyToken>& sink, PyTokenKind kind, std::size_t start, std::size_t line,
              std::size_t col) {
        sink.push_back(PyToken{.kind = kind,
                               .text = src_.substr(start, pos_ - start),
                               .line = line,
                               .column = col,
                               .end_line = line_,
                               .end_column = column(pos_)});
    }

    // One NAME, NUMBER, STRING or OP at pos_.
    Result<void> scan_token(std::vector<char>& brackets, std::vector<PyToken>& sink,
                            int fstring_depth) {
        const std::size_t start = pos_;
        const std::size_t line = line_;
        const std::size_t col = column(start);
        const auto c = static_cast<unsigned char>(src_[pos_]);
        if (is_name_start(c)) {
            while (pos_ < src_.size() && is_name_char(static_cast<unsigned char>(src_[pos_]))) {
                ++pos_;
            }
            const std::string_view name = src_.substr(start, pos_ - start);
            if (pos_ < src_.size() && (src_[pos_] == '\'' || src_[pos_] == '"') &&
                is_string_prefix(name)) {
                return scan_string(start, line, col, sink, fstring_depth);
            }
            push(sink, PyTokenKind::Name, start, line, col);
            return {};
        }
        if (is_digit(c) || (c == '.' && pos_ + 1 < src_.size() &&
                            is_digit(static_cast<unsigned char>(src_[pos_ + 1])))) {
            scan_number();
            push(sink, PyTokenKind::Number, start, line, col);
            return {};
        }
        if (c == '\'' || c == '"') {
            return scan_string(start, line, col, sink, fstring_depth);
        }
        static constexpr std::array<std::string_view, 5> three{"**=", "//=", ">>=", "<<=", "..."};
        static constexpr std::array<std::string_view, 19> two{
            "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "->", "+=",
            "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", ":="};
        const std::string_view rest = src_.substr(pos_);
        for (const auto op : three) {
            if (rest.starts_with(op)) {
                pos_ += 3;
                push(sink, PyTokenKind::Op, start, line, col);
                return {};
            }
        }
        for (const auto op : two) {
            if (rest.starts_with(op)) {
                pos_ += 2;
                push(sink, PyTokenKind::Op, start, line, col);
                return {};
            }
        }
        static constexpr std::string_view singles = "+-*/%@&|^~<>()[]{},:;.=";
        if (singles.find(static_cast<char>(c)) == std::string_view::npos) {
            if (c < 0x20 || c == 0x7f) {
                return error(fmt::format("unexpected control character 0x{:02x}", c));
            }
            return error(fmt::format("unexpected character '{}'", static_cast<char>(c)));
        }
        if (c == '(' || c == '[' || c == '{') {
            if (brackets.size() >= max_bracket_depth) {
                return error("too many nested brackets");
            }
            brackets.push_back(static_cast<char>(c));
            bracket_lines_.push_back(line_);
        } else if (c == ')' || c == ']' || c == '}') {
            const char opening = c == ')' ? '(' : c == ']' ? '[' : '{';
            if (brackets.empty() || brackets.back() != opening) {
                return error(fmt::format("unmatched '{}'", static_cast<char>(c)));
            }
            brackets.pop_back();
            bracket_lines_.pop_back();
        }
        ++pos_;
        push(sink, PyTokenKind::Op, start, line, col);
        return {};
    }

    void scan_digits(bool hex) {
        while (pos_ < src_.size()) {
            const auto d = static_cast<unsigned char>(src_[pos_]);
            if (is_digit(d) || d == '_' || (hex && std::isxdigit(d))) {
                ++pos_;
            } else {
                break;
            }
        }
    }

    void scan_number() {
        if (src_[pos_] == '0' && pos_ + 1 < src_.size() &&
            std::string_view("xXoObB").find(src_[pos_ + 1]) != std::string_view::npos) {
            const bool hex = src_[pos_ + 1] == 'x' || src_[pos_ + 1] == 'X';
            pos_ += 2;
            scan_digits(hex);
            return;
        }
        scan_digits(false);
        if (pos_ < src_.size() && src_[pos_] == '.') {
            ++pos_;
            scan_digits(false);
        }
        if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
            std::size_t p = pos_ + 1;
            if (p < src_.size() && (src_[p] == '+' || src_[p] == '-')) {
                ++p;
            }
            if (p < src_.size() && is_digit(static_cast<unsigned char>(src_[p]))) {
                pos_ = p;
                scan_digits(false);
            }
        }
        if (pos_ < src_.size() && (src_[pos_] == 'j' || src_[pos_] == 'J')) {
            ++pos_;
        }
    }

    // A string literal starting at `start` (its prefix included).
    Result<void> scan_string(std::size_t start, std::size_t line, std::size_t col,
                             std::vector<PyToken>& sink, int fstring_depth) {
        const std::string prefix = string_prefix(src_.substr(start));
        const bool formatted = prefix.find('f') != std::string::npos;
        if (formatted && fstring_depth >= max_fstring_depth) {
            return error("f-strings nested too deeply");
        }
        const std::size_t index = sink.size();
        sink.push_back({});
        const auto field_begin = static_cast<std::uint32_t>(out_.field_tokens.size());
        pos_ = start + prefix.size();
        const char quote = src_[pos_];
        const bool triple = src_.substr(pos_, 3) == std::string(3, quote);
        pos_ += triple ? 3 : 1;
        while (true) {
            if (pos_ >= src_.size()) {
                return fail(ErrorKind::Corrupt,
                            fmt::format("line {}: unterminated {}string literal", line,
                                        triple ? "triple-quoted " : ""));
            }
            const char c = src_[pos_];
            if (c == '\\') {
                ++pos_;
                if (const std::size_t length = newline_length(pos_); length > 0) {
                    consume_newline(length);
                } else if (pos_ < src_.size() &&
                           !(formatted && (src_[pos_] == '{' || src_[pos_] == '}'))) {
                    ++pos_;
                }
                continue;
            }
            if (const std::size_t length = newline_length(pos_); length > 0) {
                if (!triple) {
                    return fail(ErrorKind::Corrupt,
                                fmt::format("line {}: unterminated string literal", line));
                }
                consume_newline(length);
                continue;
            }
            if (c == quote) {
                if (!triple) {
                    ++pos_;
                    break;
                }
                if (src_.substr(pos_, 3) == std::string(3, quote)) {
                    pos_ += 3;
                    break;
                }
                ++pos_;
                continue;
            }
            if (formatted && c == '{') {
                if (pos_ + 1 < src_.size() && src_[pos_ + 1] == '{') {
                    pos_ += 2;
                    continue;
                }
                ++pos_;
                if (auto field = scan_field(quote, triple, fstring_depth + 1); !field) {
                    return field;
                }
                continue;
            }
            if (formatted && c == '}') {
                if (pos_ + 1 < src_.size() && src_[pos_ + 1] == '}') {
                    pos_ += 2;
                    continue;
                }
                return error("f-string: single '}' is not allowed");
            }
            ++pos_;
        }
        sink[index] = PyToken{
            .kind = PyTokenKind::String,
            .text = src_.substr(start, pos_ - start),
            .line = line,
            .column = col,
            .end_line = line_,
            .end_column = column(pos_),
            .field_begin = formatted ? field_begin : 0,
            .field_end = formatted ? static_cast<std::uint32_t>(out_.field_tokens.size()) : 0};
        return {};
    }

    // Skips a line break inside an f-string's field: allowed in a
    // triple-quoted one only. Returns false when there is none at pos_.
    Result<bool> field_line_break(bool triple) {
        const std::size_t length = newline_length(pos_);
        if (length == 0) {
            return false;
        }
        if (!triple) {
            return fail(
                ErrorKind::Corrupt,
                fmt::format("line {}: unterminated f-string (a line break inside a field)", line_));
        }
        consume_newline(length);
        return true;
    }

    // One replacement field of an f-string, after its '{': the expression,
    // then `=`, `!conversion` and `:format spec` (whose own fields nest).
    Result<void> scan_field(char quote, bool triple, int depth) {
        std::vector<char> brackets;
        bool in_expression = true;
        while (true) {
            if (in_expression) {
                skip_blanks();
            }
            if (pos_ >= src_.size()) {
                return error("unterminated f-string");
            }
            auto broke = field_line_break(triple);
            if (!broke) {
                return std::unexpected(broke.error());
            }
            if (*broke) {
                continue;
            }
            const char c = src_[pos_];
            const char next = pos_ + 1 < src_.size() ? src_[pos_ + 1] : '\0';
            if (!in_expression) {
                // The format spec: text, with nested fields.
                if (c == '}') {
                    ++pos_;
                    return {};
                }
                if (c == '{') {
                    if (depth >= max_fstring_depth) {
                        return error("f-strings nested too deeply");
                    }
                    ++pos_;
                    if (auto nested = scan_field(quote, triple, depth + 1); !nested) {
                        return nested;
                    }
                    continue;
                }
                if (c == quote) {
                    return error("f-string: expecting '}'");
                }
                ++pos_;
                continue;
            }
            if (brackets.empty()) {
                if (c == '}') {
                    ++pos_;
                    return {};
                }
                if (c == '!' && next != '=') {
                    ++pos_;
                    while (pos_ < src_.size() &&
                           is_name_char(static_cast<unsigned char>(src_[pos_]))) {
                        ++pos_;
                    }
                    continue;
                }
                if (c == ':') {
                    ++pos_;
                    in_expression = false;
                    continue;
                }
                if (c == '=' && next != '=') {
                    ++pos_;
                    continue;
                }
            }
            if (c == quote) {
                return error("f-string: expecting '}'");
            }
            if (c == '#') {
                return error("f-string expression part cannot include '#'");
            }
            if (c == '\\') {
                return error("f-string expression part cannot include a backslash");
            }
            if (auto scanned = scan_token(brackets, out_.field_tokens, depth); !scanned) {
                return scanned;
            }
        }
    }

    std::string_view src_;
    PyTokens& out_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
    std::size_t line_start_ = 0;
    std::size_t cached_line_start_ = 0;
    std::size_t cached_pos_ = 0;
    std::size_t cached_column_ = 0;
    std::vector<std::size_t> indents_{0};
    std::vector<char> brackets_;
    std::vector<std::size_t> bracket_lines_;
};

// A \N{...} escape: an odd run of backslashes before an N.
bool has_name_escape(std::string_view segment) {
    for (std::size_t at = segment.find("\\N"); at != std::string_view::npos;
         at = segment.find("\\N", at + 1)) {
        std::size_t run = 0;
        while (run <= at && segment[at - run] == '\\') {
            ++run;
        }
        if (run % 2 == 1) {
            return true;
        }
    }
    return false;
}

} // namespace

std::string_view to_string(PyTokenKind kind) {
    switch (kind) {
    case PyTokenKind::Name:
        return "NAME";
    case PyTokenKind::Number:
        return "NUMBER";
    case PyTokenKind::String:
        return "STRING";
    case PyTokenKind::Op:
        return "OP";
    case PyTokenKind::Comment:
        return "COMMENT";
    case PyTokenKind::Newline:
        return "NEWLINE";
    case PyTokenKind::Nl:
        return "NL";
    case PyTokenKind::Indent:
        return "INDENT";
    case PyTokenKind::Dedent:
        return "DEDENT";
    case PyTokenKind::EndMarker:
        return "ENDMARKER";
    }
    return "?";
}

Result<PyTokens> tokenize_python(std::string_view source) {
    PyTokens tokens;
    Lexer lexer(source, tokens);
    if (auto ran = lexer.run(); !ran) {
        return std::unexpected(ran.error());
    }
    return tokens;
}

std::string string_prefix(std::string_view token_text) {
    std::string prefix;
    for (const char c : token_text) {
        if (c == '\'' || c == '"') {
            return prefix;
        }
        if (prefix.size() == 2 || !is_ascii_alpha(static_cast<unsigned char>(c))) {
            return {};
        }
        prefix += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return {};
}

Result<DecodedString> decode_string_token(std::string_view token_text) {
    const std::string prefix = string_prefix(token_text);
    std::string_view body = token_text.substr(prefix.size());
    if (body.empty() || (body.front() != '\'' && body.front() != '"')) {
        return fail(ErrorKind::InvalidArgument, "not a string literal");
    }
    if (prefix.find('f') != std::string::npos) {
        return fail(ErrorKind::InvalidArgument, "an f-string's value is computed when it runs");
    }
    const bool raw = prefix.find('r') != std::string::npos;
    const bool bytes = prefix.find('b') != std::string::npos;
    const std::size_t quotes =
        body.size() >= 6 && body.substr(0, 3) == std::string(3, body[0]) ? 3 : 1;
    if (body.size() < 2 * quotes) {
        return fail(ErrorKind::Corrupt, "truncated string literal");
    }
    body = body.substr(quotes, body.size() - 2 * quotes);

    // Line by line, so each decoded line knows the source line it starts on;
    // the escapes themselves are core/text.h's (never across a line break).
    DecodedString decoded;
    decoded.line_offsets.push_back(0);
    std::size_t source_line = 0;
    for (std::size_t start = 0; start <= body.size();) {
        std::size_t end = start;
        while (end < body.size() && body[end] != '\n' && body[end] != '\r') {
            ++end;
        }
        const bool at_break = end < body.size();
        const std::size_t break_length =
            !at_break                                                               ? 0
            : (body[end] == '\r' && end + 1 < body.size() && body[end + 1] == '\n') ? 2
                                                                                    : 1;
        std::string_view segment = body.substr(start, end - start);
        const std::size_t backslashes =
            segment.size() - std::min(segment.size(), segment.find_last_not_of('\\') + 1);
        // An odd run of backslashes before the break escapes it: outside a
        // raw string the backslash-newline is removed.
        const bool continuation = at_break && backslashes % 2 == 1;
        if (raw) {
            decoded.value += segment;
        } else {
            if (continuation) {
                segment.remove_suffix(1);
            }
            if (!bytes && has_name_escape(segment)) {
                return fail(ErrorKind::Unsupported,
                            "a \\N{...} escape (a Unicode character name) in a string literal");
            }
            auto text =
                decode_python_escapes(segment, bytes ? EscapeMode::Bytes : EscapeMode::Text);
            if (!text) {
                return fail(ErrorKind::Corrupt, "a string literal: " + text.error());
            }
            for (const char c : *text) {
                if (c == '\n') {
                    decoded.line_offsets.push_back(source_line); // a \n escape
                }
            }
            decoded.value += *text;
        }
        if (!at_break) {
            break;
        }
        ++source_line;
        // Python reads a source line break as "\n" (raw strings keep the
        // backslash before it too).
        if (raw || !continuation) {
            decoded.value += '\n';
            decoded.line_offsets.push_back(source_line);
        }
        start = end + break_length;
    }
    return decoded;
}

} // namespace cachelens::safety
