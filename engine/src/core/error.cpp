#include <cachelens/core/error.h>

namespace cachelens {

std::string_view to_string(ErrorKind kind) {
    switch (kind) {
    case ErrorKind::Io:
        return "io";
    case ErrorKind::NotFound:
        return "not-found";
    case ErrorKind::Truncated:
        return "truncated";
    case ErrorKind::Corrupt:
        return "corrupt";
    case ErrorKind::Unsupported:
        return "unsupported";
    case ErrorKind::LimitExceeded:
        return "limit-exceeded";
    case ErrorKind::InvalidArgument:
        return "invalid-argument";
    case ErrorKind::Cancelled:
        return "cancelled";
    }
    return "unknown";
}

std::string Error::describe() const {
    if (path.empty()) {
        return message;
    }
    return path + ": " + message;
}

Error Error::at(std::string_view file) const& {
    Error copy = *this;
    return std::move(copy).at(file);
}

Error Error::at(std::string_view file) && {
    if (path.empty()) {
        path = std::string(file);
    }
    return std::move(*this);
}

} // namespace cachelens
