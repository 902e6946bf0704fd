#pragma once

// Where a Redis server is and how to log in: parsed from the URLs PyTorch's
// remote caches take (TORCHINDUCTOR_REDIS_URL, read by redis-py's from_url)
// or from TORCHINDUCTOR_REDIS_HOST / _PORT (formats.md §7).

#include <cachelens/core/error.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace cachelens::remote {

struct RedisEndpoint {
    std::string host = "localhost"; // a name or an address; IPv6 without brackets
    int port = 6379;
    std::optional<std::string> username, password;
    int db = 0;
    bool tls = false; // rediss://
    // Both for connecting and for each command's reply.
    std::chrono::milliseconds timeout{5000};

    // "redis://[user@]host:port/db" ("rediss://" with TLS, IPv6 in brackets),
    // for messages and listings: never the password.
    std::string display() const;
};

// Accepts
//   redis://[[user]:password@]host[:port][/db][?query]   (rediss:// sets tls)
//   host:port, host, [::1]:6379, [::1]
// with user and password percent-decoded. From redis-py's query options it
// reads db, socket_timeout and socket_connect_timeout (seconds) and ignores
// the others (health_check_interval, ...), which do not change what is read.
// A bad port, a db that is not a number, an unknown scheme: an error naming
// the text (without its password).
Result<RedisEndpoint> parse_redis_endpoint(std::string_view text);

// As PyTorch picks its server: TORCHINDUCTOR_REDIS_URL when it is set, else
// TORCHINDUCTOR_REDIS_HOST (localhost) and TORCHINDUCTOR_REDIS_PORT (6379).
// An error when the variables do not parse.
Result<RedisEndpoint> try_endpoint_from_environment();
// The same, with the defaults (localhost:6379) when the variables do not
// parse: for a field to start from; try_endpoint_from_environment() says why.
RedisEndpoint endpoint_from_environment();

} // namespace cachelens::remote
