#include "compile_server_script.h"
#include "config_json.h"

#include <cachelens/bench/compile_server.h>
#include <cachelens/core/text.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <thread>

namespace cachelens::bench {

namespace {

using Json = nlohmann::json;

constexpr std::string_view kMarker = "cachelens-tune: ";

std::string string_field(const Json& json, const char* key, std::string& why) {
    const auto it = json.find(key);
    if (it == json.end() || !it->is_string()) {
        if (why.empty()) {
            why = fmt::format("\"{}\" is not a string", key);
        }
        return {};
    }
    return it->get<std::string>();
}

double number_field(const Json& json, const char* key, std::string& why) {
    const auto it = json.find(key);
    if (it == json.end() || !it->is_number() || it->get<double>() < 0) {
        if (why.empty()) {
            why = fmt::format("\"{}\" is not a number of 0 or more", key);
        }
        return 0;
    }
    return it->get<double>();
}

std::size_t id_field(const Json& json, std::string& why) {
    const auto it = json.find("id");
    if (it == json.end() || !it->is_number_unsigned()) {
        if (why.empty()) {
            why = "\"id\" is not a request's id";
        }
        return 0;
    }
    return it->get<std::size_t>();
}

bool one_of(std::string_view value, std::initializer_list<std::string_view> allowed) {
    return std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

} // namespace

std::string_view compile_server_script() {
    return generated::kCompileServerScript;
}

std::variant<std::monostate, CompileReply, std::string> parse_compile_reply(std::string_view line) {
    if (!line.starts_with(kMarker)) {
        return std::monostate{};
    }
    const Json json = Json::parse(line.substr(kMarker.size()), nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
        return std::string("not a JSON object");
    }
    std::string why;
    CompileReply reply;
    const std::string event = string_field(json, "event", why);
    if (event == "ready") {
        reply.kind = CompileReply::Kind::Ready;
        reply.torch = string_field(json, "torch", why);
        reply.triton = string_field(json, "triton", why);
        const auto workers = json.find("workers");
        if (workers == json.end() || !workers->is_number_unsigned() ||
            workers->get<std::uint64_t>() == 0 || workers->get<std::uint64_t>() > 4096) {
            why = why.empty() ? "\"workers\" is not a count of workers" : why;
        } else {
            reply.workers = workers->get<unsigned>();
        }
    } else if (event == "compiled") {
        reply.kind = CompileReply::Kind::Compiled;
        reply.id = id_field(json, why);
        reply.triton_dir = string_field(json, "triton_dir", why);
        reply.triton_hash = string_field(json, "triton_hash", why);
        reply.seconds = number_field(json, "seconds", why);
        if (why.empty() && (reply.triton_dir.empty() || reply.triton_dir.front() != '/')) {
            why = "\"triton_dir\" is not an absolute path";
        }
    } else if (event == "failed") {
        reply.kind = CompileReply::Kind::Failed;
        reply.id = id_field(json, why);
        reply.reason = string_field(json, "reason", why);
        reply.message = string_field(json, "message", why);
        reply.seconds = number_field(json, "seconds", why);
        if (why.empty() &&
            !one_of(reply.reason, {"compile", "resources", "timeout", "crashed", "invalid"})) {
            why = "\"reason\" is not one the server gives: " + reply.reason;
        }
    } else if (event == "fatal") {
        reply.kind = CompileReply::Kind::Fatal;
        reply.reason = string_field(json, "reason", why);
        reply.message = string_field(json, "message", why);
    } else if (why.empty()) {
        why = "an event this reader does not know: " + event;
    }
    if (!why.empty()) {
        return why;
    }
    return reply;
}

std::string compile_request(std::size_t id, const cachedir::KernelConfig& config) {
    Json json = {{"id", id}, {"kwargs", detail::kwargs_json<Json>(config)}};
    detail::add_launch_options(json, config);
    return json.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

Result<CompileServer> CompileServer::start(const CompileServerOptions& options) {
    const unsigned workers =
        options.workers != 0 ? options.workers : std::max(1U, std::thread::hardware_concurrency());
    const std::array<std::string, 11> argv = {options.python,
                                              "-c",
                                              std::string(compile_server_script()),
                                              "--module",
                                              options.module.string(),
                                              "--kernel",
                                              options.kernel,
                                              "--workers",
                                              std::to_string(workers),
                                              "--timeout",
                                              std::to_string(options.per_config_timeout.count())};
    ChildSession::Options child;
    child.environment = {{"TRITON_CACHE_DIR", (options.scratch / "triton").string()},
                         {"TORCHINDUCTOR_CACHE_DIR", (options.scratch / "inductor").string()},
                         {"PYTHONDONTWRITEBYTECODE", "1"}};
    auto session = ChildSession::start(argv, child);
    if (!session) {
        return std::unexpected(std::move(session.error()));
    }
    CompileServer server(std::move(*session), options.python);
    const auto deadline = std::chrono::steady_clock::now() + options.start_timeout;
    for (;;) {
        if (options.keep_going && !options.keep_going()) {
            server.stop();
            return fail(ErrorKind::Cancelled, "cancelled while it imported torch", options.python);
        }
        if (std::chrono::steady_clock::now() > deadline) {
            server.stop();
            return fail(ErrorKind::LimitExceeded,
                        fmt::format("the compile server was not ready after {} s",
                                    options.start_timeout.count()),
                        options.python);
        }
        auto line = server.session_.read_line(std::chrono::milliseconds(100));
        if (!line) {
            return std::unexpected(server.died("ended before it was ready"));
        }
        if (!*line) {
            continue;
        }
        auto parsed = parse_compile_reply(**line);
        if (const auto* why = std::get_if<std::string>(&parsed)) {
            server.stop();
            return fail(ErrorKind::Corrupt, "the compile server's first answer: " + *why,
                        options.python);
        }
        const auto* reply = std::get_if<CompileReply>(&parsed);
        if (reply == nullptr) {
            continue;
        }
        if (reply->kind == CompileReply::Kind::Fatal) {
            server.session_.wait();
            const ErrorKind kind =
                reply->reason == "module" ? ErrorKind::Corrupt : ErrorKind::Unsupported;
            std::string words = reply->message;
            if (reply->reason == "no-torch" || reply->reason == "no-triton") {
                words = fmt::format("this Python cannot import {} ({}): tune compiles with the "
                                    "torch and Triton that compiled the cache; name such a Python "
                                    "with --python",
                                    reply->reason == "no-torch" ? "torch" : "triton", words);
            } else if (reply->reason == "module") {
                words = "the kernel module does not import: " + words;
            }
            return fail(kind, words, options.python);
        }
        if (reply->kind != CompileReply::Kind::Ready) {
            server.stop();
            return fail(ErrorKind::Corrupt, "the compile server answered before it was ready",
                        options.python);
        }
        server.ready_ = *reply;
        return server;
    }
}

Result<void> CompileServer::submit(std::size_t id, const cachedir::KernelConfig& config) {
    auto wrote = session_.write(compile_request(id, config));
    if (!wrote) {
        return std::unexpected(died("stopped taking requests"));
    }
    return {};
}

Result<std::optional<CompileReply>> CompileServer::next(std::chrono::milliseconds wait) {
    const auto deadline = std::chrono::steady_clock::now() + wait;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        auto line = session_.read_line(std::max(left, std::chrono::milliseconds(0)));
        if (!line) {
            return std::unexpected(died("ended"));
        }
        if (!*line) {
            return std::optional<CompileReply>();
        }
        auto parsed = parse_compile_reply(**line);
        if (const auto* why = std::get_if<std::string>(&parsed)) {
            stop();
            return fail(ErrorKind::Corrupt, "the compile server said something else: " + *why,
                        python_);
        }
        if (auto* reply = std::get_if<CompileReply>(&parsed)) {
            if (reply->kind == CompileReply::Kind::Compiled ||
                reply->kind == CompileReply::Kind::Failed) {
                return std::optional<CompileReply>(std::move(*reply));
            }
            stop();
            return fail(ErrorKind::Corrupt, "the compile server gave up: " + reply->message,
                        python_);
        }
    }
}

void CompileServer::finish() {
    session_.close_input();
}

void CompileServer::stop() {
    session_.kill();
}

Error CompileServer::died(std::string_view what) const {
    const std::string said = last_lines(session_.stderr_text(), 6);
    return Error{
        ErrorKind::Io,
        fmt::format("the compile server {}{}", what, said.empty() ? std::string() : ": " + said),
        python_};
}

} // namespace cachelens::bench
