#pragma once

// A blocking connection to one Redis server, for reading and writing the
// remote caches PyTorch keeps there (formats.md §7). Keys and values are
// bytes: any of them may hold NULs. Every reply is checked against what the
// command should answer; an error names the command, the key and the server.
// Once the connection fails (the server went away, a reply timed out) every
// later call fails too, saying why: connect again to go on.
//
// One client is used by one thread at a time.

#include <cachelens/core/error.h>
#include <cachelens/remote/redis_endpoint.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cachelens::remote {

enum class SetMode {
    Always,       // SET
    OnlyIfAbsent, // SET NX: an existing value is kept
};

struct ValueFacts {
    std::int64_t size = 0; // as value_size
    std::int64_t ttl = -2; // as ttl
};

struct ScanPage {
    std::string cursor; // "0" once the scan is complete
    std::vector<std::string> keys;
};

class RedisClient {
public:
    // Connects within endpoint.timeout, then logs in (AUTH [user] password),
    // checks the server answers (PING) and selects endpoint.db. The same
    // timeout then bounds each reply.
    static Result<RedisClient> connect(const RedisEndpoint& endpoint);

    RedisClient(RedisClient&&) noexcept;
    RedisClient& operator=(RedisClient&&) noexcept;
    ~RedisClient();

    const RedisEndpoint& endpoint() const;

    Result<void> ping();
    // nullopt when the key does not exist.
    Result<std::optional<std::string>> get(std::string_view key);
    // One result per key, in order: the GETs are pipelined.
    Result<std::vector<std::optional<std::string>>> get_many(std::span<const std::string> keys);
    // True when the value was written (false: OnlyIfAbsent and the key exists).
    Result<bool> set(std::string_view key, std::string_view value, SetMode mode);
    // Pipelined SETs: one "written" per (key, value), in order.
    Result<std::vector<bool>> set_many(std::span<const std::pair<std::string, std::string>> items,
                                       SetMode mode);
    // The same for values held elsewhere (a push's), which are not copied:
    // each is written to the socket from where it is.
    Result<std::vector<bool>>
    set_many(std::span<const std::pair<std::string_view, std::string_view>> items, SetMode mode);
    // One SCAN step; `match` empty for every key, `count` a hint above 0.
    Result<ScanPage> scan(std::string_view cursor, std::string_view match, int count);
    // Every key matching `match` (SCAN to the end, never KEYS), sorted, each
    // once. `progress` gets the number found so far after each step; false
    // stops the scan with a Cancelled error (core/progress.h).
    Result<std::vector<std::string>>
    scan_all(std::string_view match, const std::function<bool(std::size_t)>& progress = {});
    // Seconds left; -1 when the key never expires, -2 when it does not exist.
    Result<std::int64_t> ttl(std::string_view key);
    // The value's length in bytes (STRLEN); 0 when the key does not exist.
    Result<std::int64_t> value_size(std::string_view key);
    // value_size and ttl of each key, in order: the STRLENs and TTLs are pipelined.
    Result<std::vector<ValueFacts>> value_facts(std::span<const std::string> keys);
    Result<void> del(std::string_view key);

private:
    struct Connection;
    explicit RedisClient(std::unique_ptr<Connection> connection);
    std::unique_ptr<Connection> connection_;
};

} // namespace cachelens::remote
