#include "resp_reader.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>

namespace cachelens::remote {

namespace {
constexpr std::size_t kBufferBytes = 64 << 10;
} // namespace

RespReader::RespReader(int fd)
    : fd_(fd)
    , buffer_(kBufferBytes, '\0') {}

bool RespReader::read(RespReply& reply) {
    return read_at(reply, 0);
}

bool RespReader::read_at(RespReply& reply, int depth) {
    std::string_view header;
    if (!line(header)) {
        return false;
    }
    const char kind = header.empty() ? '\0' : header.front();
    const std::string_view rest = header.empty() ? header : header.substr(1);
    switch (kind) {
    case '+':
    case '-':
        reply.type = kind == '+' ? REDIS_REPLY_STATUS : REDIS_REPLY_ERROR;
        reply.text.assign(rest);
        return true;
    case ':':
        reply.type = REDIS_REPLY_INTEGER;
        reply.text.clear();
        return number(rest, reply.integer);
    case '$':
        return bulk(rest, reply);
    case '*':
        return array(rest, reply, depth);
    default:
        return protocol_error(std::string("Protocol error, got \"") +
                              (kind >= 0x20 && kind < 0x7f ? std::string(1, kind) : "?") +
                              "\" as reply type byte");
    }
}

bool RespReader::number(std::string_view text, long long& out) {
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
    if (error != std::errc() || end != text.data() + text.size()) {
        return protocol_error("Bad integer value");
    }
    return true;
}

bool RespReader::bulk(std::string_view size_text, RespReply& reply) {
    long long size = 0;
    if (!number(size_text, size)) {
        return false;
    }
    if (size > kMaxBulkBytes) {
        return protocol_error("Bulk string of " + std::to_string(size) +
                              " bytes, over Redis's own limit of 512 MB");
    }
    if (size < 0) {
        reply.type = REDIS_REPLY_NIL;
        reply.text.clear();
        return true;
    }
    reply.type = REDIS_REPLY_STRING;
    reply.text.clear();
    const auto want = static_cast<std::size_t>(size);
    // Up to kTrustedBulkBytes the string gets its size at once; past it, it
    // doubles as the bytes come, so a header claiming 512 MB followed by
    // nothing costs what arrived.
    bool ok = true;
    for (std::size_t have = 0; ok && have < want;) {
        const std::size_t step = std::min(want, std::max(kTrustedBulkBytes, have * 2));
        // The size asked for, not the callback's argument: libstdc++ 12
        // passes the capacity there.
        reply.text.resize_and_overwrite(step, [&](char* to, std::size_t) {
            ok = take(to + have, step - have);
            return step;
        });
        have = step;
    }
    std::array<char, 2> end{};
    if (!ok || !take(end.data(), end.size())) {
        return false;
    }
    if (end[0] != '\r' || end[1] != '\n') {
        return protocol_error("Bad bulk string end");
    }
    return true;
}

bool RespReader::array(std::string_view count_text, RespReply& reply, int depth) {
    long long count = 0;
    if (!number(count_text, count)) {
        return false;
    }
    if (count > 0 && depth >= kMaxDepth) {
        return protocol_error("Arrays nested more than " + std::to_string(kMaxDepth) + " deep");
    }
    reply.type = count < 0 ? REDIS_REPLY_NIL : REDIS_REPLY_ARRAY;
    reply.text.clear();
    RespReply element;
    for (long long i = 0; i < count; ++i) {
        if (!read_at(element, depth + 1)) {
            return false;
        }
    }
    return true;
}

// The next line, without its CRLF; it stays valid until the next read.
bool RespReader::line(std::string_view& out) {
    for (std::size_t searched = begin_;;) {
        const std::string_view held(buffer_.data() + searched, end_ - searched);
        if (const auto at = held.find("\r\n"); at != std::string_view::npos) {
            out = std::string_view(buffer_.data() + begin_, searched + at - begin_);
            begin_ = searched + at + 2;
            return true;
        }
        searched = end_ > begin_ ? end_ - 1 : begin_;
        const std::size_t before = begin_;
        if (!fill()) {
            return false;
        }
        searched -= before - begin_;
    }
}

// `size` bytes to `to`: first what is buffered, then straight from the socket.
bool RespReader::take(char* to, std::size_t size) {
    const std::size_t buffered = std::min(size, end_ - begin_);
    std::memcpy(to, buffer_.data() + begin_, buffered);
    begin_ += buffered;
    for (std::size_t done = buffered; done < size;) {
        const long got = receive(to + done, size - done);
        if (got <= 0) {
            return false;
        }
        done += static_cast<std::size_t>(got);
    }
    return true;
}

// More bytes into the buffer, what is left of it moved to its start.
bool RespReader::fill() {
    if (begin_ > 0) {
        std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
    }
    if (end_ == buffer_.size()) {
        if (buffer_.size() >= kMaxLineBytes) {
            return protocol_error("A reply line of over " + std::to_string(kMaxLineBytes) +
                                  " bytes without its end");
        }
        buffer_.resize(buffer_.size() * 2); // a line longer than the buffer
    }
    const long got = receive(buffer_.data() + end_, buffer_.size() - end_);
    if (got <= 0) {
        return false;
    }
    end_ += static_cast<std::size_t>(got);
    return true;
}

long RespReader::receive(char* to, std::size_t size) {
    for (;;) {
        const ssize_t got = ::read(fd_, to, size);
        if (got > 0) {
            return got;
        }
        if (got == 0) {
            set_error(REDIS_ERR_EOF, "Server closed the connection");
            return 0;
        }
        if (errno != EINTR) {
            set_error(REDIS_ERR_IO, std::strerror(errno));
            return -1;
        }
    }
}

bool RespReader::protocol_error(const std::string& why) {
    set_error(REDIS_ERR_PROTOCOL, why);
    return false;
}

void RespReader::set_error(int type, const std::string& why) {
    error_type_ = type;
    error_text_ = why;
}

} // namespace cachelens::remote
