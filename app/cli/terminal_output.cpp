#include "terminal_output.h"

#include <cachelens/core/text.h>

#include <unistd.h>

#include <iostream>
#include <string>

namespace cachelens::cli {

namespace {

// What an escaping FILE* (glibc's fopencookie) writes into: the real stream.
struct Sink {
    FILE* target = nullptr;
    std::string held;    // the start of a UTF-8 sequence the next write may complete
    std::string escaped; // reused between writes
};

// The escaping streams while a TerminalOutput is alive, by Stream.
FILE* g_escaping[2] = {};
Sink* g_sinks[2] = {};

bool put(Sink& sink, std::string_view text) {
    sink.escaped.clear();
    append_escaped_for_terminal(sink.escaped, text);
    return std::fwrite(sink.escaped.data(), 1, sink.escaped.size(), sink.target) ==
           sink.escaped.size();
}

// Writes the held bytes, escaped: at a boundary (the stream closes, exact
// bytes follow) no later write can complete their character.
bool settle(Sink& sink) {
    if (sink.held.empty()) {
        return true;
    }
    std::string held;
    held.swap(sink.held);
    return put(sink, held);
}

ssize_t write_escaped(void* cookie, const char* data, std::size_t size) {
    auto& sink = *static_cast<Sink*>(cookie);
    std::string joined;
    std::string_view text(data, size);
    if (!sink.held.empty()) {
        joined = std::move(sink.held);
        joined.append(text);
        text = joined;
    }
    const std::size_t tail = incomplete_utf8_tail(text);
    sink.held.assign(text.substr(text.size() - tail));
    text.remove_suffix(tail);
    return put(sink, text) ? static_cast<ssize_t>(size) : -1;
}

int close_escaped(void* cookie) {
    auto* sink = static_cast<Sink*>(cookie);
    const bool written = settle(*sink) && std::fflush(sink->target) == 0;
    delete sink;
    return written ? 0 : EOF;
}

// An iostream over a FILE*, unbuffered as libstdc++'s own std::cout is, so
// what C stdio and iostreams print keeps its order.
class FileStreambuf : public std::streambuf {
public:
    explicit FileStreambuf(FILE* file)
        : file_(file) {}

protected:
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof())) {
            return traits_type::not_eof(c);
        }
        return std::fputc(c, file_) == EOF ? traits_type::eof() : c;
    }
    std::streamsize xsputn(const char* data, std::streamsize size) override {
        return static_cast<std::streamsize>(
            std::fwrite(data, 1, static_cast<std::size_t>(size), file_));
    }
    int sync() override { return std::fflush(file_) == 0 ? 0 : -1; }

private:
    FILE* file_;
};

std::ostream& iostream_of(Stream stream) {
    return stream == Stream::Stdout ? std::cout : std::cerr;
}

FILE*& stdio_of(Stream stream) {
    if (stream == Stream::Stdout) {
        return stdout; // glibc's stdout and stderr are variables one may set
    }
    return stderr;
}

} // namespace

TerminalOutput::TerminalOutput() {
    for (const Stream stream : {Stream::Stdout, Stream::Stderr}) {
        const auto i = static_cast<std::size_t>(stream);
        FILE*& stdio = stdio_of(stream);
        auto* sink = new Sink{stdio, {}, {}};
        FILE* escaping = fopencookie(sink, "w", {nullptr, write_escaped, nullptr, close_escaped});
        if (escaping == nullptr) {
            delete sink;
            continue; // out of memory at start: print unescaped rather than nothing
        }
        // The escaping stream buffers as the real one did (a line on a
        // terminal, a block into a pipe); the real one then writes at once,
        // so flushing the escaping stream reaches the terminal.
        const bool interactive = stream == Stream::Stdout && isatty(fileno(stdio)) != 0;
        std::setvbuf(escaping, nullptr,
                     stream == Stream::Stderr ? _IONBF
                     : interactive            ? _IOLBF
                                              : _IOFBF,
                     BUFSIZ);
        std::setvbuf(stdio, nullptr, _IONBF, 0);
        g_escaping[i] = escaping;
        g_sinks[i] = sink;
        stdio = escaping;
        iostream_buffers_[i] = std::make_unique<FileStreambuf>(escaping);
        previous_buffers_[i] = iostream_of(stream).rdbuf(iostream_buffers_[i].get());
    }
}

TerminalOutput::~TerminalOutput() {
    for (const Stream stream : {Stream::Stdout, Stream::Stderr}) {
        const auto i = static_cast<std::size_t>(stream);
        if (g_escaping[i] == nullptr) {
            continue;
        }
        iostream_of(stream).flush();
        iostream_of(stream).rdbuf(previous_buffers_[i]);
        stdio_of(stream) = g_sinks[i]->target;
        std::fclose(g_escaping[i]); // writes what it holds, frees the sink
        g_escaping[i] = nullptr;
        g_sinks[i] = nullptr;
    }
}

void write_exact(Stream stream, std::string_view bytes) {
    const auto i = static_cast<std::size_t>(stream);
    FILE* target = stdio_of(stream);
    if (g_escaping[i] != nullptr) {
        flockfile(g_escaping[i]); // the sink's state is the stream's: hold its lock
        std::fflush(g_escaping[i]);
        settle(*g_sinks[i]);
        target = g_sinks[i]->target;
        std::fwrite(bytes.data(), 1, bytes.size(), target);
        funlockfile(g_escaping[i]);
        return;
    }
    std::fwrite(bytes.data(), 1, bytes.size(), target);
}

} // namespace cachelens::cli
