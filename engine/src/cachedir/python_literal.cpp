#include <cachelens/cachedir/python_literal.h>
#include <cachelens/core/text.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace cachelens::cachedir {

namespace {

using pickle::Builder;
using pickle::Kind;
using pickle::Value;

// Thrown inside the reader; the entry points turn it into an Error value.
struct SyntaxError {
    ErrorKind kind;
    std::size_t offset;
    std::string message;
};

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// Identifiers are ASCII letters, digits and '_', plus any non-ASCII UTF-8
// sequence (Python allows Unicode letters; we check the bytes are UTF-8).
bool is_name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           static_cast<unsigned char>(c) >= 0x80;
}

bool is_name_char(char c) {
    return is_name_start(c) || is_digit(c);
}

bool is_operator(char c) {
    return std::string_view("+-*/%@&|^<>=!~").find(c) != std::string_view::npos;
}

// Python keywords other than None/True/False: code, never part of a literal.
constexpr std::array<std::string_view, 32> kKeywords = {
    "and",    "as",   "assert", "async",  "await",  "break",   "class",    "continue",
    "def",    "del",  "elif",   "else",   "except", "finally", "for",      "from",
    "global", "if",   "import", "in",     "is",     "lambda",  "nonlocal", "not",
    "or",     "pass", "raise",  "return", "try",    "while",   "with",     "yield",
};

bool is_keyword(std::string_view name) {
    return std::find(kKeywords.begin(), kKeywords.end(), name) != kKeywords.end();
}

// "\n", "\r\n" or "\r" at `at`: its length, else 0.
std::size_t line_break_length(std::string_view text, std::size_t at) {
    if (at >= text.size()) {
        return 0;
    }
    if (text[at] == '\n') {
        return 1;
    }
    if (text[at] == '\r') {
        return at + 1 < text.size() && text[at + 1] == '\n' ? 2 : 1;
    }
    return 0;
}

// Spaces, tabs, form feeds and `\` line continuations: what separates tokens
// on one logical line.
std::size_t skip_inline_blank(std::string_view text, std::size_t i) {
    while (i < text.size()) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\f') {
            ++i;
        } else if (c == '\\' && line_break_length(text, i + 1) > 0) {
            i += 1 + line_break_length(text, i + 1);
        } else {
            break;
        }
    }
    return i;
}

std::string describe_byte(std::string_view text, std::size_t offset) {
    if (offset >= text.size()) {
        return "the end of the input";
    }
    const char c = text[offset];
    if (c == '\n' || c == '\r') {
        return "a line break";
    }
    if (c >= 0x20 && c < 0x7f) {
        return std::string("'") + c + "'";
    }
    char hex[16];
    std::snprintf(hex, sizeof hex, "byte 0x%02x", static_cast<unsigned char>(c));
    return hex;
}

// "line 3, column 7 (byte 52)" for `offset` in `text`, counting the lines
// unless an index of them is at hand.
std::string position_of(std::string_view text, std::size_t offset, const SourceLines* lines) {
    return lines != nullptr ? lines->position(offset) : SourceLines(text).position(offset);
}

std::unexpected<Error> to_error(std::string_view text, const SourceLines* lines, ErrorKind kind,
                                std::size_t offset, const std::string& message) {
    return fail(kind, position_of(text, offset, lines) + ": " + message);
}

struct StringPrefix {
    std::size_t length = 0;
    bool raw = false;
    bool bytes = false;
    bool formatted = false; // f/t-strings: code, not literals
};

// The prefix letters of a string literal starting at `offset`, or nullopt
// when no string literal starts there (a name like `rb_x` is not one).
std::optional<StringPrefix> string_prefix_at(std::string_view text, std::size_t offset) {
    StringPrefix prefix;
    bool unicode = false;
    std::size_t i = offset;
    for (; i < text.size() && i - offset < 3; ++i) {
        const char letter = static_cast<char>(text[i] | 0x20);
        bool* flag = letter == 'r'                    ? &prefix.raw
                     : letter == 'b'                  ? &prefix.bytes
                     : letter == 'u'                  ? &unicode
                     : letter == 'f' || letter == 't' ? &prefix.formatted
                                                      : nullptr;
        if (flag == nullptr || *flag) {
            break;
        }
        *flag = true;
    }
    if (i >= text.size() || (text[i] != '\'' && text[i] != '"')) {
        return std::nullopt;
    }
    prefix.length = i - offset;
    // Python's prefixes: r, u, b, f (or t), and r combined with b or f.
    const bool valid = prefix.length <= 2 && !(unicode && prefix.length > 1) &&
                       !(prefix.bytes && prefix.formatted);
    if (!valid) {
        return std::nullopt;
    }
    return prefix;
}

StringLiteralExtent scan_string(std::string_view text, std::size_t offset) {
    const auto prefix = string_prefix_at(text, offset);
    if (!prefix) {
        throw SyntaxError{offset >= text.size() ? ErrorKind::Truncated : ErrorKind::Corrupt, offset,
                          "expected a string literal, found " + describe_byte(text, offset)};
    }
    StringLiteralExtent extent;
    extent.begin = offset;
    extent.raw = prefix->raw;
    extent.bytes = prefix->bytes;
    const std::size_t quote_at = offset + prefix->length;
    const char quote = text[quote_at];
    const std::string_view triple(text.data() + quote_at,
                                  std::min<std::size_t>(3, text.size() - quote_at));
    extent.triple_quoted = triple == std::string_view(std::string(3, quote));
    extent.body_begin = quote_at + (extent.triple_quoted ? 3 : 1);
    for (std::size_t i = extent.body_begin; i < text.size();) {
        const char c = text[i];
        if (c == '\\') {
            i += 2; // an escaped quote or line break never ends the literal, raw or not
            continue;
        }
        if (c == quote && (!extent.triple_quoted || text.substr(i, 3) == triple)) {
            extent.body_end = i;
            extent.end = i + (extent.triple_quoted ? 3 : 1);
            return extent;
        }
        if (!extent.triple_quoted && (c == '\n' || c == '\r')) {
            throw SyntaxError{ErrorKind::Corrupt, offset,
                              "unterminated string literal: the line ends before its closing "
                              "quote"};
        }
        ++i;
    }
    throw SyntaxError{ErrorKind::Truncated, offset,
                      std::string("unterminated ") +
                          (extent.triple_quoted ? "triple-quoted " : "") +
                          "string literal: the input ends before its closing quote"};
}

// Whether a decimal float text that a double cannot hold is too large (rather
// than too small): where its first significant digit sits, plus its exponent.
bool float_text_overflows(std::string_view digits) {
    const std::size_t e_at = digits.find_first_of("eE");
    const std::string_view mantissa = digits.substr(0, e_at);
    long long exponent = 0;
    if (e_at != std::string_view::npos) {
        std::string_view exponent_text = digits.substr(e_at + 1);
        const bool negative = !exponent_text.empty() && exponent_text.front() == '-';
        if (!exponent_text.empty() &&
            (exponent_text.front() == '-' || exponent_text.front() == '+')) {
            exponent_text.remove_prefix(1);
        }
        const auto [end, ec] = std::from_chars(
            exponent_text.data(), exponent_text.data() + exponent_text.size(), exponent);
        // Past any magnitude a text can have, the exponent alone decides; kept
        // this far from the limits so that adding the magnitude cannot overflow.
        constexpr long long kFar = std::numeric_limits<long long>::max() / 2;
        if (ec == std::errc::result_out_of_range || exponent > kFar) {
            exponent = kFar;
        }
        exponent = negative ? -exponent : exponent;
    }
    const std::size_t point = std::min(mantissa.find('.'), mantissa.size());
    const std::size_t first = mantissa.find_first_not_of("0.");
    if (first == std::string_view::npos) {
        return false; // zero
    }
    const long long magnitude = first < point ? static_cast<long long>(point - first)
                                              : -static_cast<long long>(first - point - 1);
    return magnitude + exponent > 0;
}

// Python's float() of a str: "inf", "-Infinity", "nan", "1e3", with blanks around.
std::optional<double> python_float_of_text(std::string_view text) {
    const std::size_t first = text.find_first_not_of(" \t\n\r\f\v");
    if (first == std::string_view::npos) {
        return std::nullopt;
    }
    text = text.substr(first, text.find_last_not_of(" \t\n\r\f\v") - first + 1);
    double sign = 1.0;
    if (text.front() == '-' || text.front() == '+') {
        sign = text.front() == '-' ? -1.0 : 1.0;
        text.remove_prefix(1);
    }
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](char c) { return static_cast<char>(c | (c >= 'A' && c <= 'Z' ? 0x20 : 0)); });
    if (lower == "inf" || lower == "infinity") {
        return sign * std::numeric_limits<double>::infinity();
    }
    if (lower == "nan") {
        return std::numeric_limits<double>::quiet_NaN();
    }
    double value = 0;
    const auto [end, ec] = std::from_chars(lower.data(), lower.data() + lower.size(), value);
    if (ec != std::errc{} || end != lower.data() + lower.size() || lower.front() == '+' ||
        lower.front() == '-') {
        return std::nullopt;
    }
    return sign * value;
}

// Reads one expression by recursive descent. Nesting (brackets, calls) is
// bounded by max_depth before anything recurses, so hostile input cannot
// exhaust the stack; builder failures surface as exceptions the entry points
// turn into Error values.
class Reader {
public:
    Reader(Builder& builder, std::string_view text, std::size_t offset, std::uint32_t max_depth)
        : builder_(builder)
        , text_(text)
        , pos_(offset)
        , token_start_(offset)
        , max_depth_(max_depth) {}

    std::size_t position() const { return pos_; }
    std::size_t token_start() const { return token_start_; }

    Value* expression();
    // A whole input: one expression or a bare tuple (`1, 2`), as ast.literal_eval reads it.
    Value* whole_input();

private:
    // Holds one level of nesting while a bracketed construct is read.
    class Nesting {
    public:
        Nesting(Reader& reader, std::size_t open_at)
            : reader_(reader) {
            if (reader_.depth_ >= reader_.max_depth_) {
                reader_.fail(ErrorKind::LimitExceeded, open_at,
                             "nesting is deeper than the limit of " +
                                 std::to_string(reader_.max_depth_));
            }
            ++reader_.depth_;
        }
        ~Nesting() { --reader_.depth_; }
        Nesting(const Nesting&) = delete;
        Nesting& operator=(const Nesting&) = delete;

    private:
        Reader& reader_;
    };

    char peek(std::size_t ahead = 0) const {
        return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
    }
    bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }

    [[noreturn]] void fail(ErrorKind kind, std::size_t offset, std::string message) const {
        throw SyntaxError{kind, offset, std::move(message)};
    }
    [[noreturn]] void fail_expected(const std::string& what) const;

    // Inside brackets line breaks and comments are blank too, as in Python.
    void skip_blank() {
        pos_ = depth_ > 0 ? skip_python_blank(text_, pos_) : skip_inline_blank(text_, pos_);
    }

    Value* primary();
    Value* with_sign(Value* value, bool negative, std::size_t sign_at);
    Value* negated_big_int(const Value* value);
    Value* number();
    Value* integer(std::string_view token, std::size_t start);
    Value* real(std::string_view token, std::size_t start);
    Value* strings();
    std::string_view read_name();
    Value* name_or_call();
    Value* named_constant(std::string_view module, std::string_view name, std::size_t start);
    std::string_view dotted_module(std::size_t start, const std::vector<std::string_view>& parts);
    Value* call(Value* callable, std::size_t name_at);
    Value* made_by_builtin(const Value* callable, const std::vector<Value*>& positional,
                           const Value* keywords);
    std::optional<std::string_view> keyword_argument();
    Value* parenthesized();
    Value* list();
    Value* braces();

    // Reads items separated by commas up to `close` (a trailing comma is fine).
    template <class ReadItem>
    void items_until(char close, const std::string& what, ReadItem read_item);
    // After a first item: the rest of the items, or `close` right away.
    template <class ReadItem>
    void rest_of_items(char close, const std::string& what, ReadItem read_item);

    Builder& builder_;
    std::string_view text_;
    std::size_t pos_;
    std::size_t token_start_; // where the token being read began, for builder errors
    std::uint32_t max_depth_;
    std::uint32_t depth_ = 0;
};

void Reader::fail_expected(const std::string& what) const {
    const std::string found = describe_byte(text_, pos_);
    if (pos_ >= text_.size()) {
        fail(ErrorKind::Truncated, pos_, "expected " + what + ", found " + found);
    }
    if (is_operator(text_[pos_])) {
        fail(ErrorKind::Unsupported, pos_,
             "expected " + what + ", found the operator " + found + " (nothing is evaluated)");
    }
    fail(ErrorKind::Corrupt, pos_, "expected " + what + ", found " + found);
}

Value* Reader::whole_input() {
    pos_ = skip_python_blank(text_, pos_);
    Value* value = expression();
    skip_blank();
    if (at(',')) {
        std::vector<Value*> items{value};
        while (at(',')) {
            ++pos_;
            skip_blank();
            if (pos_ >= text_.size() || line_break_length(text_, pos_) > 0 || at('#')) {
                break; // a trailing comma
            }
            items.push_back(expression());
            skip_blank();
        }
        value = builder_.tuple(items);
    }
    pos_ = skip_python_blank(text_, pos_);
    if (pos_ < text_.size()) {
        fail_expected("the end of the input");
    }
    return value;
}

Value* Reader::expression() {
    skip_blank();
    // Signs are read in a loop, not by recursion: `- - - 1` cannot nest deep.
    const std::size_t sign_at = pos_;
    bool has_sign = false;
    bool negative = false;
    while (at('-') || at('+')) {
        has_sign = true;
        negative ^= at('-');
        ++pos_;
        skip_blank();
    }
    Value* value = primary();
    return has_sign ? with_sign(value, negative, sign_at) : value;
}

Value* Reader::primary() {
    token_start_ = pos_;
    if (pos_ >= text_.size()) {
        fail_expected("a value");
    }
    switch (text_[pos_]) {
    case '(':
        return parenthesized();
    case '[':
        return list();
    case '{':
        return braces();
    default:
        break;
    }
    if (string_prefix_at(text_, pos_)) {
        return strings();
    }
    if (is_digit(peek()) || (at('.') && is_digit(peek(1)))) {
        return number();
    }
    if (is_name_start(peek())) {
        return name_or_call();
    }
    fail_expected("a value");
}

Value* Reader::with_sign(Value* value, bool negative, std::size_t sign_at) {
    switch (value->kind()) {
    case Kind::Bool:
    case Kind::Int:
        if (!negative) {
            return builder_.integer(value->as_int()); // +True is 1
        }
        if (value->as_int() == std::numeric_limits<std::int64_t>::min()) {
            return builder_.integer_text("9223372036854775808");
        }
        return builder_.integer(-value->as_int());
    case Kind::BigInt:
        return negative ? negated_big_int(value) : value;
    case Kind::Float:
        return negative ? builder_.real(-value->as_float()) : value;
    default:
        fail(ErrorKind::Unsupported, sign_at,
             "a sign applies to numbers only, not to a " + std::string(to_string(value->kind())));
    }
}

Value* Reader::negated_big_int(const Value* value) {
    // Two's complement, widened by one byte so that negating the most negative
    // value of a width cannot overflow.
    std::string bytes(value->bigint_bytes());
    const bool was_negative = !bytes.empty() && (static_cast<unsigned char>(bytes.back()) & 0x80);
    bytes.push_back(was_negative ? '\xff' : '\0');
    unsigned carry = 1;
    for (char& byte : bytes) {
        const unsigned sum = static_cast<unsigned char>(~static_cast<unsigned char>(byte)) + carry;
        byte = static_cast<char>(sum & 0xff);
        carry = sum >> 8;
    }
    return builder_.integer_bytes(builder_.arena().copy(bytes));
}

Value* Reader::number() {
    const std::size_t start = pos_;
    auto skip_digits = [&] {
        while (is_digit(peek()) || at('_')) {
            ++pos_;
        }
    };
    const char base_letter = static_cast<char>(peek(1) | 0x20);
    if (at('0') && (base_letter == 'x' || base_letter == 'o' || base_letter == 'b')) {
        pos_ += 2;
        while (is_name_char(peek())) {
            ++pos_; // the builder checks each digit against the base
        }
        return integer(text_.substr(start, pos_ - start), start);
    }
    skip_digits();
    bool is_float = false;
    if (at('.')) {
        is_float = true;
        ++pos_;
        skip_digits();
    }
    const bool signed_exponent = peek(1) == '+' || peek(1) == '-';
    if ((peek() | 0x20) == 'e' && is_digit(peek(signed_exponent ? 2 : 1))) {
        is_float = true;
        pos_ += signed_exponent ? 2 : 1;
        skip_digits();
    }
    if ((peek() | 0x20) == 'j') {
        fail(ErrorKind::Unsupported, start, "complex numbers are not supported");
    }
    if (is_name_char(peek())) {
        while (is_name_char(peek())) {
            ++pos_;
        }
        fail(ErrorKind::Corrupt, start,
             "invalid number literal '" + std::string(text_.substr(start, pos_ - start)) + "'");
    }
    const std::string_view token = text_.substr(start, pos_ - start);
    return is_float ? real(token, start) : integer(token, start);
}

Value* Reader::integer(std::string_view token, std::size_t start) {
    const bool decimal =
        token.size() < 2 || std::isalpha(static_cast<unsigned char>(token[1])) == 0;
    const auto digits = static_cast<std::size_t>(
        std::count_if(token.begin(), token.end(), [](char c) { return c != '_'; }));
    if (decimal && digits > kMaxIntDigits) {
        fail(ErrorKind::LimitExceeded, start,
             "an int literal of " + std::to_string(digits) + " digits exceeds Python's limit of " +
                 std::to_string(kMaxIntDigits));
    }
    try {
        return builder_.integer_text(token);
    } catch (const pickle::BuildError& e) {
        fail(e.kind, start, e.message);
    }
}

Value* Reader::real(std::string_view token, std::size_t start) {
    // Underscores group digits: each must sit between two digits.
    std::string digits;
    digits.reserve(token.size());
    for (std::size_t i = 0; i < token.size(); ++i) {
        if (token[i] != '_') {
            digits += token[i];
        } else if (i == 0 || i + 1 == token.size() || !is_digit(token[i - 1]) ||
                   !is_digit(token[i + 1])) {
            fail(ErrorKind::Corrupt, start, "invalid float literal '" + std::string(token) + "'");
        }
    }
    double value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc::result_out_of_range) {
        // Python gives inf for a float literal too large, and 0.0 for one too small.
        value = float_text_overflows(digits) ? std::numeric_limits<double>::infinity() : 0.0;
    } else if (ec != std::errc{} || end != digits.data() + digits.size()) {
        fail(ErrorKind::Corrupt, start, "invalid float literal '" + std::string(token) + "'");
    }
    return builder_.real(value);
}

Value* Reader::strings() {
    // Adjacent literals concatenate. The value views the input when it is one
    // piece without escapes; otherwise it is assembled here and copied into the arena.
    std::optional<bool> bytes;
    std::string_view view;
    std::string assembled;
    bool is_assembled = false;
    for (bool first = true;; first = false) {
        const std::size_t start = pos_;
        if (string_prefix_at(text_, start)->formatted) {
            fail(ErrorKind::Unsupported, start, "f-strings are code, not literals");
        }
        const StringLiteralExtent extent = scan_string(text_, start);
        if (bytes && *bytes != extent.bytes) {
            fail(ErrorKind::Corrupt, start, "cannot mix bytes and str literals");
        }
        bytes = extent.bytes;
        const std::string_view body =
            text_.substr(extent.body_begin, extent.body_end - extent.body_begin);
        if (extent.bytes ? !is_ascii(body) : !is_valid_utf8(body)) {
            fail(ErrorKind::Corrupt, start,
                 extent.bytes ? "a bytes literal may hold ASCII characters only"
                              : "a string literal that is not valid UTF-8");
        }
        const bool needs_decoding = !extent.raw && body.find('\\') != std::string_view::npos;
        std::string decoded;
        if (needs_decoding) {
            auto result =
                decode_python_escapes(body, extent.bytes ? EscapeMode::Bytes : EscapeMode::Text);
            if (!result) {
                fail(ErrorKind::Corrupt, start, "in a string literal: " + result.error());
            }
            decoded = std::move(*result);
        }
        const std::string_view piece = needs_decoding ? std::string_view(decoded) : body;
        if (first && !needs_decoding) {
            view = piece;
        } else {
            if (!is_assembled) {
                assembled.assign(view);
                is_assembled = true;
            }
            assembled += piece;
        }
        pos_ = extent.end;
        const std::size_t after = pos_;
        skip_blank();
        if (!string_prefix_at(text_, pos_)) {
            pos_ = after; // what follows is not ours to consume
            break;
        }
    }
    if (is_assembled) {
        view = builder_.arena().copy(assembled);
    }
    return *bytes ? builder_.bytes(view) : builder_.str(view);
}

std::string_view Reader::read_name() {
    const std::size_t start = pos_;
    while (is_name_char(peek())) {
        ++pos_;
    }
    const std::string_view word = text_.substr(start, pos_ - start);
    if (!is_valid_utf8(word)) {
        fail(ErrorKind::Corrupt, start, "a name that is not valid UTF-8");
    }
    return word;
}

Value* Reader::name_or_call() {
    const std::size_t start = pos_;
    std::vector<std::string_view> parts{read_name()};
    for (;;) {
        const std::size_t before_dot = pos_;
        skip_blank();
        if (!at('.')) {
            pos_ = before_dot;
            break;
        }
        ++pos_;
        skip_blank();
        if (!is_name_start(peek())) {
            fail_expected("a name after '.'");
        }
        parts.push_back(read_name());
    }
    const std::string_view module = dotted_module(start, parts);
    if (Value* constant = named_constant(module, parts.back(), start)) {
        return constant;
    }
    Value* global = builder_.global(module, parts.back());
    const std::size_t after_name = pos_;
    skip_blank();
    if (at('(')) {
        return call(global, start);
    }
    pos_ = after_name;
    return global;
}

// The module part of a dotted name ("a.b" of "a.b.C"), viewing the input
// unless blanks had to be removed from it.
std::string_view Reader::dotted_module(std::size_t start,
                                       const std::vector<std::string_view>& parts) {
    if (parts.size() < 2) {
        return {};
    }
    const std::string_view penultimate = parts[parts.size() - 2];
    const auto end =
        static_cast<std::size_t>(penultimate.data() + penultimate.size() - text_.data());
    const std::string_view written = text_.substr(start, end - start);
    std::string joined;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
        joined += i == 0 ? "" : ".";
        joined += parts[i];
    }
    return joined == written ? written : builder_.arena().copy(joined);
}

// None, True, False and the float constants generated code imports
// (`from math import inf, nan`); a keyword is code and an error here.
Value* Reader::named_constant(std::string_view module, std::string_view name, std::size_t start) {
    if (module.empty()) {
        if (name == "None") {
            return builder_.none();
        }
        if (name == "True" || name == "False") {
            return builder_.boolean(name == "True");
        }
        if (is_keyword(name)) {
            fail(ErrorKind::Unsupported, start,
                 "'" + std::string(name) + "' is code, not a literal");
        }
    }
    if (module.empty() || module == "math") {
        if (name == "inf") {
            return builder_.real(std::numeric_limits<double>::infinity());
        }
        if (name == "nan") {
            return builder_.real(std::numeric_limits<double>::quiet_NaN());
        }
    }
    return nullptr;
}

// `name=` at the reader's position (not `name==`): the keyword, with the
// reader moved past the '='. Otherwise nullopt and the reader stays.
std::optional<std::string_view> Reader::keyword_argument() {
    if (!is_name_start(peek())) {
        return std::nullopt;
    }
    std::size_t end = pos_;
    while (end < text_.size() && is_name_char(text_[end])) {
        ++end;
    }
    const std::size_t equals = skip_python_blank(text_, end);
    if (equals >= text_.size() || text_[equals] != '=' ||
        (equals + 1 < text_.size() && text_[equals + 1] == '=')) {
        return std::nullopt;
    }
    const std::string_view keyword = read_name();
    pos_ = equals + 1;
    return keyword;
}

Value* Reader::call(Value* callable, std::size_t name_at) {
    Nesting nesting(*this, pos_);
    ++pos_; // '('
    std::vector<Value*> positional;
    Value* keywords = nullptr;
    items_until(')', "an argument", [&] {
        const std::size_t argument_at = pos_;
        if (at('*')) {
            fail(ErrorKind::Unsupported, argument_at, "argument unpacking is code, not a literal");
        }
        if (const auto keyword = keyword_argument()) {
            Value* value = expression();
            if (keywords == nullptr) {
                keywords = builder_.dict();
            } else if (keywords->find(*keyword) != nullptr) {
                fail(ErrorKind::Corrupt, argument_at,
                     "keyword argument repeated: " + std::string(*keyword));
            }
            builder_.set_item(keywords, builder_.str(*keyword), value);
            return;
        }
        if (keywords != nullptr) {
            fail(ErrorKind::Corrupt, argument_at, "positional argument follows keyword argument");
        }
        positional.push_back(expression());
    });
    if (Value* made = made_by_builtin(callable, positional, keywords)) {
        return made;
    }
    token_start_ = name_at;
    return builder_.object(callable, builder_.tuple(positional), keywords,
                           pickle::Construction::Reduce);
}

// Builtin calls that only spell a literal: set(), frozenset([...]) and
// float('inf'). Anything else stays a recorded call.
Value* Reader::made_by_builtin(const Value* callable, const std::vector<Value*>& positional,
                               const Value* keywords) {
    if (!callable->module().empty() || keywords != nullptr || positional.size() > 1) {
        return nullptr;
    }
    const std::string_view builtin = callable->name();
    if (builtin == "set" || builtin == "frozenset") {
        const Value* source = positional.empty() ? nullptr : positional.front();
        if (source != nullptr && !source->is_sequence()) {
            return nullptr;
        }
        Value* set = builder_.set(builtin == "set" ? Kind::Set : Kind::FrozenSet);
        if (source != nullptr) {
            for (Value* item : source->items()) {
                builder_.add(set, item);
            }
        }
        return set;
    }
    if (builtin == "float" && positional.size() == 1 && positional.front()->is_str()) {
        if (const auto value = python_float_of_text(positional.front()->text())) {
            return builder_.real(*value);
        }
    }
    return nullptr;
}

Value* Reader::parenthesized() {
    Nesting nesting(*this, pos_);
    ++pos_;
    skip_blank();
    if (at(')')) {
        ++pos_;
        return builder_.tuple({});
    }
    Value* first = expression();
    skip_blank();
    if (at(')')) {
        ++pos_;
        return first; // (x) is x; only a comma makes a tuple
    }
    if (!at(',')) {
        fail_expected("',' or ')' after a tuple item");
    }
    std::vector<Value*> items{first};
    rest_of_items(')', "a tuple item", [&] { items.push_back(expression()); });
    return builder_.tuple(items);
}

Value* Reader::list() {
    Nesting nesting(*this, pos_);
    ++pos_;
    Value* list = builder_.list();
    items_until(']', "a list item", [&] { builder_.append(list, expression()); });
    return list;
}

Value* Reader::braces() {
    Nesting nesting(*this, pos_);
    ++pos_;
    skip_blank();
    if (at('}')) {
        ++pos_;
        return builder_.dict();
    }
    if (at('*')) {
        fail(ErrorKind::Unsupported, pos_, "unpacking is code, not a literal");
    }
    Value* first = expression();
    skip_blank();
    if (!at(':')) {
        Value* set = builder_.set();
        builder_.add(set, first);
        rest_of_items('}', "a set item", [&] { builder_.add(set, expression()); });
        return set;
    }
    Value* dict = builder_.dict();
    auto read_value_of = [&](Value* key) {
        skip_blank();
        if (!at(':')) {
            fail_expected("':' after a dict key");
        }
        ++pos_;
        builder_.set_item(dict, key, expression());
    };
    read_value_of(first);
    rest_of_items('}', "a dict item", [&] { read_value_of(expression()); });
    return dict;
}

template <class ReadItem>
void Reader::items_until(char close, const std::string& what, ReadItem read_item) {
    for (;;) {
        skip_blank();
        if (at(close)) {
            ++pos_;
            return;
        }
        read_item();
        skip_blank();
        if (at(',')) {
            ++pos_;
            continue;
        }
        if (at(close)) {
            ++pos_;
            return;
        }
        fail_expected(std::string("',' or '") + close + "' after " + what);
    }
}

template <class ReadItem>
void Reader::rest_of_items(char close, const std::string& what, ReadItem read_item) {
    skip_blank();
    if (at(close)) {
        ++pos_;
        return;
    }
    if (!at(',')) {
        fail_expected(std::string("',' or '") + close + "' after " + what);
    }
    ++pos_;
    items_until(close, what, read_item);
}

// Runs `read` and turns whatever the reader or the builder throws into an Error.
template <class Read>
auto guarded(std::string_view text, const SourceLines* lines, const Reader& reader, Read read)
    -> Result<decltype(read())> {
    try {
        return read();
    } catch (const SyntaxError& e) {
        return to_error(text, lines, e.kind, e.offset, e.message);
    } catch (const pickle::BuildError& e) {
        return to_error(text, lines, e.kind, reader.token_start(), e.message);
    } catch (const pickle::ArenaExhausted&) {
        return to_error(text, lines, ErrorKind::LimitExceeded, reader.token_start(),
                        "the document exceeds its allocation budget");
    } catch (const std::bad_alloc&) {
        return to_error(text, lines, ErrorKind::LimitExceeded, reader.token_start(),
                        "out of memory while reading the document");
    }
}

} // namespace

Result<std::shared_ptr<const pickle::Document>>
parse_python_literal(std::string_view text, std::shared_ptr<const void> keep_alive,
                     const LiteralLimits& limits) {
    if (keep_alive == nullptr) {
        auto copy = std::make_shared<const std::string>(text);
        text = *copy;
        keep_alive = std::move(copy);
    }
    auto document = std::make_shared<pickle::Document>(std::move(keep_alive), limits.max_alloc);
    Builder builder(document->arena(), limits.max_depth);
    Reader reader(builder, text, 0, limits.max_depth);
    auto root = guarded(text, nullptr, reader, [&] { return reader.whole_input(); });
    if (!root) {
        return std::unexpected(std::move(root.error()));
    }
    document->set_root(*root);
    return document;
}

Result<LiteralPrefix> parse_python_literal_prefix(pickle::Builder& builder, std::string_view text,
                                                  std::size_t offset, std::uint32_t max_depth,
                                                  const SourceLines* lines) {
    if (offset > text.size()) {
        return fail(ErrorKind::InvalidArgument, "the offset is past the end of the text");
    }
    Reader reader(builder, text, skip_python_blank(text, offset), max_depth);
    return guarded(text, lines, reader, [&] {
        Value* value = reader.expression();
        return LiteralPrefix{value, reader.position() - offset};
    });
}

Result<StringLiteralExtent> scan_string_literal(std::string_view text, std::size_t offset) {
    try {
        return scan_string(text, offset);
    } catch (const SyntaxError& e) {
        return to_error(text, nullptr, e.kind, e.offset, e.message);
    }
}

SourceLines::SourceLines(std::string_view text)
    : text_(text) {
    starts_.push_back(0);
    for (std::size_t i = text.find('\n'); i != std::string_view::npos; i = text.find('\n', i + 1)) {
        starts_.push_back(i + 1);
    }
}

std::string_view SourceLines::line(std::size_t index) const {
    const std::size_t end = index + 1 < starts_.size() ? starts_[index + 1] - 1 : text_.size();
    std::string_view content = text_.substr(starts_[index], end - starts_[index]);
    if (!content.empty() && content.back() == '\r') {
        content.remove_suffix(1);
    }
    return content;
}

std::size_t SourceLines::index_of(std::size_t offset) const {
    const auto after = std::upper_bound(starts_.begin(), starts_.end(), offset);
    return static_cast<std::size_t>(after - starts_.begin()) - 1;
}

std::size_t SourceLines::first_at_or_after(std::size_t offset) const {
    const auto at = std::lower_bound(starts_.begin(), starts_.end(), offset);
    return static_cast<std::size_t>(at - starts_.begin());
}

std::string SourceLines::position(std::size_t offset) const {
    offset = std::min(offset, text_.size());
    const std::size_t index = index_of(offset);
    return "line " + std::to_string(index + 1) + ", column " +
           std::to_string(offset - starts_[index] + 1) + " (byte " + std::to_string(offset) + ")";
}

std::size_t skip_python_blank(std::string_view text, std::size_t offset) {
    std::size_t i = offset;
    while (i < text.size()) {
        i = skip_inline_blank(text, i);
        if (const std::size_t line_break = line_break_length(text, i)) {
            i += line_break;
        } else if (i < text.size() && text[i] == '#') {
            i = std::min(text.find_first_of("\r\n", i), text.size());
        } else {
            break;
        }
    }
    return i;
}

} // namespace cachelens::cachedir
