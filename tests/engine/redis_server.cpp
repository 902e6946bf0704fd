#include "redis_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QElapsedTimer>
#include <QFile>
#include <QStandardPaths>
#include <QThread>

#include <csignal>

namespace cachelens::test {

namespace {

constexpr int kStartAttempts = 5;

sockaddr_in loopback(int port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
}

// A port the kernel just handed out: free unless someone takes it first,
// which start() survives by trying again.
int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        return 0;
    }
    sockaddr_in address = loopback(0);
    socklen_t length = sizeof(address);
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
        port = ntohs(address.sin_port);
    }
    ::close(fd);
    return port;
}

std::string resp_array(const std::vector<std::string>& args) {
    std::string out = "*" + std::to_string(args.size()) + "\r\n";
    for (const auto& arg : args) {
        out += "$" + std::to_string(arg.size()) + "\r\n" + arg + "\r\n";
    }
    return out;
}

// Sends `request` to 127.0.0.1:port and returns the first `lines` reply
// lines, each without its CRLF; fewer when the server does not answer in time.
std::vector<std::string> exchange(int port, const std::string& request, int lines, int timeout_ms) {
    std::vector<std::string> replies;
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        return replies;
    }
    const timeval timeout{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
    const sockaddr_in address = loopback(port);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0 &&
        ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(request.size())) {
        std::string buffer;
        char chunk[4096];
        while (static_cast<int>(replies.size()) < lines) {
            const std::size_t end = buffer.find("\r\n");
            if (end != std::string::npos) {
                replies.push_back(buffer.substr(0, end));
                buffer.erase(0, end + 2);
                continue;
            }
            const ssize_t got = ::recv(fd, chunk, sizeof(chunk), 0);
            if (got <= 0) {
                break;
            }
            buffer.append(chunk, static_cast<std::size_t>(got));
        }
    }
    ::close(fd);
    return replies;
}

} // namespace

bool redis_server_available() {
    return !QStandardPaths::findExecutable("redis-server").isEmpty();
}

RedisServer::~RedisServer() {
    stop();
}

bool RedisServer::start(const RedisServerOptions& options) {
    stop();
    if (!redis_server_available()) {
        error_ = "redis-server is not on PATH";
        return false;
    }
    for (int attempt = 0; attempt < kStartAttempts; ++attempt) {
        const int port = free_port();
        if (port == 0) {
            error_ = "no free loopback port";
            return false;
        }
        if (start_on(port, options)) {
            return true;
        }
        // Only a port taken meanwhile is worth another try.
        if (!log().contains("Address already in use")) {
            return false;
        }
    }
    return false;
}

bool RedisServer::start_on(int port, const RedisServerOptions& options) {
    dir_ = std::make_unique<QTemporaryDir>();
    if (!dir_->isValid()) {
        error_ = "no temporary directory: " + dir_->errorString();
        return false;
    }
    QStringList args{"--port",       QString::number(port),
                     "--bind",       "127.0.0.1",
                     "--save",       "",
                     "--appendonly", "no",
                     "--dir",        dir_->path(),
                     "--logfile",    dir_->filePath("redis.log"),
                     "--daemonize",  "no"};
    if (options.password) {
        args << "--requirepass" << QString::fromStdString(*options.password);
    }
    process_ = std::make_unique<QProcess>();
    process_->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    // A test that crashes takes its server with it.
    process_->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
    process_->start("redis-server", args);
    if (!process_->waitForStarted(5000)) {
        error_ = "redis-server did not start: " + process_->errorString();
        process_.reset();
        return false;
    }
    port_ = port;
    password_ = options.password;
    QElapsedTimer waited;
    waited.start();
    while (waited.elapsed() < options.start_timeout_ms) {
        if (process_->state() != QProcess::Running) {
            error_ = "redis-server exited while starting:\n" + log();
            process_.reset();
            return false;
        }
        // A server with a password answers NOAUTH: it is up all the same.
        const auto reply = exchange(port, resp_array({"PING"}), 1, 200);
        if (!reply.empty() && (reply[0] == "+PONG" || reply[0].starts_with("-NOAUTH"))) {
            return true;
        }
        QThread::msleep(20);
    }
    error_ = QString("redis-server did not answer PING within %1 ms:\n%2")
                 .arg(options.start_timeout_ms)
                 .arg(log());
    stop();
    return false;
}

void RedisServer::stop() {
    if (!process_) {
        return;
    }
    if (process_->state() != QProcess::NotRunning) {
        process_->terminate();
        if (!process_->waitForFinished(5000)) {
            process_->kill();
            process_->waitForFinished(5000);
        }
    }
    process_.reset();
}

void RedisServer::kill() {
    if (process_ && process_->state() != QProcess::NotRunning) {
        process_->kill();
        process_->waitForFinished(5000);
    }
}

bool RedisServer::running() const {
    return process_ && process_->state() == QProcess::Running;
}

remote::RedisEndpoint RedisServer::endpoint() const {
    remote::RedisEndpoint endpoint;
    endpoint.host = "127.0.0.1";
    endpoint.port = port_;
    endpoint.password = password_;
    endpoint.timeout = std::chrono::milliseconds(2000);
    return endpoint;
}

QString RedisServer::log() const {
    if (!dir_) {
        return {};
    }
    QFile file(dir_->filePath("redis.log"));
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

std::string RedisServer::command(const std::vector<std::string>& args) const {
    std::string request;
    int lines = 1;
    if (password_) {
        request = resp_array({"AUTH", *password_});
        lines = 2;
    }
    request += resp_array(args);
    const auto replies = exchange(port_, request, lines, 5000);
    return static_cast<int>(replies.size()) == lines ? replies.back() : std::string();
}

UnansweredPort::UnansweredPort() {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address = loopback(0);
    socklen_t length = sizeof(address);
    // Backlog 0 and never accept(): once the queue holds the fillers' handshakes
    // the kernel drops every further SYN, as a firewall that blackholes would.
    if (listener_ < 0 ||
        ::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
        ::listen(listener_, 0) != 0) {
        return;
    }
    port_ = ntohs(address.sin_port);
    for (int i = 0; i < 4; ++i) {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        const sockaddr_in target = loopback(port_);
        ::connect(fd, reinterpret_cast<const sockaddr*>(&target), sizeof(target));
        fillers_.push_back(fd);
    }
    // Let the fillers' handshakes land in the queue.
    QThread::msleep(50);
}

UnansweredPort::~UnansweredPort() {
    for (const int fd : fillers_) {
        ::close(fd);
    }
    if (listener_ >= 0) {
        ::close(listener_);
    }
}

} // namespace cachelens::test
