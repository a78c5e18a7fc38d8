// The filtering proxy, live on loopback: a real origin server, real clients on the proxy's Unix
// socket, a real event log.
#include <catch2/catch.hpp>

#include "pmg/network_proxy.hpp"
#include "pmg/process.hpp"
#include "proxy_test_support.hpp"

using namespace pmg;
using namespace pmg::test;
using namespace std::chrono_literals;

namespace {

struct LiveProxy {
  explicit LiveProxy(std::vector<std::string> allow, std::vector<std::string> deny = {},
                     std::function<void(NetworkProxyOptions&)> adjust = nullptr) {
    NetworkRules rules;
    rules.allow_outbound = std::move(allow);
    rules.deny_outbound = std::move(deny);
    NetworkProxyOptions options;
    options.rules = OutboundRules(rules, "test");
    options.socket_path = dir / "proxy.sock";
    options.tool = "npm";
    options.event_log = dir / "events.jsonl";
    options.head_timeout = 1s;
    if (adjust) adjust(options);
    proxy = std::make_unique<NetworkProxy>(std::move(options));
    proxy->start();
  }

  Fd client() const { return connect_unix(dir / "proxy.sock"); }

  // One request, the whole answer (the proxy or the origin closes the connection).
  std::string exchange(std::string_view request) const {
    Fd fd = client();
    send_all(fd.get(), request);
    const ReadResult r = read_until(fd.get(), 5s);
    REQUIRE_FALSE(r.timed_out);
    return r.data;
  }

  std::vector<boost::property_tree::ptree> violations() const {
    return std::filesystem::exists(dir / "events.jsonl") ? read_event_log(dir / "events.jsonl")
                                                         : std::vector<boost::property_tree::ptree>{};
  }

  TempDir dir;
  std::unique_ptr<NetworkProxy> proxy;
};

std::string connect_request(std::string_view target) {
  return "CONNECT " + std::string(target) + " HTTP/1.1\r\nHost: " + std::string(target) + "\r\n\r\n";
}

bool forbidden(const std::string& response) { return response.starts_with("HTTP/1.1 403 Forbidden\r\n"); }

std::string body_of(const std::string& response) { return response.substr(response.find("\r\n\r\n") + 4); }

}  // namespace

TEST_CASE("proxy: CONNECT and plain HTTP to an origin allowed by literal IP:port", "[proxy]") {
  OriginServer origin;
  const std::string target = "127.0.0.1:" + std::to_string(origin.port());
  LiveProxy p({target});

  SECTION("CONNECT opens a tunnel; bytes pass unchanged") {
    Fd fd = p.client();
    send_all(fd.get(), connect_request(target));
    const ReadResult established = read_until(fd.get(), 5s, has_head);
    REQUIRE(established.data == "HTTP/1.1 200 Connection established\r\n\r\n");
    send_all(fd.get(), "GET /through-tunnel HTTP/1.1\r\nHost: x\r\n\r\n");
    const ReadResult r = read_until(fd.get(), 5s);
    CHECK(r.closed);
    CHECK(body_of(r.data) == "origin saw: GET /through-tunnel HTTP/1.1\n");
  }
  SECTION("bytes sent together with the CONNECT head reach the origin") {
    const std::string response = p.exchange(connect_request(target) + "GET /early HTTP/1.1\r\n\r\n");
    CHECK(response.starts_with("HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.1 200 OK"));
    CHECK(body_of(body_of(response)) == "origin saw: GET /early HTTP/1.1\n");
  }
  SECTION("an absolute-URI request is forwarded in origin form") {
    const std::string response = p.exchange("GET http://" + target +
                                            "/pkg?x=1 HTTP/1.1\r\nHost: wrong\r\nProxy-Connection: keep-alive\r\n"
                                            "Accept: */*\r\n\r\n");
    CHECK(body_of(response) == "origin saw: GET /pkg?x=1 HTTP/1.1\n");
    REQUIRE(origin.heads().size() == 1);
    CHECK(origin.heads()[0] == "GET /pkg?x=1 HTTP/1.1\r\nHost: " + target +
                                   "\r\nAccept: */*\r\nConnection: close\r\n\r\n");
  }
  SECTION("another port of the same address is refused") {
    CHECK(forbidden(p.exchange(connect_request("127.0.0.1:" + std::to_string(origin.port() + 1)))));
  }
  CHECK(p.violations().size() <= 1);
}

TEST_CASE("proxy: an allowed name that resolves to loopback is refused until the literal is allowed",
          "[proxy]") {
  OriginServer origin;
  const std::string port = std::to_string(origin.port());
  {
    LiveProxy p({"localhost:" + port});
    const std::string response = p.exchange(connect_request("localhost:" + port));
    REQUIRE(forbidden(response));
    CHECK(body_of(response).find("localhost resolves only to refused addresses: 127.0.0.1:" + port +
                                 " is a loopback address") != std::string::npos);
    CHECK(origin.heads().empty());
    const auto records = p.violations();
    REQUIRE(records.size() == 1);
    CHECK(records[0].get<std::string>("type") == "network-violation");
    CHECK(records[0].get<std::string>("destination") == "localhost:" + port);
    CHECK(records[0].get<std::string>("rule") == "address screening");
  }
  {
    LiveProxy p({"localhost:" + port, "127.0.0.1:" + port});
    const std::string response = p.exchange("GET http://localhost:" + port + "/ok HTTP/1.1\r\n\r\n");
    CHECK(body_of(response) == "origin saw: GET /ok HTTP/1.1\n");
    CHECK(p.violations().empty());
  }
}

TEST_CASE("proxy: a host not in the list gets 403 and a violation record", "[proxy]") {
  LiveProxy p({"registry.npmjs.org:443"}, {"*.denied.test:*"});
  const std::string response = p.exchange(connect_request("example.org:443"));
  REQUIRE(forbidden(response));
  CHECK(body_of(response) == "pmg: example.org:443 matches no allow_outbound entry\n");
  REQUIRE(forbidden(p.exchange("GET http://www.denied.test/ HTTP/1.1\r\n\r\n")));
  CHECK(p.proxy->refused_connections() == 2);

  const auto records = p.violations();
  REQUIRE(records.size() == 2);
  CHECK(records[0].get<std::string>("type") == "network-violation");
  CHECK(records[0].get<std::string>("pm") == "npm");
  CHECK(records[0].get<std::string>("destination") == "example.org:443");
  CHECK(records[0].get<std::string>("host") == "example.org");
  CHECK(records[0].get<std::string>("port") == "443");
  CHECK(records[0].get<std::string>("protocol") == "CONNECT");
  CHECK(records[0].get<std::string>("rule") == "default deny");
  CHECK_FALSE(records[0].get<std::string>("time").empty());
  CHECK(records[1].get<std::string>("destination") == "www.denied.test:80");
  CHECK(records[1].get<std::string>("rule") == "deny_outbound *.denied.test:*");
}

TEST_CASE("proxy: '*:*' still refuses metadata, unspecified and this machine's own addresses", "[proxy]") {
  LiveProxy p({"*:*"});
  CHECK(forbidden(p.exchange(connect_request("169.254.169.254:80"))));
  CHECK(forbidden(p.exchange("GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\n\r\n")));
  CHECK(forbidden(p.exchange(connect_request("0.0.0.0:22"))));
  CHECK(forbidden(p.exchange(connect_request("[::ffff:127.0.0.1]:22"))));
  CHECK(forbidden(p.exchange(connect_request("localhost:22"))));
  for (const IpAddress& own : host_interface_addresses()) {
    if (own.is_loopback() || !own.is_v4()) continue;
    CAPTURE(own.to_string());
    CHECK(forbidden(p.exchange(connect_request(own.to_string() + ":22"))));
  }
  CHECK(p.violations().size() >= 5);
}

TEST_CASE("proxy: malformed input is answered and closed; other clients are unaffected", "[proxy]") {
  OriginServer origin;
  const std::string target = "127.0.0.1:" + std::to_string(origin.port());
  LiveProxy p({target});
  CHECK(p.exchange("GET http://h/" + std::string(9000, 'a') + " HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 414 "));
  CHECK(p.exchange(std::string(20000, 'A')).starts_with("HTTP/1.1 414 "));
  CHECK(p.exchange("CONNECT " + target + "x HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 400 "));
  CHECK(p.exchange("CONNECT registry.npmjs.org HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 400 "));
  std::string bomb = connect_request(target);
  bomb.resize(bomb.size() - 2);
  for (int i = 0; i < 200; ++i) bomb += "X: y\r\n";
  CHECK(p.exchange(bomb + "\r\n").starts_with("HTTP/1.1 431 "));
  CHECK(p.exchange("GET https://" + target + "/ HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 501 "));
  CHECK(p.violations().empty());  // malformed input is not a policy decision
  CHECK(body_of(p.exchange("GET http://" + target + "/after HTTP/1.1\r\n\r\n")) == "origin saw: GET /after HTTP/1.1\n");
}

TEST_CASE("proxy: a slow-loris client times out without delaying a parallel client", "[proxy]") {
  OriginServer origin;
  const std::string target = "127.0.0.1:" + std::to_string(origin.port());
  LiveProxy p({target});  // head timeout 1 s

  std::vector<Fd> slow;
  for (int i = 0; i < 20; ++i) {
    slow.push_back(p.client());
    send_all(slow.back().get(), "CONNECT 127.0.0.1:");  // and then nothing more
  }
  const auto started = std::chrono::steady_clock::now();
  const std::string response = p.exchange("GET http://" + target + "/fast HTTP/1.1\r\n\r\n");
  CHECK(body_of(response) == "origin saw: GET /fast HTTP/1.1\n");
  CHECK(std::chrono::steady_clock::now() - started < 500ms);

  for (Fd& fd : slow) {
    const ReadResult r = read_until(fd.get(), 3s);
    CHECK(r.closed);  // closed by the proxy after the head timeout, not by the test's timeout
    CHECK(r.data.empty());
  }
  CHECK(std::chrono::steady_clock::now() - started < 2500ms);
  CHECK(p.proxy->active_connections() == 0);
}

TEST_CASE("proxy: a client sending one byte at a time still gets through", "[proxy]") {
  OriginServer origin;
  const std::string target = "127.0.0.1:" + std::to_string(origin.port());
  LiveProxy p({target}, {}, [](NetworkProxyOptions& o) { o.head_timeout = 5s; });
  Fd fd = p.client();
  for (char c : "GET http://" + target + "/bytewise HTTP/1.1\r\nA: b\r\n\r\n") send_all(fd.get(), std::string(1, c));
  CHECK(body_of(read_until(fd.get(), 5s).data) == "origin saw: GET /bytewise HTTP/1.1\n");
}

TEST_CASE("proxy: the connection cap closes new clients while old ones are open", "[proxy]") {
  OriginServer origin;
  const std::string target = "127.0.0.1:" + std::to_string(origin.port());
  LiveProxy p({target}, {}, [](NetworkProxyOptions& o) {
    o.max_connections = 2;
    o.head_timeout = 5s;
  });
  Fd a = p.client();
  Fd b = p.client();
  send_all(a.get(), "C");
  send_all(b.get(), "C");
  for (int i = 0; i < 100 && p.proxy->active_connections() < 2; ++i) std::this_thread::sleep_for(10ms);
  REQUIRE(p.proxy->active_connections() == 2);
  Fd c = p.client();
  const ReadResult r = read_until(c.get(), 2s);
  CHECK(r.closed);
  CHECK(r.data.empty());
  a.reset();
  b.reset();
  for (int i = 0; i < 100 && p.proxy->active_connections() > 0; ++i) std::this_thread::sleep_for(10ms);
  CHECK(body_of(p.exchange("GET http://" + target + "/after HTTP/1.1\r\n\r\n")) == "origin saw: GET /after HTTP/1.1\n");
}

TEST_CASE("proxy: SOCKS5 CONNECT, allowed and refused", "[proxy]") {
  using namespace std::string_literals;
  TestServer echo([](int fd) {
    const ReadResult r = read_until(fd, 5s, [](const std::string& d) { return d.size() >= 4; });
    send_all(fd, "echo:" + r.data);
  });
  LiveProxy p({"127.0.0.1:" + std::to_string(echo.port())});
  const auto port_bytes = [](std::uint16_t port) {
    return std::string{static_cast<char>(port >> 8), static_cast<char>(port & 0xff)};
  };
  {
    Fd fd = p.client();
    send_all(fd.get(), "\x05\x01\x00"s);
    CHECK(read_until(fd.get(), 5s, [](const std::string& d) { return d.size() >= 2; }).data == "\x05\x00"s);
    send_all(fd.get(), "\x05\x01\x00\x01\x7f\x00\x00\x01"s + port_bytes(echo.port()) + "\x00\xff\x01\x02"s);
    const ReadResult r = read_until(fd.get(), 5s);
    CHECK(r.data == socks5_reply(socks5_reply_code::succeeded) + "echo:\x00\xff\x01\x02"s);
  }
  {
    Fd fd = p.client();
    send_all(fd.get(), "\x05\x01\x00\x05\x01\x00\x03\x0b""example.org\x01\xbb"s);  // pipelined greeting + request
    const ReadResult r = read_until(fd.get(), 5s);
    CHECK(r.data == "\x05\x00"s + socks5_reply(socks5_reply_code::not_allowed));
    CHECK(r.closed);
  }
  {
    Fd fd = p.client();
    send_all(fd.get(), "\x05\x01\x02"s);  // username/password only
    CHECK(read_until(fd.get(), 5s).data == "\x05\xff"s);
  }
  const auto records = p.violations();
  REQUIRE(records.size() == 1);
  CHECK(records[0].get<std::string>("protocol") == "SOCKS5");
  CHECK(records[0].get<std::string>("destination") == "example.org:443");
}

TEST_CASE("proxy: stop() closes listeners and tunnels and removes the socket", "[proxy]") {
  TestServer hold([](int fd) { read_until(fd, 10s); });  // keeps its side open
  const std::string target = "127.0.0.1:" + std::to_string(hold.port());
  LiveProxy p({target});
  Fd tunnel = p.client();
  send_all(tunnel.get(), connect_request(target));
  REQUIRE(read_until(tunnel.get(), 5s, has_head).data == "HTTP/1.1 200 Connection established\r\n\r\n");
  Fd waiting = p.client();
  REQUIRE(p.proxy->active_connections() >= 1);

  const auto started = std::chrono::steady_clock::now();
  p.proxy->stop();
  CHECK(std::chrono::steady_clock::now() - started < 1s);
  CHECK(read_until(tunnel.get(), 2s).closed);
  CHECK(read_until(waiting.get(), 2s).closed);
  CHECK_FALSE(std::filesystem::exists(p.dir / "proxy.sock"));
  CHECK_THROWS(p.client());
  p.proxy->stop();  // idempotent
}

TEST_CASE("proxy: start() refuses a socket path in use, and an unwritable event log", "[proxy]") {
  TempDir dir;
  NetworkProxyOptions options;
  options.socket_path = dir / "proxy.sock";
  { std::ofstream(dir / "proxy.sock") << "x"; }
  CHECK_THROWS_WITH(NetworkProxy(options).start(), Catch::Contains(dir / "proxy.sock"));
  options.socket_path = dir / "other.sock";
  options.event_log = "/proc/pmg-no-such-dir/events.jsonl";
  CHECK_THROWS_WITH(NetworkProxy(options).start(), Catch::Contains("event log"));
  options.socket_path = "/tmp/" + std::string(120, 'x');
  options.event_log.clear();
  CHECK_THROWS_WITH(NetworkProxy(options).start(), Catch::Contains("longer than"));
}

TEST_CASE("proxy: no listener or connection leaks into a child process", "[proxy]") {
  TestServer hold([](int fd) { read_until(fd, 10s); });
  const std::string target = "127.0.0.1:" + std::to_string(hold.port());
  TempDir out;
  const auto descriptors_in_child = [&] {
    run_process({{"/bin/sh", "-c", "ls /proc/$$/fd > " + (out / "fds")}, {}, {}});
    std::ifstream in(out / "fds");
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
  };
  const std::size_t before = descriptors_in_child();
  LiveProxy p({target}, {}, [](NetworkProxyOptions& o) { o.listen_loopback_tcp = true; });
  Fd tunnel = p.client();
  send_all(tunnel.get(), connect_request(target));
  REQUIRE(read_until(tunnel.get(), 5s, has_head).data == "HTTP/1.1 200 Connection established\r\n\r\n");
  CHECK(descriptors_in_child() == before);
}

TEST_CASE("proxy: the loopback TCP listener serves the same rules", "[proxy]") {
  OriginServer origin;
  const std::string target = "127.0.0.1:" + std::to_string(origin.port());
  LiveProxy p({target}, {}, [](NetworkProxyOptions& o) { o.listen_loopback_tcp = true; });
  REQUIRE(p.proxy->tcp_port() != 0);
  Fd fd(try_connect_tcp("127.0.0.1", p.proxy->tcp_port()));
  REQUIRE(fd.get() >= 0);
  send_all(fd.get(), "GET http://" + target + "/tcp HTTP/1.1\r\n\r\n");
  CHECK(body_of(read_until(fd.get(), 5s).data) == "origin saw: GET /tcp HTTP/1.1\n");
}

TEST_CASE("proxy: a tunnel carries 32 MiB each way intact and passes a half-close on", "[proxy]") {
  constexpr std::size_t size = 32u << 20;
  const auto pattern = [](std::size_t i) { return static_cast<char>((i * 131 + (i >> 12)) & 0xff); };
  // Reads until the client half-closes, then answers with what it got, then streams `size` bytes.
  TestServer sink([&](int fd) {
    std::size_t count = 0;
    bool intact = true;
    char buffer[65536];
    for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) {
      for (ssize_t i = 0; i < n; ++i) intact = intact && buffer[i] == pattern(count + static_cast<std::size_t>(i));
      count += static_cast<std::size_t>(n);
    }
    send_all(fd, std::to_string(count) + (intact ? " intact\n" : " corrupt\n"));
    std::string out(size, '\0');
    for (std::size_t i = 0; i < size; ++i) out[i] = pattern(i);
    send_all(fd, out);
  });
  const std::string target = "127.0.0.1:" + std::to_string(sink.port());
  LiveProxy p({target});
  Fd fd = p.client();
  send_all(fd.get(), connect_request(target));
  REQUIRE(read_until(fd.get(), 5s, has_head).data == "HTTP/1.1 200 Connection established\r\n\r\n");
  std::string upload(size, '\0');
  for (std::size_t i = 0; i < size; ++i) upload[i] = pattern(i);
  std::thread sender([&] {
    send_all(fd.get(), upload);
    ::shutdown(fd.get(), SHUT_WR);
  });
  const ReadResult r = read_until(fd.get(), 60s);
  sender.join();
  REQUIRE(r.closed);
  const std::string expected_line = std::to_string(size) + " intact\n";
  REQUIRE(r.data.starts_with(expected_line));
  const std::string_view download = std::string_view(r.data).substr(expected_line.size());
  REQUIRE(download.size() == size);
  bool intact = true;
  for (std::size_t i = 0; i < size && intact; ++i) intact = download[i] == pattern(i);
  CHECK(intact);
}
