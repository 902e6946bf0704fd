#include <cachelens/watch/trace_watch.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cachelens::watch {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kReadChunk = std::size_t{1} << 20;

std::string short_key(std::string_view key) {
    return key.size() > 12 ? std::string(key.substr(0, 12)) + "…" : std::string(key);
}

// "compile 1/0 (forward at model.py:12): FX graph cache miss f3gunfwvnc2b… (guard_miss)"
std::string describe(const trace::TraceLog& log, const trace::CacheEvent& event) {
    std::string line = "compile " + (event.compile_id.empty() ? "?" : event.compile_id);
    for (const auto& record : log.compiles) {
        if (record.compile_id == event.compile_id && !record.function.empty()) {
            line += " (" + record.function;
            if (!record.filename.empty()) {
                line += " at " + fs::path(record.filename).filename().string();
                if (record.line) {
                    line += ":" + std::to_string(*record.line);
                }
            }
            line += ")";
            break;
        }
    }
    line += event.cache == trace::CacheKind::FxGraph ? ": FX graph cache " : ": AOTAutograd cache ";
    line += event.status;
    if (!event.key.empty()) {
        line += " " + short_key(event.key);
    }
    if (!event.detailed_status.empty() && event.detailed_status != event.status) {
        line += " (" + event.detailed_status + ")";
    }
    if (!event.reason.empty()) {
        line += ": " + event.reason;
    }
    return line;
}

} // namespace

Result<TraceWatch> TraceWatch::start(const fs::path& dir, bool report_existing) {
    std::error_code error;
    if (!fs::is_directory(dir, error)) {
        return fail(ErrorKind::NotFound, "not a directory (TORCH_TRACE's log dir)", dir.string());
    }
    TraceWatch watch(dir);
    auto first = watch.poll(std::chrono::milliseconds(0));
    if (!first) {
        return std::unexpected(first.error());
    }
    if (report_existing) {
        for (auto& [name, followed] : watch.logs_) {
            followed.reported = 0;
        }
    }
    return watch;
}

Result<void> TraceWatch::read_appended(const std::string& name, Followed& followed, bool& grew) {
    const fs::path file = dir_ / name;
    const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) {
            return {}; // gone since it was listed
        }
        return fail(ErrorKind::Io, std::string("cannot open: ") + std::strerror(errno),
                    file.string());
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd);
        return {};
    }
    const auto size = static_cast<std::uint64_t>(info.st_size);
    if (size < followed.offset) {
        // Cut shorter than what was read (a new run wrote it again): read anew.
        followed = Followed{trace::TraceLogFollower(file.string()), 0, 0, {}, false};
    }
    std::string chunk;
    while (followed.offset < size) {
        chunk.resize(
            static_cast<std::size_t>(std::min<std::uint64_t>(kReadChunk, size - followed.offset)));
        const ssize_t got =
            ::pread(fd, chunk.data(), chunk.size(), static_cast<off_t>(followed.offset));
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            const int read_error = errno;
            ::close(fd);
            if (got == 0) {
                return {}; // cut while read: the next poll starts it again
            }
            return fail(ErrorKind::Io, std::string("cannot read: ") + std::strerror(read_error),
                        file.string());
        }
        followed.follower.feed(std::string_view(chunk.data(), static_cast<std::size_t>(got)));
        followed.offset += static_cast<std::uint64_t>(got);
        grew = true;
    }
    ::close(fd);
    return {};
}

Result<std::vector<TraceWatchEvent>> TraceWatch::poll(std::chrono::milliseconds quiet) {
    std::error_code error;
    std::vector<std::string> names;
    for (fs::directory_iterator it(dir_, error), end; !error && it != end; it.increment(error)) {
        std::error_code type_error;
        if (it->path().extension() == ".log" && it->is_regular_file(type_error)) {
            names.push_back(it->path().filename().string());
        }
    }
    if (error) {
        return fail(ErrorKind::Io, "cannot list the directory: " + error.message(), dir_.string());
    }
    const auto now = std::chrono::steady_clock::now();
    std::vector<TraceWatchEvent> events;
    for (const auto& name : names) {
        auto [it, added] = logs_.try_emplace(
            name, Followed{trace::TraceLogFollower((dir_ / name).string()), 0, 0, now, false});
        Followed& followed = it->second;
        bool grew = false;
        if (auto read = read_appended(name, followed, grew); !read) {
            return std::unexpected(read.error());
        }
        if (grew) {
            followed.last_growth = now;
        }
        followed.settled = now - followed.last_growth >= quiet;
        if (followed.follower.bytes_read() == 0) {
            continue;
        }
        auto log = followed.follower.snapshot(followed.settled);
        if (!log) {
            continue; // no trace event yet (a log just made, or not a trace)
        }
        for (std::size_t i = followed.reported; i < log->events.size(); ++i) {
            events.push_back({name, log->events[i], describe(*log, log->events[i])});
        }
        followed.reported = std::max(followed.reported, log->events.size());
    }
    return events;
}

Result<std::optional<trace::WarmStartAnalysis>>
follow_warm_start(TraceWatch& watch, const fs::path& cache_dir, bool first) {
    auto events = watch.poll();
    if (!events) {
        return std::unexpected(std::move(events.error()));
    }
    if (!first && events->empty()) {
        return std::optional<trace::WarmStartAnalysis>();
    }
    auto analysis = trace::analyze_warm_start(watch.logs(), cache_dir);
    if (!analysis) {
        return std::unexpected(std::move(analysis.error()));
    }
    return std::optional(std::move(*analysis));
}

std::vector<trace::TraceLog> TraceWatch::logs() const {
    std::vector<trace::TraceLog> out;
    for (const auto& [name, followed] : logs_) {
        if (auto log = followed.follower.snapshot(followed.settled)) {
            out.push_back(std::move(*log));
        }
    }
    return out;
}

} // namespace cachelens::watch
