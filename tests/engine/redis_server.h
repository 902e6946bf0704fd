#pragma once

// A real redis-server for tests, on a free loopback port in a temporary
// directory, never saving to disk; and a loopback port that never accepts,
// for connect timeouts. Suites skip when redis-server is not installed,
// except under CI (which installs it from scripts/debian-packages.txt),
// where that is a failure.

#include <cachelens/remote/redis_endpoint.h>

#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cachelens::test {

// True when `redis-server` is on PATH.
bool redis_server_available();

struct RedisServerOptions {
    std::optional<std::string> password; // --requirepass
    int start_timeout_ms = 10000;        // until it answers PING
};

class RedisServer {
public:
    RedisServer() = default;
    ~RedisServer();
    RedisServer(const RedisServer&) = delete;
    RedisServer& operator=(const RedisServer&) = delete;

    // Starts redis-server on 127.0.0.1 and waits until it answers PING; false
    // with error() saying why (and the server's log) when it does not.
    bool start(const RedisServerOptions& options = {});
    // A clean shutdown (SIGTERM; nothing is saved), SIGKILL when it lingers.
    void stop();
    // SIGKILL: the server goes away as in a crash.
    void kill();
    bool running() const;

    int port() const { return port_; }
    // 127.0.0.1:port, the password when one is set, db 0, a 2 s timeout.
    remote::RedisEndpoint endpoint() const;
    QString error() const { return error_; }
    QString log() const;

    // Runs one command over a plain socket, independently of RedisClient
    // (logging in first when the server has a password), and returns its
    // reply's first line: "+OK", ":1", "-ERR ...". Empty when no reply came.
    std::string command(const std::vector<std::string>& args) const;

private:
    bool start_on(int port, const RedisServerOptions& options);

    std::unique_ptr<QTemporaryDir> dir_;
    std::unique_ptr<QProcess> process_;
    std::optional<std::string> password_;
    int port_ = 0;
    QString error_;
};

// A loopback port whose accept queue is full: connecting to it times out.
class UnansweredPort {
public:
    UnansweredPort();
    ~UnansweredPort();
    UnansweredPort(const UnansweredPort&) = delete;
    UnansweredPort& operator=(const UnansweredPort&) = delete;

    int port() const { return port_; }

private:
    int listener_ = -1;
    std::vector<int> fillers_;
    int port_ = 0;
};

} // namespace cachelens::test

// At the start of a test that needs redis-server: skips without it, except
// under CI, where it fails.
#define REQUIRE_REDIS_SERVER()                                                                     \
    do {                                                                                           \
        if (!cachelens::test::redis_server_available()) {                                          \
            if (qEnvironmentVariableIsSet("CI")) {                                                 \
                QFAIL("redis-server is not on PATH; CI installs it from "                          \
                      "scripts/debian-packages.txt");                                              \
            }                                                                                      \
            QSKIP("redis-server is not on PATH: install it (apt install redis-server, or "         \
                  "make install-deps)");                                                           \
        }                                                                                          \
    } while (false)
