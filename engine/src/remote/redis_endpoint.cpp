#include <cachelens/core/text.h>
#include <cachelens/remote/redis_endpoint.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace cachelens::remote {

namespace {

constexpr std::string_view kSchemeSeparator = "://";

// The text for messages: the password (between "user:" and "@") starred out.
std::string redacted(std::string_view text) {
    const std::size_t scheme = text.find(kSchemeSeparator);
    const std::size_t start = scheme == std::string_view::npos ? 0 : scheme + 3;
    const std::size_t end = std::min(text.find_first_of("/?#", start), text.size());
    const std::size_t at = text.substr(0, end).rfind('@');
    if (at == std::string_view::npos || at < start) {
        return std::string(text);
    }
    const std::size_t colon = text.substr(0, at).find(':', start);
    if (colon == std::string_view::npos) {
        return std::string(text);
    }
    return std::string(text.substr(0, colon + 1)) + "***" + std::string(text.substr(at));
}

std::unexpected<Error> bad(std::string_view text, const std::string& why) {
    // Appended: GCC 12 at -O3 warns falsely (-Wrestrict) on "'" + std::string.
    std::string message(1, '\'');
    message += redacted(text);
    message += "': ";
    message += why;
    return fail(ErrorKind::InvalidArgument, std::move(message));
}

bool all_digits(std::string_view text) {
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<int> parse_int(std::string_view digits) {
    int value = 0;
    if (!all_digits(digits)) {
        return std::nullopt;
    }
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || end != digits.data() + digits.size()) {
        return std::nullopt;
    }
    return value;
}

Result<int> parse_port(std::string_view text, std::string_view port) {
    const std::optional<int> value = parse_int(port);
    if (!value || *value < 1 || *value > 65535) {
        return bad(text, "port '" + std::string(port) + "' is not a number from 1 to 65535");
    }
    return *value;
}

Result<int> parse_db(std::string_view text, std::string_view db) {
    const std::optional<int> value = parse_int(db);
    if (!value) {
        return bad(text, "db '" + std::string(db) + "' is not a number");
    }
    return *value;
}

// %XX escapes, as urllib.parse.unquote reads the user and password.
Result<std::string> percent_decode(std::string_view text, std::string_view part,
                                   std::string_view what) {
    std::string out;
    out.reserve(part.size());
    for (std::size_t i = 0; i < part.size(); ++i) {
        if (part[i] != '%') {
            out += part[i];
            continue;
        }
        const int high = i + 1 < part.size() ? hex_digit_value(part[i + 1]) : -1;
        const int low = i + 2 < part.size() ? hex_digit_value(part[i + 2]) : -1;
        if (high < 0 || low < 0) {
            return bad(text,
                       "the " + std::string(what) + " has a '%' not followed by two hex digits");
        }
        out += static_cast<char>(high * 16 + low);
        i += 2;
    }
    return out;
}

// redis-py's socket timeouts are seconds, fractions allowed.
Result<std::chrono::milliseconds> parse_seconds(std::string_view text, std::string_view name,
                                                std::string_view value) {
    double seconds = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(seconds) ||
        seconds <= 0 || seconds > 86400) {
        return bad(text, std::string(name) + " '" + std::string(value) +
                             "' is not a number of seconds above 0");
    }
    return std::chrono::milliseconds(std::max<long long>(1, std::llround(seconds * 1000)));
}

Result<void> apply_query(std::string_view text, std::string_view query, RedisEndpoint& endpoint) {
    bool has_socket_timeout = false;
    while (!query.empty()) {
        const std::size_t amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        const std::size_t eq = pair.find('=');
        const std::string_view name = pair.substr(0, eq);
        auto value = percent_decode(text, eq == std::string_view::npos ? "" : pair.substr(eq + 1),
                                    std::string(name) + " option");
        if (!value) {
            return std::unexpected(value.error());
        }
        if (name == "db") {
            auto db = parse_db(text, *value);
            if (!db) {
                return std::unexpected(db.error());
            }
            endpoint.db = *db;
        } else if (name == "socket_timeout" || name == "socket_connect_timeout") {
            auto timeout = parse_seconds(text, name, *value);
            if (!timeout) {
                return std::unexpected(timeout.error());
            }
            // One timeout serves both: the command timeout wins when both are given.
            if (name == "socket_timeout" || !has_socket_timeout) {
                endpoint.timeout = *timeout;
            }
            has_socket_timeout = has_socket_timeout || name == "socket_timeout";
        }
    }
    return {};
}

// "host", "host:port", "[v6]", "[v6]:port"; an empty host is redis-py's localhost.
Result<void> apply_host_port(std::string_view text, std::string_view hostport,
                             RedisEndpoint& endpoint) {
    std::string_view host = hostport;
    std::optional<std::string_view> port;
    if (hostport.starts_with('[')) {
        const std::size_t close = hostport.find(']');
        if (close == std::string_view::npos) {
            return bad(text, "an IPv6 address opened with '[' is not closed with ']'");
        }
        host = hostport.substr(1, close - 1);
        const std::string_view after = hostport.substr(close + 1);
        if (!after.empty() && !after.starts_with(':')) {
            return bad(text, "expected ':port' after the IPv6 address");
        }
        if (!after.empty()) {
            port = after.substr(1);
        }
        if (host.empty()) {
            return bad(text, "the IPv6 address in brackets is empty");
        }
    } else {
        const std::size_t colon = hostport.find(':');
        if (colon != std::string_view::npos && hostport.find(':', colon + 1) != hostport.npos) {
            return bad(text, "an IPv6 address needs brackets: [::1]:6379");
        }
        if (colon != std::string_view::npos) {
            host = hostport.substr(0, colon);
            port = hostport.substr(colon + 1);
        }
    }
    endpoint.host = host.empty() ? "localhost" : std::string(host);
    if (port) {
        auto value = parse_port(text, *port);
        if (!value) {
            return std::unexpected(value.error());
        }
        endpoint.port = *value;
    }
    return {};
}

Result<void> apply_user_info(std::string_view text, std::string_view info,
                             RedisEndpoint& endpoint) {
    const std::size_t colon = info.find(':');
    auto user = percent_decode(text, info.substr(0, colon), "user name");
    if (!user) {
        return std::unexpected(user.error());
    }
    // As redis-py: an empty user or password is none.
    if (!user->empty()) {
        endpoint.username = std::move(*user);
    }
    if (colon != std::string_view::npos) {
        auto password = percent_decode(text, info.substr(colon + 1), "password");
        if (!password) {
            return std::unexpected(password.error());
        }
        if (!password->empty()) {
            endpoint.password = std::move(*password);
        }
    }
    return {};
}

} // namespace

// Appended piece by piece, for the same GCC 12 -O3 warning.
std::string RedisEndpoint::display() const {
    std::string out = tls ? "rediss://" : "redis://";
    if (username) {
        out += *username;
        out += '@';
    }
    if (host.find(':') == std::string::npos) {
        out += host;
    } else {
        out += '[';
        out += host;
        out += ']';
    }
    out += ':';
    out += std::to_string(port);
    out += '/';
    out += std::to_string(db);
    return out;
}

Result<RedisEndpoint> parse_redis_endpoint(std::string_view raw) {
    const std::string_view text = trim_space(raw);
    if (text.empty()) {
        return fail(ErrorKind::InvalidArgument,
                    "empty Redis address: expected redis://host:port/db or host:port");
    }
    RedisEndpoint endpoint;
    const std::size_t scheme_end = text.find(kSchemeSeparator);
    if (scheme_end == std::string_view::npos) {
        // A bare IPv6 address: its colons are not a port.
        if (std::count(text.begin(), text.end(), ':') > 1 && !text.starts_with('[')) {
            endpoint.host = std::string(text);
            return endpoint;
        }
    } else {
        std::string scheme(text.substr(0, scheme_end));
        std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (scheme != "redis" && scheme != "rediss") {
            return bad(text, "unknown scheme '" + scheme + "://': expected redis:// or rediss://");
        }
        endpoint.tls = scheme == "rediss";
    }
    std::string_view rest =
        scheme_end == std::string_view::npos ? text : text.substr(scheme_end + 3);
    if (const std::size_t hash = rest.find('#'); hash != std::string_view::npos) {
        rest = rest.substr(0, hash);
    }
    std::string_view query;
    if (const std::size_t mark = rest.find('?'); mark != std::string_view::npos) {
        query = rest.substr(mark + 1);
        rest = rest.substr(0, mark);
    }
    std::string_view path;
    if (const std::size_t slash = rest.find('/'); slash != std::string_view::npos) {
        path = rest.substr(slash + 1);
        rest = rest.substr(0, slash);
    }
    // The last '@', as urllib splits: a password may hold an unescaped '@'.
    if (const std::size_t at = rest.rfind('@'); at != std::string_view::npos) {
        if (auto applied = apply_user_info(text, rest.substr(0, at), endpoint); !applied) {
            return std::unexpected(applied.error());
        }
        rest = rest.substr(at + 1);
    }
    if (auto applied = apply_host_port(text, rest, endpoint); !applied) {
        return std::unexpected(applied.error());
    }
    if (!path.empty()) {
        auto db = parse_db(text, path);
        if (!db) {
            return std::unexpected(db.error());
        }
        endpoint.db = *db;
    }
    if (auto applied = apply_query(text, query, endpoint); !applied) {
        return std::unexpected(applied.error());
    }
    return endpoint;
}

Result<RedisEndpoint> try_endpoint_from_environment() {
    // As torch/_inductor/remote_cache.py: the URL when it is set at all.
    if (const char* url = std::getenv("TORCHINDUCTOR_REDIS_URL"); url != nullptr) {
        auto endpoint = parse_redis_endpoint(url);
        if (!endpoint) {
            return fail(endpoint.error().kind,
                        "TORCHINDUCTOR_REDIS_URL: " + endpoint.error().message);
        }
        return endpoint;
    }
    RedisEndpoint endpoint;
    if (const char* host = std::getenv("TORCHINDUCTOR_REDIS_HOST"); host != nullptr) {
        const std::string_view name = trim_space(host);
        endpoint.host = name.empty() ? "localhost" : std::string(name);
    }
    if (const char* port = std::getenv("TORCHINDUCTOR_REDIS_PORT"); port != nullptr) {
        const std::optional<int> value = parse_int(trim_space(port));
        if (!value || *value < 1 || *value > 65535) {
            return fail(ErrorKind::InvalidArgument, "TORCHINDUCTOR_REDIS_PORT '" +
                                                        std::string(port) +
                                                        "' is not a number from 1 to 65535");
        }
        endpoint.port = *value;
    }
    return endpoint;
}

RedisEndpoint endpoint_from_environment() {
    return try_endpoint_from_environment().value_or(RedisEndpoint{});
}

} // namespace cachelens::remote
