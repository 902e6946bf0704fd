#pragma once

// Reads Redis replies (RESP 2) from a socket itself: a string lands in its
// final buffer, read there straight from the socket once it is long, where
// hiredis reads 16 KiB at a time into its buffer, copies the string into a
// reply object and the caller copied it again (a pull's values are ~1 MB
// each). Replies and failures are typed as hiredis types them, so the client
// reports both the same way whichever reader read them.
//
// Every byte comes from a server that is not trusted: sizes, counts and
// nesting are bounded, and memory grows with the bytes that arrive, never
// with the size a header claims.

#include <hiredis.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace cachelens::remote {

// One reply: the type as hiredis names it (REDIS_REPLY_*), the bytes of a
// string, status or error, the value of an integer. Arrays are read (to stay
// in step) and their elements dropped: no command cachelens pipelines
// answers with one.
struct RespReply {
    int type = REDIS_REPLY_NIL;
    std::string text;
    long long integer = 0;
};

class RespReader {
public:
    // Reads from `fd` (a socket, or any readable descriptor), which it does not own.
    explicit RespReader(int fd);

    // The next reply; false when it could not be read (error_type() says why).
    bool read(RespReply& reply);

    // REDIS_ERR_EOF, REDIS_ERR_IO or REDIS_ERR_PROTOCOL after a failed read; 0 before.
    int error_type() const { return error_type_; }
    const std::string& error_text() const { return error_text_; }

    // What a hostile or broken server can make this reader hold. Redis itself
    // refuses a bulk string over 512 MB (proto-max-bulk-len) and hiredis nests
    // arrays at most 7 deep; a header line is a few bytes.
    static constexpr long long kMaxBulkBytes = 512LL << 20;
    static constexpr int kMaxDepth = 7;
    static constexpr std::size_t kMaxLineBytes = 1 << 20;
    // A bulk string is given its whole size up front up to this; past it the
    // buffer grows as its bytes arrive.
    static constexpr std::size_t kTrustedBulkBytes = 16 << 20;

private:
    bool read_at(RespReply& reply, int depth);
    bool number(std::string_view text, long long& out);
    bool bulk(std::string_view size_text, RespReply& reply);
    bool array(std::string_view count_text, RespReply& reply, int depth);
    bool line(std::string_view& out);
    bool take(char* to, std::size_t size);
    bool fill();
    long receive(char* to, std::size_t size);
    bool protocol_error(const std::string& why);
    void set_error(int type, const std::string& why);

    int fd_;
    std::string buffer_;
    std::size_t begin_ = 0;
    std::size_t end_ = 0;
    int error_type_ = 0;
    std::string error_text_;
};

} // namespace cachelens::remote
