#include "progress_line.h"

#include "output.h"
#include "terminal_output.h"

#include <cachelens/core/format.h>
#include <cachelens/core/text.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <string_view>

namespace cachelens::cli {

namespace {

volatile std::sig_atomic_t interrupt_seen = 0;
struct sigaction default_interrupt {};

extern "C" void on_interrupt(int) {
    interrupt_seen = 1;
}

constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

std::size_t terminal_columns() {
    winsize size{};
    if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
        return size.ws_col;
    }
    return 80;
}

// "12,345"
std::string grouped(std::uint64_t number) {
    const std::string digits = std::to_string(number);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) {
            out += ',';
        }
        out += digits[i];
    }
    return out;
}

bool continuation_byte(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// The columns UTF-8 text takes, one per code point: near enough for paths and keys.
std::size_t columns_of(std::string_view text) {
    std::size_t columns = 0;
    for (char c : text) {
        columns += continuation_byte(c) ? 0 : 1;
    }
    return columns;
}

// The first `columns` code points of `text`.
std::string_view head_columns(std::string_view text, std::size_t columns) {
    std::size_t at = 0;
    for (std::size_t seen = 0; at < text.size(); ++at) {
        if (!continuation_byte(text[at]) && seen++ == columns) {
            break;
        }
    }
    return text.substr(0, at);
}

// The last `columns` code points of `text`.
std::string_view tail_columns(std::string_view text, std::size_t columns) {
    const std::size_t all = columns_of(text);
    if (all <= columns) {
        return text;
    }
    std::size_t at = head_columns(text, all - columns).size();
    return text.substr(at);
}

// A cache's file names and keys are data: no control character reaches the terminal.
std::string printable(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f) {
            c = '?';
        }
    }
    return out;
}

// `text` in `columns`, its middle replaced by "…" when it is longer.
std::string elide_middle(std::string_view text, std::size_t columns) {
    if (columns_of(text) <= columns) {
        return std::string(text);
    }
    if (columns < 2) {
        return std::string(head_columns(text, columns));
    }
    const std::size_t head = (columns - 1) / 2;
    return std::string(head_columns(text, head)) + "…" +
           std::string(tail_columns(text, columns - 1 - head));
}

// "indexing /cache: 12,345 / 60,000 entries (20%)  1.2 GiB/s  parsing fxgraph/…",
// at most `columns` - 1 wide (writing the last column makes some terminals wrap).
// What gives way when it is too wide: the item (its front), then the label
// (its middle); the counts, the rate and the stage stay. The label is given
// the room the widest of those left it, so that it keeps its width while the
// counts grow (a process draws one line at a time, as it has one Ctrl-C).
std::string compose(std::string_view label, const Progress& progress, double seconds,
                    std::size_t columns) {
    static std::string last_label;
    static std::size_t widest_tail = 0;
    if (label != last_label) {
        last_label = label;
        widest_tail = 0;
    }
    std::string tail;
    if (progress.total > 0) {
        tail += ": " + grouped(progress.done) + " / " + grouped(progress.total) + " " +
                std::string(unit_name(progress.unit, progress.total)) + " (" +
                std::to_string(progress.done * 100 / progress.total) + "%)";
    } else if (progress.done > 0) {
        tail += ": " + grouped(progress.done) + " " +
                std::string(unit_name(progress.unit, progress.done));
    }
    // A rate once there is enough time behind it to mean something.
    if (seconds >= 0.5 && progress.bytes > 0) {
        tail += "  " + format_bytes(static_cast<std::uint64_t>(progress.bytes / seconds)) + "/s";
    } else if (seconds >= 0.5 && progress.done > 0) {
        tail += "  " + grouped(static_cast<std::uint64_t>(progress.done / seconds)) + " " +
                std::string(unit_name(progress.unit, 2)) + "/s";
    }
    tail += "  ";
    tail += to_string(progress.stage);
    const std::size_t width = columns > 1 ? columns - 1 : 1;
    constexpr std::size_t kShortestLabel = 16;
    widest_tail = std::max(widest_tail, columns_of(tail));
    const std::size_t tail_width = widest_tail;
    std::string line = elide_middle(
        printable(label), std::max(kShortestLabel, width > tail_width ? width - tail_width : 0));
    line += tail;
    const std::string item = printable(progress.item);
    const std::size_t used = columns_of(line) + 1;
    // The item, its end kept (a path's file name, a key's tail), when "…" and a
    // few of its characters fit.
    if (!item.empty() && used + 4 <= width) {
        const std::size_t room = width - used;
        line += ' ';
        if (columns_of(item) <= room) {
            line += item;
        } else {
            line += "…";
            line += tail_columns(item, room - 1);
        }
    }
    if (columns_of(line) > width) {
        line = std::string(head_columns(line, width));
    }
    return line;
}

} // namespace

ProgressLine::ProgressLine(std::string label, bool json)
    : label_(escape_for_terminal(label))
    , enabled_(!json && ::isatty(STDERR_FILENO) != 0)
    , throttle_(kRedrawInterval) {
    interrupt_seen = 0;
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    // Interrupted reads and writes go on; the second Ctrl-C kills as usual.
    action.sa_flags = SA_RESTART | SA_RESETHAND;
    ::sigaction(SIGINT, &action, &default_interrupt);
}

ProgressLine::~ProgressLine() {
    clear();
    ::sigaction(SIGINT, &default_interrupt, nullptr);
}

bool ProgressLine::operator()(const Progress& progress) {
    const auto now = std::chrono::steady_clock::now();
    if (!started_ || progress.stage != stage_ || progress.unit != unit_) {
        started_ = true;
        stage_ = progress.stage;
        unit_ = progress.unit;
        stage_start_ = now;
    }
    if (enabled_ && throttle_.due(progress, now)) {
        const std::chrono::duration<double> elapsed = now - stage_start_;
        // The label and the item come from the command line and the cache:
        // escaped before they are fitted to the width; the \r and the erase
        // are the line's own, written exact past the terminal sink.
        const std::string item = escape_for_terminal(progress.item);
        Progress shown = progress;
        shown.item = item;
        const std::string line = compose(label_, shown, elapsed.count(), terminal_columns());
        write_exact(Stream::Stderr, "\r" + line + "\033[K");
        drawn_ = true;
    }
    return !interrupted();
}

void ProgressLine::set_label(std::string label) {
    label_ = escape_for_terminal(label);
}

void ProgressLine::clear() {
    if (drawn_) {
        write_exact(Stream::Stderr, "\r\033[K");
        drawn_ = false;
    }
}

bool ProgressLine::interrupted() const {
    return interrupt_seen != 0;
}

int report_stopped(ProgressLine& line, std::string_view message) {
    line.clear();
    report(message);
    return kExitInterrupted;
}

int report_failure(ProgressLine& line, const Error& error, std::string_view stopped) {
    return error.kind == ErrorKind::Cancelled ? report_stopped(line, stopped) : report(error);
}

} // namespace cachelens::cli
