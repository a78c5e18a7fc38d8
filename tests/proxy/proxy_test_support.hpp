#pragma once
// Blocking helpers for the proxy tests: a loopback TCP server the test controls, and a client
// that talks to the proxy over its Unix socket (or TCP) with timeouts, so a broken proxy fails a
// test instead of hanging it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <boost/property_tree/json_parser.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/unit_helpers.hpp"

namespace pmg::test {

using test_support::TempDir;

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    reset();
    fd_ = std::exchange(o.fd_, -1);
    return *this;
  }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

inline void send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) throw std::runtime_error(std::string("send: ") + std::strerror(errno));
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

// Reads until the peer closes, `stop_when` says enough, or `timeout` passes (then returns what
// arrived; `timed_out` tells).
struct ReadResult {
  std::string data;
  bool closed = false;
  bool timed_out = false;
};
inline ReadResult read_until(int fd, std::chrono::milliseconds timeout,
                             const std::function<bool(const std::string&)>& stop_when = nullptr) {
  ReadResult r;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[16384];
  while (true) {
    if (stop_when && stop_when(r.data)) return r;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      return r;
    }
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) {
      r.closed = true;
      return r;
    }
    r.data.append(buffer, static_cast<std::size_t>(n));
  }
}

inline bool has_head(const std::string& data) { return data.find("\r\n\r\n") != std::string::npos; }

inline Fd connect_unix(const std::string& path) {
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
    throw std::runtime_error("connect " + path + ": " + std::strerror(errno));
  return fd;
}

// -1 when the connection is refused or fails.
inline int try_connect_tcp(const std::string& ipv4, std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  ::inet_pton(AF_INET, ipv4.c_str(), &a.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// A loopback TCP server on an ephemeral port, one thread per connection, calling `handler` with
// the connected descriptor (closed after the handler returns).
class TestServer {
 public:
  explicit TestServer(std::function<void(int)> handler, const char* address = "127.0.0.1")
      : handler_(std::move(handler)) {
    listener_ = Fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    const int one = 1;
    ::setsockopt(listener_.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    ::inet_pton(AF_INET, address, &a.sin_addr);
    if (::bind(listener_.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listener_.get(), 512) != 0)
      throw std::runtime_error(std::string("test server: ") + std::strerror(errno));
    socklen_t size = sizeof a;
    ::getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&a), &size);
    port_ = ntohs(a.sin_port);
    acceptor_ = std::thread([this] { run(); });
  }
  ~TestServer() {
    stopping_ = true;
    ::shutdown(listener_.get(), SHUT_RDWR);
    acceptor_.join();
    std::lock_guard lock(mutex_);
    for (auto& t : workers_) t.join();
  }
  std::uint16_t port() const { return port_; }
  int accepted() const { return accepted_; }

 private:
  void run() {
    while (!stopping_) {
      const int fd = ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        if (stopping_) return;
        continue;
      }
      ++accepted_;
      std::lock_guard lock(mutex_);
      workers_.emplace_back([this, fd] {
        try {
          handler_(fd);
        } catch (...) {
        }
        ::close(fd);
      });
    }
  }

  std::function<void(int)> handler_;
  Fd listener_;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0};
  std::thread acceptor_;
  std::mutex mutex_;
  std::vector<std::thread> workers_;
};

// An origin server: answers every request with "origin saw: <request line>" and records the
// request heads it received.
class OriginServer {
 public:
  OriginServer()
      : server_([this](int fd) {
          const ReadResult r = read_until(fd, std::chrono::seconds(10), has_head);
          const std::string head = r.data.substr(0, r.data.find("\r\n\r\n") + 4);
          {
            std::lock_guard lock(mutex_);
            heads_.push_back(head);
          }
          const std::string body = "origin saw: " + head.substr(0, head.find("\r\n")) + "\n";
          send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) +
                           "\r\nConnection: close\r\n\r\n" + body);
        }) {}
  std::uint16_t port() const { return server_.port(); }
  std::vector<std::string> heads() const {
    std::lock_guard lock(mutex_);
    return heads_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> heads_;
  TestServer server_;
};

// Every record in a JSON-lines event log.
inline std::vector<boost::property_tree::ptree> read_event_log(const std::string& file) {
  std::vector<boost::property_tree::ptree> out;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream text(line);
    boost::property_tree::ptree record;
    boost::property_tree::read_json(text, record);
    out.push_back(std::move(record));
  }
  return out;
}

}  // namespace pmg::test
