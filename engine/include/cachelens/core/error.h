#pragma once

// Errors are values at the engine boundary: every fallible engine call returns
// Result<T>. An Error names what kind of failure it is, says what went wrong in
// words a user can act on, and names the file it concerns when there is one.

#include <expected>
#include <string>
#include <string_view>

namespace cachelens {

enum class ErrorKind {
    Io,              // the OS refused: open/read/write/rename failed
    NotFound,        // a path or key that does not exist
    Truncated,       // the data ends before its format says it should
    Corrupt,         // the data is present but malformed
    Unsupported,     // well-formed, but a format version or feature we do not read
    LimitExceeded,   // a safety limit (depth, memo, allocation, size) was hit
    InvalidArgument, // the caller asked for something impossible
    Cancelled,       // stopped on request (core/progress.h): nothing was left half done
};

std::string_view to_string(ErrorKind kind);

struct Error {
    ErrorKind kind = ErrorKind::Corrupt;
    std::string message;
    std::string path; // the file this error concerns; empty when none

    // "path: message", or just the message when no path is known.
    std::string describe() const;

    // Returns a copy that names `file` unless a path is already set.
    Error at(std::string_view file) const&;
    Error at(std::string_view file) &&;
};

template <class T>
using Result = std::expected<T, Error>;

inline std::unexpected<Error> fail(ErrorKind kind, std::string message, std::string path = {}) {
    return std::unexpected<Error>(Error{kind, std::move(message), std::move(path)});
}

} // namespace cachelens
