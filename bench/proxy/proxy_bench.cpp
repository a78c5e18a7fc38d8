// pmg_bench_proxy: what the filtering proxy costs (not a test; CTest does not run it).
//
//   1. Throughput: one bulk HTTP download from a loopback server allowed by IP:port, read
//      directly, through the proxy's Unix socket (CONNECT tunnel and plain-HTTP forwarding),
//      and through pmg-netbridge + proxy (the whole path a sandboxed client takes). Median of N
//      runs each, interleaved. The proxy runs in a process of its own.
//   2. Memory: the proxy process's resident set (VmRSS, and the peak VmHWM) with 100 concurrent
//      CONNECT tunnels open, each having carried 1 MiB both ways.
//
// Usage: pmg_bench_proxy [runs=5] [MiB per download=1024] [tunnels=100]
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

#include <fmt/core.h>

#include "pmg/network_proxy.hpp"
#include "proxy/proxy_test_support.hpp"

using namespace pmg;
using namespace pmg::test;
using Clock = std::chrono::steady_clock;

namespace {

// Sends `bytes` of body to every GET; echoes raw bytes to anything else (tunnels for the RSS part).
std::function<void(int)> bulk_server(std::size_t bytes) {
  return [bytes](int fd) {
    const ReadResult head = read_until(fd, std::chrono::seconds(30), [](const std::string& d) {
      return has_head(d) || (d.size() >= 4 && !d.starts_with("GET "));
    });
    if (!head.data.starts_with("GET ")) {
      std::string data = head.data;
      char buffer[65536];
      while (true) {
        if (!data.empty()) send_all(fd, data);
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0) return;
        data.assign(buffer, static_cast<std::size_t>(n));
      }
    }
    send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(bytes) + "\r\nConnection: close\r\n\r\n");
    static const std::string chunk(1 << 20, 'x');
    for (std::size_t left = bytes; left > 0;) {
      const std::size_t n = std::min(left, chunk.size());
      send_all(fd, std::string_view(chunk).substr(0, n));
      left -= n;
    }
  };
}

// Reads everything the server sends; returns the bytes received.
std::size_t drain(int fd) {
  static char buffer[1 << 18];
  std::size_t total = 0;
  while (true) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return total;
    total += static_cast<std::size_t>(n);
  }
}

double mib_per_second(std::size_t bytes, Clock::duration elapsed) {
  return static_cast<double>(bytes) / (1 << 20) / std::chrono::duration<double>(elapsed).count();
}

// CPU seconds (user + system) a process has used so far.
double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  std::istringstream fields(text.substr(text.rfind(')') + 2));  // after "pid (comm) "
  std::string field;
  long ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i)
    if (i == 14 || i == 15) ticks += std::stol(field);  // utime, stime
  return static_cast<double>(ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The proxy in a process of its own, forked before the benchmark starts any thread; it learns
// the address to allow (the server's port) through a pipe.
struct ProxyProcess {
  explicit ProxyProcess(std::string socket_path) {
    int to_child[2], ready[2];
    if (::pipe(to_child) != 0 || ::pipe(ready) != 0) throw std::runtime_error("pipe");
    pid = ::fork();
    if (pid == 0) {
      ::close(to_child[1]);
      ::close(ready[0]);
      std::string allow;
      for (char c; ::read(to_child[0], &c, 1) == 1 && c != '\n';) allow += c;
      NetworkRules rules;
      rules.allow_outbound = {allow};
      NetworkProxyOptions options;
      options.rules = OutboundRules(rules, "bench");
      options.socket_path = socket_path;
            NetworkProxy proxy(std::move(options));
      proxy.start();
      [[maybe_unused]] auto w = ::write(ready[1], "r", 1);
      char c;
      [[maybe_unused]] auto r = ::read(to_child[0], &c, 1);  // returns at EOF: the parent is done
      proxy.stop();
      ::_exit(0);
    }
    ::close(to_child[0]);
    ::close(ready[1]);
    control = to_child[1];
    ready_fd = ready[0];
  }
  void start(const std::string& allow) {
    const std::string line = allow + "\n";
    char c;
    if (::write(control, line.data(), line.size()) != static_cast<ssize_t>(line.size()) ||
        ::read(ready_fd, &c, 1) != 1)
      throw std::runtime_error("the proxy process did not start");
  }
  ~ProxyProcess() {
    ::close(control);
    ::close(ready_fd);
    ::waitpid(pid, nullptr, 0);
  }
  // "VmRSS" or "VmHWM" in KiB.
  long status_kib(const std::string& field) const {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
      if (line.starts_with(field + ":")) return std::stol(line.substr(field.size() + 1));
    return -1;
  }

  pid_t pid = -1;
  int control = -1;
  int ready_fd = -1;
};

// pmg-netbridge on `port`, relaying to the proxy socket, running `sleep` until killed.
struct BridgeProcess {
  BridgeProcess(const std::string& bridge, std::uint16_t port, const std::string& socket_path) {
    pid = ::fork();
    if (pid == 0) {
      const std::string listen = "127.0.0.1:" + std::to_string(port);
      ::execl(bridge.c_str(), bridge.c_str(), "--listen", listen.c_str(), "--socket", socket_path.c_str(), "--",
              "/bin/sleep", "3600", nullptr);
      ::_exit(127);
    }
    for (int i = 0; i < 500; ++i) {
      const int fd = try_connect_tcp("127.0.0.1", port);
      if (fd >= 0) {
        ::close(fd);
        return;
      }
      ::usleep(10'000);
    }
    throw std::runtime_error("pmg-netbridge did not start");
  }
  ~BridgeProcess() {
    ::kill(pid, SIGTERM);
    ::waitpid(pid, nullptr, 0);
  }
  pid_t pid = -1;
};

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  const std::size_t mib = argc > 2 ? std::stoul(argv[2]) : 1024;
  const int tunnel_count = argc > 3 ? std::atoi(argv[3]) : 100;
  const std::size_t bytes = mib << 20;
  const std::string bridge = PMG_BINARY_DIR "/bin/pmg-netbridge";

  TempDir dir;
  const std::string socket_path = dir / "proxy.sock";
  ProxyProcess proxy(socket_path);
  TestServer server(bulk_server(bytes));
  const std::uint16_t server_port = server.port();
  const std::string target = "127.0.0.1:" + std::to_string(server_port);
  proxy.start(target);
  const long idle_rss = proxy.status_kib("VmRSS");
  const std::uint16_t bridge_port = [] {
    Fd probe(::socket(AF_INET, SOCK_STREAM, 0));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(probe.get(), reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t size = sizeof a;
    ::getsockname(probe.get(), reinterpret_cast<sockaddr*>(&a), &size);
    return ntohs(a.sin_port);
  }();
  BridgeProcess bridge_process(bridge, bridge_port, socket_path);

  const std::string get = "GET http://" + target + "/bulk HTTP/1.1\r\nHost: " + target + "\r\n\r\n";
  const std::string connect = "CONNECT " + target + " HTTP/1.1\r\n\r\nGET /bulk HTTP/1.1\r\n\r\n";
  struct Path {
    std::string name;
    std::function<Fd()> open;
    std::string request;
    std::vector<double> rates;
    double self_cpu = 0, proxy_cpu = 0, bridge_cpu = 0;  // seconds, summed over runs
  };
  std::vector<Path> paths = {
      {"direct (TCP loopback)", [&] { return Fd(try_connect_tcp("127.0.0.1", server_port)); }, get, {}},
      {"proxy, CONNECT tunnel", [&] { return connect_unix(socket_path); }, connect, {}},
      {"proxy, plain HTTP forwarding", [&] { return connect_unix(socket_path); }, get, {}},
      {"pmg-netbridge + proxy, CONNECT",
       [&] { return Fd(try_connect_tcp("127.0.0.1", bridge_port)); }, connect, {}},
  };
  for (int run = 0; run < runs; ++run) {
    for (Path& p : paths) {
      Fd fd = p.open();
      const double self_before = cpu_seconds(::getpid()), proxy_before = cpu_seconds(proxy.pid),
                   bridge_before = cpu_seconds(bridge_process.pid);
      const auto start = Clock::now();
      send_all(fd.get(), p.request);
      const std::size_t got = drain(fd.get());
      const auto elapsed = Clock::now() - start;
      p.self_cpu += cpu_seconds(::getpid()) - self_before;
      p.proxy_cpu += cpu_seconds(proxy.pid) - proxy_before;
      p.bridge_cpu += cpu_seconds(bridge_process.pid) - bridge_before;
      if (got < bytes) {
        fmt::print(stderr, "{}: received {} of {} bytes\n", p.name, got, bytes);
        return 1;
      }
      p.rates.push_back(mib_per_second(bytes, elapsed));
    }
  }
  const double direct = median(paths[0].rates);
  const double gib = static_cast<double>(bytes) * runs / (1 << 30);
  fmt::print("Throughput: {} MiB per download, median of {} runs; CPU ms per GiB moved\n", mib, runs);
  fmt::print("  {:34} {:>8}  {:>12}  {:>13} {:>6} {:>7}\n", "path", "MiB/s", "% of direct", "client+server",
             "proxy", "bridge");
  for (const Path& p : paths)
    fmt::print("  {:34} {:8.0f}  {:11.1f}%  {:13.0f} {:6.0f} {:7.0f}\n", p.name, median(p.rates),
               100 * median(p.rates) / direct, 1000 * p.self_cpu / gib, 1000 * p.proxy_cpu / gib,
               1000 * p.bridge_cpu / gib);

  // Memory: tunnels that have each carried 1 MiB both ways, held open together.
  std::vector<Fd> tunnels;
  const std::string payload(1 << 20, 'y');
  for (int i = 0; i < tunnel_count; ++i) {
    tunnels.push_back(connect_unix(socket_path));
    send_all(tunnels.back().get(), "CONNECT " + target + " HTTP/1.1\r\n\r\n");
    if (read_until(tunnels.back().get(), std::chrono::seconds(10), has_head).data.find(" 200 ") == std::string::npos) {
      fmt::print(stderr, "tunnel {} was not opened\n", i);
      return 1;
    }
  }
  for (Fd& t : tunnels) {
    send_all(t.get(), "ECHO");
    std::size_t echoed = 0;
    std::thread reader([&] {
      char buffer[65536];
      while (echoed < payload.size() + 4) {
        const ssize_t n = ::recv(t.get(), buffer, sizeof buffer, 0);
        if (n <= 0) break;
        echoed += static_cast<std::size_t>(n);
      }
    });
    send_all(t.get(), payload);
    reader.join();
  }
  fmt::print("Memory of the proxy process: {} KiB idle; with {} open tunnels: VmRSS {} KiB, peak VmHWM {} KiB\n",
             idle_rss, tunnel_count, proxy.status_kib("VmRSS"), proxy.status_kib("VmHWM"));
  return 0;
}
