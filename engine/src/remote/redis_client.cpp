#include "resp_reader.h"

#include <cachelens/core/progress.h>
#include <cachelens/remote/redis_client.h>

#include <hiredis.h>
#include <pthread.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <unordered_set>

namespace cachelens::remote {

namespace {

struct ReplyDeleter {
    void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

struct ContextDeleter {
    void operator()(redisContext* context) const { redisFree(context); }
};
using Context = std::unique_ptr<redisContext, ContextDeleter>;

// Pipelines are sent in pieces of at most this many commands or bytes, so a
// push of large values never holds them all in the output buffer at once.
constexpr std::size_t kPipelineCommands = 512;
constexpr std::size_t kPipelineBytes = 8 << 20;
constexpr int kScanCount = 1000;

// hiredis 0.14 writes with write(): a server that went away would raise
// SIGPIPE and end the process. It is blocked on this thread while a command
// runs, and one it raised is taken off before the mask is restored.
class SigpipeGuard {
public:
    SigpipeGuard() {
        sigemptyset(&pipe_);
        sigaddset(&pipe_, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
        sigset_t pending;
        sigpending(&pending);
        was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    }
    ~SigpipeGuard() {
        sigset_t pending;
        sigpending(&pending);
        if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
            const timespec now{};
            sigtimedwait(&pipe_, nullptr, &now);
        }
        pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }
    SigpipeGuard(const SigpipeGuard&) = delete;
    SigpipeGuard& operator=(const SigpipeGuard&) = delete;

private:
    sigset_t pipe_{};
    sigset_t old_{};
    bool was_pending_ = false;
};

// A key for a message: printable, \xNN for other bytes, cut when long.
std::string printable(std::string_view bytes) {
    constexpr std::size_t kShown = 160;
    std::string out;
    for (const char c : bytes.substr(0, kShown)) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte < 0x7f && byte != '\\') {
            out += c;
        } else {
            constexpr std::string_view hex = "0123456789abcdef";
            out += "\\x";
            out += hex[byte >> 4];
            out += hex[byte & 15];
        }
    }
    if (bytes.size() > kShown) {
        out += "... (" + std::to_string(bytes.size()) + " bytes)";
    }
    return out;
}

std::string_view type_name(int type) {
    switch (type) {
    case REDIS_REPLY_STRING:
        return "a string";
    case REDIS_REPLY_ARRAY:
        return "an array";
    case REDIS_REPLY_INTEGER:
        return "an integer";
    case REDIS_REPLY_NIL:
        return "nil";
    case REDIS_REPLY_STATUS:
        return "a status";
    case REDIS_REPLY_ERROR:
        return "an error";
    }
    return "an unknown reply";
}

std::string_view text_of(const redisReply& reply) {
    return {reply.str, reply.len};
}

bool errstr_is(const redisContext& context, int error_number) {
    return std::strcmp(context.errstr, std::strerror(error_number)) == 0;
}

// What a command is about, for messages: "GET pt2:...:c1".
struct What {
    std::string_view command;
    std::string_view key = {};
    bool has_key = false;
};

What about(std::string_view command) {
    return {command};
}
What about(std::string_view command, std::string_view key) {
    return {command, key, true};
}

std::string_view text_of(const RespReply& reply) {
    return reply.text;
}

// Commands framed in RESP here and written with writev: hiredis formats each
// command into a new buffer and then appends that to its output buffer, two
// copies of every ~1 MB value of a push (a third of its CPU with the page
// faults, perf). Short arguments are copied into one buffer; long ones are
// written from where they are.
class Frames {
public:
    void add(std::initializer_list<std::string_view> args) {
        text_ += '*';
        append_number(args.size());
        text_ += "\r\n";
        for (const std::string_view arg : args) {
            text_ += '$';
            append_number(arg.size());
            text_ += "\r\n";
            if (arg.size() >= kReferencedBytes) {
                close_text_piece();
                pieces_.push_back(
                    {Piece::Referenced, reinterpret_cast<std::uintptr_t>(arg.data()), arg.size()});
            } else {
                text_.append(arg);
            }
            text_ += "\r\n";
        }
    }

    bool empty() const { return text_.empty() && pieces_.empty(); }

    // Writes everything; false with errno set when the socket refused.
    bool send(int fd) {
        close_text_piece();
        std::vector<iovec> vectors;
        vectors.reserve(pieces_.size());
        for (const auto& piece : pieces_) {
            const char* base = piece.kind == Piece::Text
                                   ? text_.data() + piece.start
                                   : reinterpret_cast<const char*>(piece.start);
            vectors.push_back({const_cast<char*>(base), piece.size});
        }
        std::size_t first = 0;
        while (first < vectors.size()) {
            const int count =
                static_cast<int>(std::min<std::size_t>(vectors.size() - first, IOV_MAX));
            const ssize_t written = ::writev(fd, vectors.data() + first, count);
            if (written < 0) {
                if (errno == EINTR) {
                    continue;
                }
                return false;
            }
            auto left = static_cast<std::size_t>(written);
            while (first < vectors.size() && left >= vectors[first].iov_len) {
                left -= vectors[first].iov_len;
                ++first;
            }
            if (left > 0) {
                vectors[first].iov_base = static_cast<char*>(vectors[first].iov_base) + left;
                vectors[first].iov_len -= left;
            }
        }
        text_.clear();
        pieces_.clear();
        text_start_ = 0;
        return true;
    }

private:
    static constexpr std::size_t kReferencedBytes = 4096;

    struct Piece {
        enum Kind { Text, Referenced } kind;
        std::uintptr_t start; // an offset in text_, or the address
        std::size_t size;
    };

    void append_number(std::size_t number) {
        std::array<char, 24> digits{};
        const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), number).ptr;
        text_.append(digits.data(), end);
    }

    void close_text_piece() {
        if (text_.size() > text_start_) {
            pieces_.push_back({Piece::Text, text_start_, text_.size() - text_start_});
            text_start_ = text_.size();
        }
    }

    std::string text_;
    std::size_t text_start_ = 0;
    std::vector<Piece> pieces_;
};

} // namespace

struct RedisClient::Connection {
    RedisEndpoint endpoint;
    Context context;
    // The first failure of the connection, repeated by every later call.
    std::optional<Error> lost;

    std::string where(const What& what) const {
        std::string out(what.command);
        if (what.has_key) {
            out += " " + printable(what.key);
        }
        return out + " on " + endpoint.display();
    }

    // The connection failed under `what`: hiredis cannot use it again.
    Error io_error(const What& what) {
        std::string why;
        if (context->err == REDIS_ERR_EOF) {
            why = "the server closed the connection";
        } else if (context->err == REDIS_ERR_IO &&
                   (errstr_is(*context, EAGAIN) || errstr_is(*context, EWOULDBLOCK))) {
            why = "timed out after " + std::to_string(endpoint.timeout.count()) +
                  " ms waiting for the reply";
        } else if (context->err == REDIS_ERR_PROTOCOL) {
            why = std::string("not a Redis reply (") + context->errstr + ")";
        } else {
            why = context->errstr;
        }
        Error error{ErrorKind::Io, where(what) + ": " + why, {}};
        lost = error;
        return error;
    }

    Result<void> usable(const What& what) const {
        if (lost) {
            return fail(ErrorKind::Io,
                        where(what) + ": the connection failed earlier (" + lost->message + ")");
        }
        return {};
    }

    // Queues one command; its arguments are bytes of any value.
    void append(std::initializer_list<std::string_view> args) {
        const char* argv[8];
        std::size_t lengths[8];
        int argc = 0;
        for (const std::string_view arg : args) {
            argv[argc] = arg.data();
            lengths[argc] = arg.size();
            ++argc;
        }
        redisAppendCommandArgv(context.get(), argc, argv, lengths);
    }

    Result<Reply> read_reply(const What& what) {
        void* raw = nullptr;
        if (redisGetReply(context.get(), &raw) != REDIS_OK || raw == nullptr) {
            return std::unexpected(io_error(what));
        }
        return Reply(static_cast<redisReply*>(raw));
    }

    Result<Reply> command(const What& what, std::initializer_list<std::string_view> args) {
        if (auto ok = usable(what); !ok) {
            return std::unexpected(ok.error());
        }
        const SigpipeGuard guard;
        append(args);
        return read_reply(what);
    }

    template <class AnyReply>
    Error unexpected_reply(const What& what, const AnyReply& reply,
                           std::string_view expected) const {
        if (reply.type == REDIS_REPLY_ERROR) {
            return Error{ErrorKind::Io, where(what) + ": " + std::string(text_of(reply)), {}};
        }
        return Error{ErrorKind::Corrupt,
                     where(what) + ": expected " + std::string(expected) + " reply, got " +
                         std::string(type_name(reply.type)),
                     {}};
    }

    Result<std::int64_t> integer(const What& what, std::initializer_list<std::string_view> args) {
        auto reply = command(what, args);
        if (!reply) {
            return std::unexpected(reply.error());
        }
        if ((*reply)->type != REDIS_REPLY_INTEGER) {
            return std::unexpected(unexpected_reply(what, **reply, "an integer"));
        }
        return static_cast<std::int64_t>((*reply)->integer);
    }

    Result<std::optional<std::string>> string_or_nil(const What& what, const redisReply& reply) {
        if (reply.type == REDIS_REPLY_NIL) {
            return std::nullopt;
        }
        if (reply.type != REDIS_REPLY_STRING) {
            return std::unexpected(unexpected_reply(what, reply, "a string or nil"));
        }
        return std::string(text_of(reply));
    }

    Result<std::optional<std::string>> string_or_nil(const What& what, RespReply&& reply) {
        if (reply.type == REDIS_REPLY_NIL) {
            return std::nullopt;
        }
        if (reply.type != REDIS_REPLY_STRING) {
            return std::unexpected(unexpected_reply(what, reply, "a string or nil"));
        }
        return std::move(reply.text);
    }

    // SET answers OK when it wrote, nil when NX found the key.
    template <class AnyReply>
    Result<bool> written(const What& what, const AnyReply& reply) {
        if (reply.type == REDIS_REPLY_NIL) {
            return false;
        }
        if (reply.type != REDIS_REPLY_STATUS || text_of(reply) != "OK") {
            return std::unexpected(unexpected_reply(what, reply, "an OK or nil"));
        }
        return true;
    }

    // Sends `count` commands (added to the frames by `queue(frames, i)`,
    // `bytes(i)` long) in pieces and hands each reply to `take(i, reply)`.
    // Every reply is read even after one is refused, so the connection stays
    // in step; the first refusal is the result. Frames and replies bypass
    // hiredis (Frames, RespReader), whose buffers are empty between commands.
    template <class Queue, class Bytes, class Take>
    Result<void> pipeline(std::size_t count, const Queue& queue, const Bytes& bytes,
                          const Take& take, const std::function<What(std::size_t)>& what) {
        if (count == 0) {
            return {};
        }
        if (auto ok = usable(what(0)); !ok) {
            return ok;
        }
        const SigpipeGuard guard;
        std::optional<Error> refused;
        Frames frames;
        RespReader reader(context->fd);
        std::size_t next = 0;
        while (next < count) {
            std::size_t end = next;
            std::size_t queued_bytes = 0;
            while (end < count && end - next < kPipelineCommands &&
                   (end == next || queued_bytes < kPipelineBytes)) {
                queue(frames, end);
                queued_bytes += bytes(end);
                ++end;
            }
            if (!frames.send(context->fd)) {
                context->err = REDIS_ERR_IO;
                std::snprintf(context->errstr, sizeof context->errstr, "%s", std::strerror(errno));
                return std::unexpected(io_error(what(next)));
            }
            for (std::size_t i = next; i < end; ++i) {
                RespReply reply;
                if (!reader.read(reply)) {
                    context->err = reader.error_type();
                    std::snprintf(context->errstr, sizeof context->errstr, "%s",
                                  reader.error_text().c_str());
                    return std::unexpected(io_error(what(i)));
                }
                if (auto taken = take(i, std::move(reply)); !taken && !refused) {
                    refused = taken.error();
                }
            }
            next = end;
        }
        if (refused) {
            return std::unexpected(*refused);
        }
        return {};
    }

    // AUTH, PING (which a server with a password refuses without one) and SELECT.
    Result<void> log_in() {
        if (endpoint.password || endpoint.username) {
            const std::string password = endpoint.password.value_or("");
            auto reply = endpoint.username
                             ? command(about("AUTH"), {"AUTH", *endpoint.username, password})
                             : command(about("AUTH"), {"AUTH", password});
            if (!reply) {
                return std::unexpected(reply.error());
            }
            if ((*reply)->type == REDIS_REPLY_ERROR) {
                return fail(ErrorKind::InvalidArgument,
                            "authentication failed: " + std::string(text_of(**reply)) + " (" +
                                endpoint.display() + ")");
            }
        }
        auto pong = command(about("PING"), {"PING"});
        if (!pong) {
            return std::unexpected(pong.error());
        }
        if ((*pong)->type == REDIS_REPLY_ERROR && text_of(**pong).starts_with("NOAUTH")) {
            return fail(ErrorKind::InvalidArgument,
                        "authentication failed: " + std::string(text_of(**pong)) + " (" +
                            endpoint.display() + " needs a password: redis://:PASSWORD@host:port)");
        }
        if ((*pong)->type != REDIS_REPLY_STATUS) {
            return std::unexpected(unexpected_reply(about("PING"), **pong, "a PONG"));
        }
        if (endpoint.db != 0) {
            const std::string db = std::to_string(endpoint.db);
            auto selected = command(about("SELECT", db), {"SELECT", db});
            if (!selected) {
                return std::unexpected(selected.error());
            }
            if ((*selected)->type != REDIS_REPLY_STATUS) {
                return std::unexpected(unexpected_reply(about("SELECT", db), **selected, "an OK"));
            }
        }
        return {};
    }
};

namespace {

timeval to_timeval(std::chrono::milliseconds timeout) {
    timeval out{};
    out.tv_sec = static_cast<time_t>(timeout.count() / 1000);
    out.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
    return out;
}

Error connect_error(const redisContext& context, const RedisEndpoint& endpoint) {
    if (errstr_is(context, ECONNREFUSED)) {
        return Error{ErrorKind::Io, "connection refused by " + endpoint.display(), {}};
    }
    if (errstr_is(context, ETIMEDOUT)) {
        return Error{ErrorKind::Io,
                     "timed out after " + std::to_string(endpoint.timeout.count()) +
                         " ms connecting to " + endpoint.display(),
                     {}};
    }
    return Error{
        ErrorKind::Io, "could not connect to " + endpoint.display() + ": " + context.errstr, {}};
}

} // namespace

Result<RedisClient> RedisClient::connect(const RedisEndpoint& endpoint) {
    if (endpoint.tls) {
        return fail(ErrorKind::Unsupported, "rediss:// needs TLS, which this build's hiredis (" +
                                                std::to_string(HIREDIS_MAJOR) + "." +
                                                std::to_string(HIREDIS_MINOR) +
                                                ") does not have (" + endpoint.display() + ")");
    }
    if (endpoint.timeout.count() <= 0) {
        return fail(ErrorKind::InvalidArgument,
                    "the timeout for " + endpoint.display() + " must be above 0 ms");
    }
    const timeval timeout = to_timeval(endpoint.timeout);
    Context context(redisConnectWithTimeout(endpoint.host.c_str(), endpoint.port, timeout));
    if (!context) {
        return fail(ErrorKind::Io, "out of memory connecting to " + endpoint.display());
    }
    if (context->err != 0) {
        return std::unexpected(connect_error(*context, endpoint));
    }
    // The connect timeout does not bound replies: this does.
    if (redisSetTimeout(context.get(), timeout) != REDIS_OK) {
        return fail(ErrorKind::Io,
                    "could not set the timeout for " + endpoint.display() + ": " + context->errstr);
    }
    auto connection = std::make_unique<Connection>();
    connection->endpoint = endpoint;
    connection->context = std::move(context);
    if (auto logged_in = connection->log_in(); !logged_in) {
        return std::unexpected(logged_in.error());
    }
    return RedisClient(std::move(connection));
}

RedisClient::RedisClient(std::unique_ptr<Connection> connection)
    : connection_(std::move(connection)) {}
RedisClient::RedisClient(RedisClient&&) noexcept = default;
RedisClient& RedisClient::operator=(RedisClient&&) noexcept = default;
RedisClient::~RedisClient() = default;

const RedisEndpoint& RedisClient::endpoint() const {
    static const RedisEndpoint none;
    return connection_ ? connection_->endpoint : none;
}

namespace {

std::unexpected<Error> moved_from() {
    return fail(ErrorKind::InvalidArgument, "this Redis client was moved from");
}

} // namespace

Result<void> RedisClient::ping() {
    if (!connection_) {
        return moved_from();
    }
    auto reply = connection_->command(about("PING"), {"PING"});
    if (!reply) {
        return std::unexpected(reply.error());
    }
    if ((*reply)->type != REDIS_REPLY_STATUS || text_of(**reply) != "PONG") {
        return std::unexpected(connection_->unexpected_reply(about("PING"), **reply, "a PONG"));
    }
    return {};
}

Result<std::optional<std::string>> RedisClient::get(std::string_view key) {
    if (!connection_) {
        return moved_from();
    }
    auto reply = connection_->command(about("GET", key), {"GET", key});
    if (!reply) {
        return std::unexpected(reply.error());
    }
    return connection_->string_or_nil(about("GET", key), **reply);
}

Result<std::vector<std::optional<std::string>>>
RedisClient::get_many(std::span<const std::string> keys) {
    if (!connection_) {
        return moved_from();
    }
    std::vector<std::optional<std::string>> values(keys.size());
    Connection& connection = *connection_;
    auto done = connection.pipeline(
        keys.size(),
        [&](Frames& frames, std::size_t i) {
            frames.add({"GET", keys[i]});
        },
        [&](std::size_t i) { return keys[i].size(); },
        [&](std::size_t i, RespReply&& reply) -> Result<void> {
            auto value = connection.string_or_nil(about("GET", keys[i]), std::move(reply));
            if (!value) {
                return std::unexpected(value.error());
            }
            values[i] = std::move(*value);
            return {};
        },
        [&](std::size_t i) { return about("GET", keys[i]); });
    if (!done) {
        return std::unexpected(done.error());
    }
    return values;
}

Result<bool> RedisClient::set(std::string_view key, std::string_view value, SetMode mode) {
    if (!connection_) {
        return moved_from();
    }
    const What what = about(mode == SetMode::OnlyIfAbsent ? "SET NX" : "SET", key);
    auto reply = mode == SetMode::OnlyIfAbsent
                     ? connection_->command(what, {"SET", key, value, "NX"})
                     : connection_->command(what, {"SET", key, value});
    if (!reply) {
        return std::unexpected(reply.error());
    }
    return connection_->written(what, **reply);
}

Result<std::vector<bool>>
RedisClient::set_many(std::span<const std::pair<std::string, std::string>> items, SetMode mode) {
    std::vector<std::pair<std::string_view, std::string_view>> views(items.begin(), items.end());
    return set_many(std::span<const std::pair<std::string_view, std::string_view>>(views), mode);
}

Result<std::vector<bool>>
RedisClient::set_many(std::span<const std::pair<std::string_view, std::string_view>> items,
                      SetMode mode) {
    if (!connection_) {
        return moved_from();
    }
    const bool nx = mode == SetMode::OnlyIfAbsent;
    const std::string_view command = nx ? "SET NX" : "SET";
    std::vector<bool> written(items.size(), false);
    Connection& connection = *connection_;
    auto done = connection.pipeline(
        items.size(),
        [&](Frames& frames, std::size_t i) {
            const auto& [key, value] = items[i];
            if (nx) {
                frames.add({"SET", key, value, "NX"});
            } else {
                frames.add({"SET", key, value});
            }
        },
        [&](std::size_t i) { return items[i].first.size() + items[i].second.size(); },
        [&](std::size_t i, const RespReply& reply) -> Result<void> {
            auto wrote = connection.written(about(command, items[i].first), reply);
            if (!wrote) {
                return std::unexpected(wrote.error());
            }
            written[i] = *wrote;
            return {};
        },
        [&](std::size_t i) { return about(command, items[i].first); });
    if (!done) {
        return std::unexpected(done.error());
    }
    return written;
}

Result<ScanPage> RedisClient::scan(std::string_view cursor, std::string_view match, int count) {
    if (!connection_) {
        return moved_from();
    }
    const What what = about("SCAN", cursor);
    if (count <= 0) {
        return fail(ErrorKind::InvalidArgument, connection_->where(what) + ": COUNT " +
                                                    std::to_string(count) + " is not above 0");
    }
    const std::string count_text = std::to_string(count);
    auto reply =
        match.empty()
            ? connection_->command(what, {"SCAN", cursor, "COUNT", count_text})
            : connection_->command(what, {"SCAN", cursor, "MATCH", match, "COUNT", count_text});
    if (!reply) {
        return std::unexpected(reply.error());
    }
    // [cursor, [key, ...]]
    const redisReply& top = **reply;
    if (top.type != REDIS_REPLY_ARRAY || top.elements != 2 ||
        top.element[0]->type != REDIS_REPLY_STRING || top.element[1]->type != REDIS_REPLY_ARRAY) {
        return std::unexpected(
            connection_->unexpected_reply(what, top, "a [cursor, [key, ...]] array"));
    }
    ScanPage page;
    page.cursor = std::string(text_of(*top.element[0]));
    const redisReply& keys = *top.element[1];
    page.keys.reserve(keys.elements);
    for (std::size_t i = 0; i < keys.elements; ++i) {
        if (keys.element[i]->type != REDIS_REPLY_STRING) {
            return std::unexpected(
                connection_->unexpected_reply(what, *keys.element[i], "a string key"));
        }
        page.keys.emplace_back(text_of(*keys.element[i]));
    }
    return page;
}

Result<std::vector<std::string>>
RedisClient::scan_all(std::string_view match, const std::function<bool(std::size_t)>& progress) {
    std::vector<std::string> keys;
    // SCAN may return a key twice (the table grew or shrank meanwhile): each
    // is counted once, so the count only grows.
    std::unordered_set<std::string> seen;
    std::string cursor = "0";
    do {
        auto page = scan(cursor, match, kScanCount);
        if (!page) {
            return std::unexpected(page.error());
        }
        for (auto& key : page->keys) {
            if (seen.insert(key).second) {
                keys.push_back(std::move(key));
            }
        }
        cursor = std::move(page->cursor);
        if (progress && !progress(keys.size())) {
            return cancelled();
        }
    } while (cursor != "0");
    std::sort(keys.begin(), keys.end());
    return keys;
}

Result<std::int64_t> RedisClient::ttl(std::string_view key) {
    if (!connection_) {
        return moved_from();
    }
    return connection_->integer(about("TTL", key), {"TTL", key});
}

Result<std::int64_t> RedisClient::value_size(std::string_view key) {
    if (!connection_) {
        return moved_from();
    }
    return connection_->integer(about("STRLEN", key), {"STRLEN", key});
}

Result<std::vector<ValueFacts>> RedisClient::value_facts(std::span<const std::string> keys) {
    if (!connection_) {
        return moved_from();
    }
    // Two commands a key: STRLEN at 2i, TTL at 2i + 1.
    std::vector<ValueFacts> facts(keys.size());
    Connection& connection = *connection_;
    const auto command = [](std::size_t i) {
        return i % 2 == 0 ? "STRLEN" : "TTL";
    };
    auto done = connection.pipeline(
        keys.size() * 2,
        [&](Frames& frames, std::size_t i) {
            frames.add({command(i), keys[i / 2]});
        },
        [&](std::size_t i) { return keys[i / 2].size(); },
        [&](std::size_t i, const RespReply& reply) -> Result<void> {
            if (reply.type != REDIS_REPLY_INTEGER) {
                return std::unexpected(connection.unexpected_reply(about(command(i), keys[i / 2]),
                                                                   reply, "an integer"));
            }
            auto& fact = facts[i / 2];
            (i % 2 == 0 ? fact.size : fact.ttl) = static_cast<std::int64_t>(reply.integer);
            return {};
        },
        [&](std::size_t i) { return about(command(i), keys[i / 2]); });
    if (!done) {
        return std::unexpected(done.error());
    }
    return facts;
}

Result<void> RedisClient::del(std::string_view key) {
    if (!connection_) {
        return moved_from();
    }
    auto removed = connection_->integer(about("DEL", key), {"DEL", key});
    if (!removed) {
        return std::unexpected(removed.error());
    }
    return {};
}

} // namespace cachelens::remote
