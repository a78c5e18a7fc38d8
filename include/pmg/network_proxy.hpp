#pragma once
// The filtering proxy pmg runs on the host for the duration of a sandboxed run. The sandbox has
// its own, empty network namespace; the only way out is this proxy's Unix socket (bind-mounted
// in, reached through pmg-netbridge), so `allow_outbound` means exactly the hosts and ports it
// lists.
//
// Per client: read one request (HTTP CONNECT, absolute-URI plain HTTP, or SOCKS5 CONNECT; see
// proxy_request.hpp), decide it by name (outbound_rules.hpp), resolve an allowed name once,
// screen every address, dial only an address that passed, and then relay bytes both ways. TLS
// is never terminated. A refusal answers 403 (or SOCKS5 "not allowed") with the reason, logs at
// debug level and appends a "network-violation" record to the event log.
//
// Boost.Asio, single-threaded: one event-loop thread serves every connection, so a slow or
// malicious client only ever holds its own socket, timer and buffers (bounded by the request
// limits, the head timeout and the connection cap), and no locks are needed. Name lookups run on
// Asio's resolver thread.
#include <ifaddrs.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "pmg/error.hpp"
#include "pmg/event_log.hpp"
#include "pmg/log.hpp"
#include "pmg/outbound_rules.hpp"
#include "pmg/plugin.hpp"
#include "pmg/proxy_request.hpp"
#include "pmg/stream_sockets.hpp"

namespace pmg {

struct NetworkProxyOptions {
  OutboundRules rules;
  std::string socket_path;           // the Unix socket to listen on (must not exist); empty: none
  bool listen_loopback_tcp = false;  // also listen on 127.0.0.1:<ephemeral port> (see tcp_port())
  std::string tool;                  // the package manager, recorded as "pm" in violation records
  std::string event_log;             // JSON-lines file for violation records; empty: none
  std::chrono::milliseconds head_timeout{10'000};     // to receive the whole request
  std::chrono::milliseconds connect_timeout{10'000};  // per address dialled, and for the lookup
  // More are closed on arrival. A tunnel holds 6 descriptors (2 sockets, 2 pipes): 128 stay
  // well inside the usual soft limit of 1024 open files.
  std::size_t max_connections = 128;
  std::size_t bulk_pipe_size = 1 << 20;               // kernel buffer of a busy tunnel direction
  RequestLimits limits;
  bool socks5 = true;
};

// The proxy for one sandboxed run: the request's network rules (named after its profile in
// refusals), violations recorded for its tool in its event log. Listeners are the caller's.
inline NetworkProxyOptions run_proxy_options(const LaunchRequest& request) {
  NetworkProxyOptions options;
  options.rules = OutboundRules(request.policy.network,
                                request.policy.source.empty() ? request.policy.name : request.policy.source);
  options.tool = request.tool;
  options.event_log = request.event_log;
  return options;
}

// The host's own interface addresses (getifaddrs), which the sandbox must not reach through an
// allowed name: services bound to them are as local as those on 127.0.0.1.
inline std::vector<IpAddress> host_interface_addresses() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) throw Error(std::string("cannot list network interfaces: ") + std::strerror(errno));
  std::vector<IpAddress> out;
  for (const ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr) continue;
    if (i->ifa_addr->sa_family == AF_INET) {
      const auto& a = reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr;
      out.emplace_back(boost::asio::ip::address_v4(ntohl(a.s_addr)));
    } else if (i->ifa_addr->sa_family == AF_INET6) {
      boost::asio::ip::address_v6::bytes_type bytes{};
      std::memcpy(bytes.data(), reinterpret_cast<const sockaddr_in6*>(i->ifa_addr)->sin6_addr.s6_addr, 16);
      out.emplace_back(boost::asio::ip::address_v6(bytes));
    }
  }
  ::freeifaddrs(list);
  return out;
}

namespace detail {

class ProxySession;

// Everything the event-loop thread owns.
struct ProxyCore {
  explicit ProxyCore(NetworkProxyOptions opts) : options(std::move(opts)), io(1), resolver(io) {
    if (!options.event_log.empty()) event_log.emplace(options.event_log);
  }

  NetworkProxyOptions options;
  std::optional<EventLog> event_log;
  boost::asio::io_context io;
  boost::asio::ip::tcp::resolver resolver;
  std::vector<std::shared_ptr<Listener>> listeners;
  std::unordered_map<ProxySession*, std::weak_ptr<ProxySession>> sessions;
  std::atomic<std::size_t> active{0};
  std::atomic<std::size_t> refused{0};
  bool stopping = false;

  void accept(StreamSocket socket);
  void forget(ProxySession* session) {
    sessions.erase(session);
    active = sessions.size();
  }
  void shutdown();

  void record_violation(const ProxyRequest& request, std::string_view rule, std::string_view reason) {
    ++refused;
    log_debug("network proxy: refused {} {}: {}", describe_protocol(request), endpoint_string(request.host, request.port),
              reason);
    if (!event_log) return;
    EventRecord record = make_event("network-violation");
    if (!options.tool.empty()) record.put("pm", options.tool);
    record.put("destination", endpoint_string(request.host, request.port));
    record.put("host", request.host.to_string());
    record.put("port", request.port);
    record.put("protocol", describe_protocol(request));
    record.put("rule", std::string(rule));
    record.put("reason", std::string(reason));
    try {
      event_log->append(record);
    } catch (const Error& e) {
      log_warn("{}", e.what());
    }
  }
};

// One client connection, from its first byte to the end of its tunnel.
class ProxySession : public std::enable_shared_from_this<ProxySession> {
 public:
  ProxySession(ProxyCore& core, StreamSocket client)
      : core_(core), client_(std::move(client)), timer_(core.io), http_(core.options.limits) {}

  void start() {
    arm_timer(core_.options.head_timeout, "waiting for the request");
    read_request();
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    core_.forget(this);  // first: whoever sees the socket close sees the count without it
    boost::system::error_code ignored;
    timer_.cancel();
    client_.close(ignored);
    if (upstream_) upstream_->close(ignored);
    if (relay_) relay_->close();
    // A continuation still waiting for a send holds this session: drop it, or the session keeps
    // itself alive after the proxy stops. (One being run was moved out before it was called.)
    after_send_ = nullptr;
  }

 private:
  enum class Stage { request, lookup, connecting, relaying };

  // Each arming supersedes the previous one; a handler from an older arming (already queued
  // when the timer was re-armed or cancelled) sees a newer generation and does nothing.
  void arm_timer(std::chrono::milliseconds timeout, std::string what) {
    timer_.expires_after(timeout);
    timer_.async_wait([self = shared_from_this(), what = std::move(what),
                       generation = ++timer_generation_](const boost::system::error_code& ec) {
      if (ec || self->closed_ || generation != self->timer_generation_) return;
      if (self->stage_ == Stage::request) {
        log_debug("network proxy: closed a client that sent no complete request within {} ms",
                  self->core_.options.head_timeout.count());
        return self->close();
      }
      if (self->stage_ == Stage::connecting && self->upstream_) {
        // Abandon this address; the connect handler moves on to the next one.
        boost::system::error_code ignored;
        self->upstream_->close(ignored);
        return;
      }
      self->fail(504, "timed out " + std::string(what));
    });
  }

  void read_request() {
    if (!chunk_) chunk_.reset(new char[chunk_size]);
    client_.async_read_some(boost::asio::buffer(chunk_.get(), chunk_size),
                            [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
                              if (self->closed_) return;
                              if (ec) return self->close();
                              self->received(std::string_view(self->chunk_.get(), n));
                            });
  }

  void received(std::string_view bytes) {
    if (!socks_ && first_read_ && core_.options.socks5 && static_cast<unsigned char>(bytes[0]) == socks5_version)
      socks_ = true;
    first_read_ = false;
    if (socks_) return received_socks(bytes);
    switch (http_.feed(bytes)) {
      case ParseState::need_more: return read_request();
      case ParseState::invalid:
        log_debug("network proxy: malformed request: {}", http_.error().reason);
        return reply_and_close(http_response(http_.error().code, http_.error().reason));
      case ParseState::complete:
        request_ = http_.request();
        pending_ = std::string(http_.remainder());
        chunk_.reset();
        return decide();
    }
  }

  void received_socks(std::string_view bytes) {
    socks_buffer_.append(bytes);
    if (socks_buffer_.size() > 4096) return close();  // no valid greeting + request is this long
    if (!socks_greeted_) {
      const auto greeting = parse_socks5_greeting(socks_buffer_);
      if (greeting.state == ParseState::need_more) return read_request();
      if (greeting.state == ParseState::invalid || !greeting.value.offers_no_authentication) {
        log_debug("network proxy: SOCKS5 client without a usable method");
        return reply_and_close(socks5_method_choice(false));
      }
      socks_greeted_ = true;
      socks_buffer_.erase(0, greeting.size);
      send(socks5_method_choice(true));
    }
    const auto request = parse_socks5_request(socks_buffer_);
    if (request.state == ParseState::need_more) return read_request();
    if (request.state == ParseState::invalid) {
      log_debug("network proxy: malformed SOCKS5 request: {}", request.error.reason);
      return reply_and_close(socks5_reply(static_cast<unsigned char>(request.error.code)));
    }
    request_ = request.value;
    pending_ = socks_buffer_.substr(request.size);
    socks_buffer_.clear();
    chunk_.reset();
    decide();
  }

  void decide() {
    const OutboundDecision decision = core_.options.rules.decide(request_.host, request_.port);
    if (!decision.allowed) return refuse(decision.rule.empty() ? "default deny" : decision.rule, decision.reason);
    log_debug("network proxy: {} {}: {}", describe_protocol(request_), endpoint_string(request_.host, request_.port),
              decision.reason);
    if (request_.host.is_literal()) return screen({*request_.host.address});
    stage_ = Stage::lookup;
    arm_timer(core_.options.connect_timeout, "looking up " + request_.host.name);
    core_.resolver.async_resolve(
        request_.host.name, std::to_string(request_.port),
        boost::asio::ip::tcp::resolver::numeric_service | boost::asio::ip::tcp::resolver::address_configured,
        [self = shared_from_this()](const boost::system::error_code& ec,
                                    const boost::asio::ip::tcp::resolver::results_type& results) {
          if (self->closed_) return;
          if (ec) return self->fail(502, "cannot resolve " + self->request_.host.name + ": " + ec.message());
          std::vector<IpAddress> addresses;
          for (const auto& entry : results) addresses.push_back(entry.endpoint().address());
          self->screen(addresses);
        });
  }

  // The one lookup's addresses (or the literal) are screened; only those that pass are dialled.
  void screen(const std::vector<IpAddress>& addresses) {
    std::vector<IpAddress> own;
    try {
      own = host_interface_addresses();
    } catch (const Error& e) {
      return fail(502, e.what());  // without them no address can be screened: fail closed
    }
    ScreenedAddresses screened = core_.options.rules.screen(addresses, request_.port, own);
    if (screened.permitted.empty()) {
      std::string reason;
      for (const std::string& r : screened.refusals) reason += (reason.empty() ? "" : "; ") + r;
      if (!request_.host.is_literal()) reason = request_.host.name + " resolves only to refused addresses: " + reason;
      return refuse("address screening", reason);
    }
    candidates_ = std::move(screened.permitted);
    stage_ = Stage::connecting;
    connect_next();
  }

  void connect_next() {
    if (next_candidate_ == candidates_.size())
      return fail(502, "cannot connect to " + endpoint_string(request_.host, request_.port) + ": " + last_error_);
    const IpAddress address = candidates_[next_candidate_++];
    const boost::asio::ip::tcp::endpoint endpoint(address, request_.port);
    try {
      upstream_.emplace(open_stream_socket(core_.io, address.is_v6() ? AF_INET6 : AF_INET));
    } catch (const Error& e) {
      last_error_ = e.what();
      return connect_next();
    }
    arm_timer(core_.options.connect_timeout, "connecting");
    upstream_->async_connect(boost::asio::generic::stream_protocol::endpoint(endpoint),
                             [self = shared_from_this(), endpoint](const boost::system::error_code& ec) {
                               if (self->closed_) return;
                               if (ec) {
                                 self->last_error_ = fmt::format("{}: {}", endpoint.address().to_string(),
                                                                 ec == boost::asio::error::operation_aborted
                                                                     ? std::string("timed out")
                                                                     : ec.message());
                                 return self->connect_next();
                               }
                               self->connected();
                             });
  }

  void connected() {
    ++timer_generation_;
    timer_.cancel();
    stage_ = Stage::relaying;
    const int one = 1;
    ::setsockopt(upstream_->native_handle(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    log_debug("network proxy: connected {} to {}", endpoint_string(request_.host, request_.port),
              candidates_[next_candidate_ - 1].to_string());
    switch (request_.protocol) {
      case ProxyProtocol::http_connect: send(std::string(http_connect_established)); break;
      case ProxyProtocol::socks5: send(socks5_reply(socks5_reply_code::succeeded)); break;
      case ProxyProtocol::http_forward: pending_ = origin_form_head(request_) + pending_; break;
    }
    // The reply (queued above) goes out before any relayed byte: writes on the client socket
    // are ordered by starting the relay from the send's completion.
    auto start_relay = [self = shared_from_this()] {
      self->relay_ = std::make_shared<SocketRelay>(std::move(self->client_), std::move(*self->upstream_),
                                                   self->core_.options.bulk_pipe_size);
      self->upstream_.reset();
      try {
        self->relay_->start(std::move(self->pending_), [self] { self->close(); });
      } catch (const Error& e) {
        log_warn("network proxy: {}", e.what());  // the relay has closed both sockets
      }
    };
    if (sending_) after_send_ = start_relay;
    else start_relay();
  }

  void refuse(std::string_view rule, const std::string& reason) {
    core_.record_violation(request_, rule, reason);
    if (request_.protocol == ProxyProtocol::socks5)
      reply_and_close(socks5_reply(socks5_reply_code::not_allowed));
    else
      reply_and_close(http_response(403, "pmg: " + reason));
  }

  void fail(int status, const std::string& reason) {
    log_debug("network proxy: {} {}: {}", describe_protocol(request_), endpoint_string(request_.host, request_.port),
              reason);
    if (request_.protocol == ProxyProtocol::socks5)
      reply_and_close(socks5_reply(status == 504 ? socks5_reply_code::host_unreachable
                                                 : socks5_reply_code::general_failure));
    else
      reply_and_close(http_response(status, "pmg: " + reason));
  }

  // Writes are serialised: one message at a time, the next queued behind it.
  void send(std::string message) {
    outbox_ += message;
    if (sending_) return;
    flush();
  }
  void flush() {
    sending_ = true;
    auto data = std::make_shared<std::string>(std::move(outbox_));
    outbox_.clear();
    boost::asio::async_write(client_, boost::asio::buffer(*data),
                             [self = shared_from_this(), data](const boost::system::error_code& ec, std::size_t) {
                               if (self->closed_) return;
                               if (ec) return self->close();
                               if (!self->outbox_.empty()) return self->flush();
                               self->sending_ = false;
                               if (self->after_send_) std::exchange(self->after_send_, nullptr)();
                             });
  }

  void reply_and_close(std::string message) {
    after_send_ = [self = shared_from_this()] {
      boost::system::error_code ignored;
      self->client_.shutdown(StreamSocket::shutdown_send, ignored);
      self->close();
    };
    send(std::move(message));
  }

  static constexpr std::size_t chunk_size = 4096;

  ProxyCore& core_;
  StreamSocket client_;
  std::optional<StreamSocket> upstream_;
  boost::asio::steady_timer timer_;
  std::shared_ptr<SocketRelay> relay_;
  Stage stage_ = Stage::request;
  std::uint64_t timer_generation_ = 0;
  bool closed_ = false;

  std::unique_ptr<char[]> chunk_;
  bool first_read_ = true;
  bool socks_ = false;
  bool socks_greeted_ = false;
  std::string socks_buffer_;
  HttpRequestReader http_;
  ProxyRequest request_;
  std::string pending_;  // bytes for the upstream before relaying starts

  std::vector<IpAddress> candidates_;
  std::size_t next_candidate_ = 0;
  std::string last_error_;

  std::string outbox_;
  bool sending_ = false;
  std::function<void()> after_send_;
};

inline void ProxyCore::accept(StreamSocket socket) {
  if (stopping) return;
  if (sessions.size() >= options.max_connections) {
    log_debug("network proxy: {} connections are open; closing a new one", sessions.size());
    return;  // `socket` closes here
  }
  auto session = std::make_shared<ProxySession>(*this, std::move(socket));
  sessions.emplace(session.get(), session);
  active = sessions.size();
  session->start();
}

inline void ProxyCore::shutdown() {
  stopping = true;
  for (auto& listener : listeners) listener->close();
  std::vector<std::shared_ptr<ProxySession>> open;
  for (auto& [raw, weak] : sessions)
    if (auto s = weak.lock()) open.push_back(std::move(s));
  for (auto& s : open) s->close();
  sessions.clear();
  active = 0;
  io.stop();
}

}  // namespace detail

class NetworkProxy {
 public:
  // Throws Error when the rules' entries are invalid (naming the entry).
  explicit NetworkProxy(NetworkProxyOptions options) : core_(std::make_unique<detail::ProxyCore>(std::move(options))) {}
  ~NetworkProxy() { stop(); }
  NetworkProxy(const NetworkProxy&) = delete;
  NetworkProxy& operator=(const NetworkProxy&) = delete;

  // Creates the listeners (throws Error naming the path or address when it cannot), checks the
  // event log is writable, and serves on a thread of its own until stop().
  void start() {
    if (thread_.joinable()) throw Error("internal: the network proxy is already running");
    const NetworkProxyOptions& o = core_->options;
    if (core_->event_log) core_->event_log->check_writable();
    auto serve = [core = core_.get()](StreamSocket s) { core->accept(std::move(s)); };
    if (!o.socket_path.empty()) {
      core_->listeners.push_back(std::make_shared<Listener>(listen_unix(core_->io, o.socket_path), serve));
      socket_created_ = true;
    }
    if (o.listen_loopback_tcp) {
      auto listener = std::make_shared<Listener>(
          listen_tcp(core_->io, {boost::asio::ip::address_v4::loopback(), 0}), serve);
      tcp_port_ = local_port(listener->socket());
      core_->listeners.push_back(std::move(listener));
    }
    if (core_->listeners.empty()) throw Error("internal: the network proxy was given nowhere to listen");
    for (auto& listener : core_->listeners) listener->start();

    // The loop's thread takes no signals: they belong to the thread that waits for the sandbox
    // and forwards them to it (process.hpp).
    sigset_t all, previous;
    sigfillset(&all);
    ::pthread_sigmask(SIG_BLOCK, &all, &previous);
    thread_ = std::thread([core = core_.get()] {
      while (true) {
        try {
          core->io.run();
          return;
        } catch (const std::exception& e) {
          log_error("network proxy: {}", e.what());
        }
      }
    });
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    log_debug("network proxy: listening on {}{}", o.socket_path.empty() ? "" : o.socket_path,
              tcp_port_ ? fmt::format(" 127.0.0.1:{}", tcp_port_) : "");
  }

  // Closes every listener and connection and removes the socket file. Idempotent.
  void stop() {
    if (thread_.joinable()) {
      boost::asio::post(core_->io, [core = core_.get()] { core->shutdown(); });
      thread_.join();
    } else {
      core_->shutdown();
    }
    if (socket_created_) {
      ::unlink(core_->options.socket_path.c_str());
      socket_created_ = false;
    }
  }

  // The loopback TCP port when listen_loopback_tcp is set, 0 otherwise.
  std::uint16_t tcp_port() const { return tcp_port_; }
  // Client connections currently open (a request being read, dialled or relayed).
  std::size_t active_connections() const { return core_->active; }
  // Connections refused by the policy so far (each has a violation record), for the run's summary.
  std::size_t refused_connections() const { return core_->refused; }

 private:
  std::unique_ptr<detail::ProxyCore> core_;
  std::thread thread_;
  std::uint16_t tcp_port_ = 0;
  bool socket_created_ = false;
};

}  // namespace pmg
