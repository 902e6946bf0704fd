#pragma once

// The one sink of what cachelens prints for people. Text from a cache is data,
// never a terminal control: while a TerminalOutput is alive, stdout, stderr,
// std::cout and std::cerr pass everything through escape_for_terminal
// (core/text.h), so no print site has to remember. What must arrive byte for
// byte (JSON for scripts, the CLI's own progress line) is written with
// write_exact, explicitly.

#include <cstdio>
#include <memory>
#include <streambuf>
#include <string_view>

namespace cachelens::cli {

enum class Stream { Stdout, Stderr };

class TerminalOutput {
public:
    TerminalOutput();
    // Writes what the escaping streams still hold and puts the real ones back.
    ~TerminalOutput();
    TerminalOutput(const TerminalOutput&) = delete;
    TerminalOutput& operator=(const TerminalOutput&) = delete;

private:
    // std::cout and std::cerr over the escaping FILE*s, and what they had.
    std::unique_ptr<std::streambuf> iostream_buffers_[2];
    std::streambuf* previous_buffers_[2] = {};
};

// `bytes` unchanged to the real stdout or stderr, after everything printed
// before it.
void write_exact(Stream stream, std::string_view bytes);

} // namespace cachelens::cli
