#pragma once
// Stream sockets shared by the filtering proxy (host side) and pmg-netbridge (sandbox side):
// listening, accepting, dialling, and relaying bytes between two sockets.
//
// Every descriptor is created close-on-exec atomically (SOCK_CLOEXEC, accept4), never with
// Asio's own socket()/accept(): the proxy runs on a thread of the pmg process while another
// thread forks bubblewrap, and the bridge forks the package manager, so a descriptor that is
// close-on-exec only a moment after its creation could leak a listener or a live upstream
// connection into the sandbox.
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "pmg/error.hpp"
#include "pmg/log.hpp"

namespace pmg {

using StreamSocket = boost::asio::generic::stream_protocol::socket;

namespace detail {

inline StreamSocket adopt_socket(const StreamSocket::executor_type& executor, int fd, int family) {
  StreamSocket socket(executor);
  boost::system::error_code ec;
  socket.assign(boost::asio::generic::stream_protocol(family, family == AF_UNIX ? 0 : IPPROTO_TCP), fd, ec);
  if (ec) {
    ::close(fd);
    throw Error("cannot register a socket with the event loop: " + ec.message());
  }
  return socket;
}

}  // namespace detail

// A new non-blocking, close-on-exec stream socket of `family` (AF_INET, AF_INET6, AF_UNIX).
inline StreamSocket open_stream_socket(boost::asio::io_context& io, int family) {
  const int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) throw Error(std::string("cannot create a socket: ") + std::strerror(errno));
  return detail::adopt_socket(io.get_executor(), fd, family);
}

// Listens on a Unix socket at `path`, which must not exist yet; the socket file gets mode 0600
// (its directory should be private too: the file exists briefly with the umask's mode).
inline StreamSocket listen_unix(boost::asio::io_context& io, const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof address.sun_path)
    throw Error(fmt::format("the proxy socket path {} is empty or longer than {} bytes; use a shorter "
                            "directory, e.g. under /tmp",
                            path, sizeof address.sun_path - 1));
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  StreamSocket socket = open_stream_socket(io, AF_UNIX);
  if (::bind(socket.native_handle(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0)
    throw Error(fmt::format("cannot create the socket {}: {}{}", path, std::strerror(errno),
                            errno == EADDRINUSE ? "; a file is in the way: remove it or choose another path" : ""));
  if (::chmod(path.c_str(), 0600) != 0 || ::listen(socket.native_handle(), SOMAXCONN) != 0) {
    const int err = errno;
    ::unlink(path.c_str());
    throw Error(fmt::format("cannot listen on {}: {}", path, std::strerror(err)));
  }
  return socket;
}

// Listens on a TCP address (port 0: an ephemeral port; ask `local_port`).
inline StreamSocket listen_tcp(boost::asio::io_context& io, const boost::asio::ip::tcp::endpoint& endpoint) {
  const int family = endpoint.address().is_v6() ? AF_INET6 : AF_INET;
  StreamSocket socket = open_stream_socket(io, family);
  const int one = 1;
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(socket.native_handle(), endpoint.data(), static_cast<socklen_t>(endpoint.size())) != 0 ||
      ::listen(socket.native_handle(), SOMAXCONN) != 0)
    throw Error(fmt::format("cannot listen on {}:{}: {}", endpoint.address().to_string(), endpoint.port(),
                            std::strerror(errno)));
  return socket;
}

inline std::uint16_t local_port(StreamSocket& socket) {
  sockaddr_storage address{};
  socklen_t size = sizeof address;
  if (::getsockname(socket.native_handle(), reinterpret_cast<sockaddr*>(&address), &size) != 0) return 0;
  if (address.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in&>(address).sin_port);
  if (address.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6&>(address).sin6_port);
  return 0;
}

// Accepts connections on a listening socket for as long as it is open, handing each to
// `on_accept`. Running out of descriptors pauses accepting briefly instead of spinning.
class Listener : public std::enable_shared_from_this<Listener> {
 public:
  using AcceptHandler = std::function<void(StreamSocket)>;

  Listener(StreamSocket socket, AcceptHandler on_accept)
      : socket_(std::move(socket)), retry_(socket_.get_executor()), on_accept_(std::move(on_accept)) {
    sockaddr_storage address{};
    socklen_t size = sizeof address;
    ::getsockname(socket_.native_handle(), reinterpret_cast<sockaddr*>(&address), &size);
    family_ = address.ss_family;
  }

  void start() { wait(); }
  void close() {
    boost::system::error_code ignored;
    retry_.cancel();
    socket_.close(ignored);
  }
  StreamSocket& socket() { return socket_; }

 private:
  void wait() {
    socket_.async_wait(StreamSocket::wait_read, [self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec || !self->socket_.is_open()) return;
      self->accept_ready();
    });
  }

  void accept_ready() {
    while (socket_.is_open()) {
      const int fd = ::accept4(socket_.native_handle(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd >= 0) {
        if (family_ != AF_UNIX) {
          const int one = 1;
          ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        }
        try {
          on_accept_(detail::adopt_socket(socket_.get_executor(), fd, family_));
        } catch (const std::exception& e) {  // one connection failed; keep accepting the others
          log_warn("cannot serve a connection: {}", e.what());
        }
        continue;
      }
      if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      log_warn("cannot accept a connection: {}; pausing for 100 ms", std::strerror(errno));
      retry_.expires_after(std::chrono::milliseconds(100));
      retry_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
        if (!ec) self->wait();
      });
      return;
    }
    wait();
  }

  StreamSocket socket_;
  boost::asio::steady_timer retry_;
  AcceptHandler on_accept_;
  int family_ = AF_UNSPEC;
};

// Moves bytes both ways between two connected sockets until both directions have ended. End of
// stream on one side is passed on as a half-close (shutdown of sending) to the other, so
// protocols that half-close keep working; an error on either side closes both.
//
// The bytes never enter this process: each direction is a pipe that splice(2) fills from one
// socket and drains into the other, so the kernel moves page references where it can instead of
// copying through a user buffer, and a tunnel's resident memory stays at a few hundred bytes.
// A pipe starts at the kernel's default size (64 KiB) and grows to `bulk_pipe_size` once its
// direction has carried 1 MiB: bulk downloads then need far fewer system calls, while the many
// small or idle tunnels stay within the per-user pipe allowance (fs.pipe-user-pages-soft).
class SocketRelay : public std::enable_shared_from_this<SocketRelay> {
 public:
  SocketRelay(StreamSocket a, StreamSocket b, std::size_t bulk_pipe_size)
      : a_(std::move(a)), b_(std::move(b)), bulk_pipe_size_(bulk_pipe_size) {}
  ~SocketRelay() {
    for (Direction* d : {&a_to_b_, &b_to_a_})
      for (int fd : d->pipe)
        if (fd >= 0) ::close(fd);
  }

  // `pending_to_b` is sent to b before anything read from a (bytes the caller already read).
  // Throws Error when the pipes cannot be created (out of descriptors).
  void start(std::string pending_to_b, std::function<void()> on_finished) {
    on_finished_ = std::move(on_finished);
    a_to_b_.from = b_to_a_.to = &a_;
    a_to_b_.to = b_to_a_.from = &b_;
    for (Direction* d : {&a_to_b_, &b_to_a_}) {
      if (::pipe2(d->pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        const int err = errno;
        close();
        throw Error(std::string("cannot create a pipe for a relay: ") + std::strerror(err));
      }
      d->capacity = static_cast<std::size_t>(std::max(::fcntl(d->pipe[1], F_GETPIPE_SZ), 4096));
    }
    if (pending_to_b.empty()) {
      pump(a_to_b_);
    } else {
      auto data = std::make_shared<std::string>(std::move(pending_to_b));
      boost::asio::async_write(b_, boost::asio::buffer(*data),
                               [self = shared_from_this(), data](const boost::system::error_code& ec, std::size_t) {
                                 if (self->closed_) return;
                                 if (ec) return self->close();
                                 self->pump(self->a_to_b_);
                               });
    }
    pump(b_to_a_);
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    boost::system::error_code ignored;
    a_.close(ignored);
    b_.close(ignored);
    if (on_finished_) std::exchange(on_finished_, nullptr)();
  }

 private:
  struct Direction {
    StreamSocket* from = nullptr;
    StreamSocket* to = nullptr;
    int pipe[2] = {-1, -1};  // [0] read end, [1] write end
    std::size_t capacity = 0;
    std::size_t in_pipe = 0;  // bytes spliced in and not yet out
    std::size_t moved = 0;
    bool ended = false;
  };

  // Best effort: over the user's pipe allowance the kernel refuses, and the pipe keeps its size.
  void grow(Direction& d) {
    constexpr std::size_t bulk_threshold = 1 << 20;
    if (d.moved < bulk_threshold || d.capacity >= bulk_pipe_size_) return;
    const int size = ::fcntl(d.pipe[1], F_SETPIPE_SZ, static_cast<int>(bulk_pipe_size_));
    d.capacity = size > 0 ? static_cast<std::size_t>(size) : bulk_pipe_size_;  // do not retry
  }

  // Moves what is available, then waits for the socket that holds it up. A direction that
  // always has data yields to the event loop after a while, so one fast tunnel cannot starve
  // the others.
  void pump(Direction& d) {
    constexpr int splices_per_turn = 64;
    for (int turn = 0; turn < splices_per_turn; ++turn) {
      if (closed_) return;
      if (d.in_pipe > 0) {
        const ssize_t n = ::splice(d.pipe[0], nullptr, d.to->native_handle(), nullptr, d.in_pipe,
                                   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
        if (n > 0) {
          d.in_pipe -= static_cast<std::size_t>(n);
          d.moved += static_cast<std::size_t>(n);
          if (d.in_pipe == 0) grow(d);
        } else if (n < 0 && errno == EAGAIN) {
          return wait(d, *d.to, StreamSocket::wait_write);
        } else if (n < 0 && errno == EINTR) {
          continue;
        } else {
          return close();
        }
        continue;
      }
      const ssize_t n = ::splice(d.from->native_handle(), nullptr, d.pipe[1], nullptr, d.capacity,
                                 SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
      if (n > 0) {
        d.in_pipe = static_cast<std::size_t>(n);
      } else if (n == 0) {
        return end(d);
      } else if (errno == EAGAIN) {
        return wait(d, *d.from, StreamSocket::wait_read);
      } else if (errno != EINTR) {
        return close();
      }
    }
    boost::asio::post(a_.get_executor(), [self = shared_from_this(), &d] { self->pump(d); });
  }

  void wait(Direction& d, StreamSocket& socket, StreamSocket::wait_type type) {
    socket.async_wait(type, [self = shared_from_this(), &d](const boost::system::error_code& ec) {
      if (self->closed_) return;
      if (ec) return self->close();
      self->pump(d);
    });
  }

  void end(Direction& d) {
    d.ended = true;
    boost::system::error_code ignored;
    d.to->shutdown(StreamSocket::shutdown_send, ignored);
    if (a_to_b_.ended && b_to_a_.ended) close();
  }

  StreamSocket a_;
  StreamSocket b_;
  std::size_t bulk_pipe_size_;
  Direction a_to_b_;
  Direction b_to_a_;
  bool closed_ = false;
  std::function<void()> on_finished_;
};

}  // namespace pmg
