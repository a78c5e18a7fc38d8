// End to end: the proxy on the host, pmg-netbridge inside a bubblewrap sandbox with its own
// network namespace (--unshare-net, as the bubblewrap backend runs it), real clients (curl,
// node, npm) inside, the npm registry on the internet outside.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "pmg/network_proxy.hpp"
#include "pmg/process.hpp"
#include "pmg/proxy_environment.hpp"
#include "proxy_test_support.hpp"

using namespace pmg;
using namespace pmg::test;
using namespace std::chrono_literals;

namespace {

constexpr std::uint16_t bridge_port = default_netbridge_port;

std::string netbridge_path() {
  if (const char* p = std::getenv("PMG_NETBRIDGE")) return p;
  return PMG_BINARY_DIR "/bin/pmg-netbridge";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

struct Sandbox {
  explicit Sandbox(std::vector<std::string> allow) {
    std::filesystem::create_directories(dir / "home");
    std::filesystem::create_directories(dir / "tmp");
    NetworkRules rules;
    rules.allow_outbound = std::move(allow);
    NetworkProxyOptions options;
    options.rules = OutboundRules(rules, "e2e");
    options.socket_path = dir / "proxy.sock";
    options.tool = "npm";
    options.event_log = dir / "events.jsonl";
    proxy = std::make_unique<NetworkProxy>(std::move(options));
    proxy->start();
  }

  // Runs `script` with sh inside the sandbox, behind the bridge; returns the exit status, the
  // script's output is in dir/out.
  int run(const std::string& script) const {
    std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + (dir / "home"),
                                    "TMPDIR=" + (dir / "tmp")};
    // Machines behind a TLS-inspecting gateway name its CA here; the proxy passes TLS through
    // untouched, so clients inside need the same trust as outside.
    for (const char* name : {"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE"})
      if (const char* value = std::getenv(name)) env.push_back(std::string(name) + "=" + value);
    apply_proxy_environment(env, {bridge_port, true});
    std::vector<std::string> argv = {"/usr/bin/bwrap", "--unshare-net", "--unshare-pid", "--die-with-parent",
                                     "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                                     "--bind", dir.path().string(), dir.path().string()};
    for (std::string& a : netbridge_command(netbridge_path(), dir / "proxy.sock", bridge_port,
                                            {"/bin/sh", "-c", "exec > " + (dir / "out") + " 2>&1; " + script}))
      argv.push_back(std::move(a));
    return run_process({argv, env, {}});
  }
  std::string output() const { return read_file(dir / "out"); }
  std::vector<boost::property_tree::ptree> violations() const {
    return std::filesystem::exists(dir / "events.jsonl") ? read_event_log(dir / "events.jsonl")
                                                         : std::vector<boost::property_tree::ptree>{};
  }

  TempDir dir;
  std::unique_ptr<NetworkProxy> proxy;
};

// A CONNECT tunnel and a TLS request by hand, as an HTTPS agent behind a proxy does it.
const std::string node_https_get = R"JS(
const http = require('http'), tls = require('tls');
const [host, path] = process.argv.slice(2);
const req = http.request({host: '127.0.0.1', port: PORT, method: 'CONNECT', path: host + ':443'});
req.on('connect', (res, socket) => {
  if (res.statusCode !== 200) { console.log('CONNECT ' + res.statusCode); return; }
  const s = tls.connect({socket, servername: host}, () =>
    s.write('GET ' + path + ' HTTP/1.1\r\nHost: ' + host + '\r\nConnection: close\r\n\r\n'));
  let data = '';
  s.on('data', c => data += c);
  s.on('end', () => console.log(data.split('\r\n')[0]));
});
req.on('error', e => console.log('error ' + e.message));
req.end();
)JS";

std::string node_script() {
  std::string s = node_https_get;
  s.replace(s.find("PORT"), 4, std::to_string(bridge_port));
  return s;
}

}  // namespace

TEST_CASE("e2e: curl through the bridge reaches an allowed host, and gets 403 elsewhere", "[e2e]") {
  Sandbox box({"registry.npmjs.org:443"});
  REQUIRE(box.run("curl -sS -o /dev/null -w '%{http_code}' https://registry.npmjs.org/is-number") == 0);
  CHECK(box.output() == "200");

  CHECK(box.run("curl -sS -o /dev/null -w '%{http_connect}' https://example.com/") != 0);
  CHECK(box.output().ends_with("403"));
  CHECK(box.run("curl -sS -x http://127.0.0.1:3128 http://example.com/") == 0);
  CHECK(box.output() == "pmg: example.com:80 matches no allow_outbound entry\n");

  const auto records = box.violations();
  REQUIRE(records.size() == 2);
  CHECK(records[0].get<std::string>("type") == "network-violation");
  CHECK(records[0].get<std::string>("destination") == "example.com:443");
  CHECK(records[0].get<std::string>("pm") == "npm");
  CHECK(records[1].get<std::string>("destination") == "example.com:80");
}

TEST_CASE("e2e: node's https over a CONNECT tunnel, allowed and refused", "[e2e]") {
  Sandbox box({"registry.npmjs.org:443"});
  std::ofstream(box.dir / "get.js") << node_script();
  const int status = box.run("node " + (box.dir / "get.js") + " registry.npmjs.org /is-number");
  INFO(box.output());
  REQUIRE(status == 0);
  CHECK(box.output() == "HTTP/1.1 200 OK\n");
  REQUIRE(box.run("node " + (box.dir / "get.js") + " nodejs.org /") == 0);
  CHECK(box.output() == "CONNECT 403\n");
  REQUIRE(box.violations().size() == 1);
}

TEST_CASE("e2e: the host's loopback is out of reach from inside", "[e2e]") {
  TestServer host_service([](int fd) { send_all(fd, "host secret\n"); });
  const std::string port = std::to_string(host_service.port());
  Sandbox box({"registry.npmjs.org:443", "localhost:" + port});
  // Directly: the sandbox's 127.0.0.1 is its own.
  CHECK(box.run("curl -sS --noproxy '*' --max-time 5 http://127.0.0.1:" + port + "/") != 0);
  CHECK(box.output().find("host secret") == std::string::npos);
  // Through the proxy: not in the list by address, and an allowed name resolving to loopback.
  CHECK(box.run("curl -sS -o /dev/null -w '%{http_connect}' -p -x http://127.0.0.1:3128 http://127.0.0.1:" + port +
                "/") != 0);
  CHECK(box.output().ends_with("403"));
  CHECK(box.run("curl -sS -o /dev/null -w '%{http_connect}' -p -x http://127.0.0.1:3128 http://localhost:" + port +
                "/") != 0);
  CHECK(box.output().ends_with("403"));
  CHECK(box.run("curl -sS --max-time 5 --socks5-hostname 127.0.0.1:3128 http://localhost:" + port + "/") != 0);
  CHECK(host_service.accepted() == 0);
  CHECK(box.violations().size() == 3);
}

TEST_CASE("e2e: npm install through the proxy with the proxy environment only", "[e2e]") {
  Sandbox box({"registry.npmjs.org:443"});
  std::filesystem::create_directories(box.dir / "project");
  const int status = box.run("cd " + (box.dir / "project") + " && npm install --no-audit --no-fund --cache " +
                             (box.dir / "cache") + " is-number@7.0.0");
  INFO(box.output());
  REQUIRE(status == 0);
  CHECK(read_file(box.dir / "project/node_modules/is-number/package.json").find("\"version\": \"7.0.0\"") !=
        std::string::npos);
  CHECK(box.violations().empty());
}

TEST_CASE("e2e: bwrap --unshare-net brings loopback up, so the bridge can listen", "[e2e]") {
  Sandbox box({});
  REQUIRE(box.run("cat /sys/class/net/lo/flags") == 0);
  CHECK((std::stoul(box.output(), nullptr, 16) & 0x1) == 1);  // IFF_UP
}

// The bridge's own behaviour needs no sandbox: run it in the host's namespace on a free port.
namespace {

std::uint16_t free_port() {
  Fd fd(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t size = sizeof a;
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&a), &size);
  return ntohs(a.sin_port);
}

pid_t spawn_bridge(std::uint16_t port, const std::string& socket, std::vector<std::string> command) {
  std::vector<std::string> args = {netbridge_path(), "--listen", "127.0.0.1:" + std::to_string(port), "--socket",
                                   socket, "--"};
  args.insert(args.end(), command.begin(), command.end());
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

int wait_status(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool port_open(std::uint16_t port) {
  const int fd = try_connect_tcp("127.0.0.1", port);
  if (fd >= 0) ::close(fd);
  return fd >= 0;
}

}  // namespace

TEST_CASE("e2e: pmg-netbridge returns the command's status and leaves no listener", "[e2e]") {
  TempDir dir;
  const std::uint16_t port = free_port();
  CHECK(wait_status(spawn_bridge(port, dir / "p.sock", {"/bin/sh", "-c", "exit 7"})) == 7);
  CHECK(wait_status(spawn_bridge(port, dir / "p.sock", {"sh", "-c", "exit 3"})) == 3);  // found on PATH
  CHECK(wait_status(spawn_bridge(port, dir / "p.sock", {"/nonexistent/cmd"})) == 127);
  // A background child outliving the command does not keep the listener.
  CHECK(wait_status(spawn_bridge(port, dir / "p.sock", {"/bin/sh", "-c", "sleep 3 >/dev/null 2>&1 & exit 0"})) == 0);
  CHECK_FALSE(port_open(port));
  // Without a command line it refuses to start.
  CHECK(wait_status(spawn_bridge(port, dir / "p.sock", {})) == 2);
}

TEST_CASE("e2e: pmg-netbridge forwards signals and relays to the socket while the command runs", "[e2e]") {
  TempDir dir;
  OriginServer origin;
  NetworkRules rules;
  rules.allow_outbound = {"127.0.0.1:" + std::to_string(origin.port())};
  NetworkProxyOptions options;
  options.rules = OutboundRules(rules, "e2e");
  options.socket_path = dir / "proxy.sock";
  NetworkProxy proxy(std::move(options));
  proxy.start();

  const std::uint16_t port = free_port();
  const pid_t bridge = spawn_bridge(port, dir / "proxy.sock", {"/bin/sleep", "30"});
  bool listening = false;
  for (int i = 0; i < 200 && !(listening = port_open(port)); ++i) std::this_thread::sleep_for(10ms);
  REQUIRE(listening);
  Fd fd(try_connect_tcp("127.0.0.1", port));
  send_all(fd.get(), "GET http://127.0.0.1:" + std::to_string(origin.port()) + "/via-bridge HTTP/1.1\r\n\r\n");
  const std::string response = read_until(fd.get(), 5s).data;
  CHECK(response.ends_with("origin saw: GET /via-bridge HTTP/1.1\n"));

  const auto started = std::chrono::steady_clock::now();
  ::kill(bridge, SIGTERM);
  CHECK(wait_status(bridge) == 128 + SIGTERM);
  CHECK(std::chrono::steady_clock::now() - started < 5s);
  CHECK_FALSE(port_open(port));
}
