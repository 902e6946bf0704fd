#pragma once

// What every command prints: sizes and times for people, JSON for scripts,
// errors on stderr naming the file and the problem. Text for people goes
// through the terminal sink (terminal_output.h) main() installs: printf and
// std::cout are safe for any text from a cache.

#include <cachelens/core/error.h>
#include <cachelens/core/format.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace cachelens::cli {

using Json = nlohmann::ordered_json;

// Exit codes, documented in --help and the README.
inline constexpr int kExitOk = 0;
inline constexpr int kExitProblems = 1; // the command ran and found problems (verify)
inline constexpr int kExitError = 2;    // bad arguments, unreadable input

// Prints JSON to stdout exact (not through the terminal sink,
// terminal_output.h); text that is not valid UTF-8 is replaced (U+FFFD),
// never fatal.
void print_json(const Json& json);
// The same on one line, flushed: a record of a JSON Lines stream.
void print_json_line(const Json& json);

// Prints JSON text the engine made (its records, bench_protocol.h) exact, flushed.
void print_json_text(std::string_view json);

// Prints "cachelens: <path>: <message>" to stderr; returns kExitError.
int report(const Error& error);
int report(std::string_view message);

// A string for JSON from bytes that should be UTF-8.
Json text(std::string_view utf8);

} // namespace cachelens::cli
