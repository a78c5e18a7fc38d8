// The host end to end, network: under the npm profile the sandbox reaches the registry through
// pmg's filtering proxy and nothing else, as root and as an unprivileged user. A node client runs
// inside the sandbox as an install script would; the host service it must not reach is checked
// from outside first, so the test can tell "refused by pmg" from "broken".
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "e2e/host_world.hpp"

namespace {

using namespace pmg::test_support;

// An HTTP service on the host's 127.0.0.1, as a database or a metadata endpoint would be: every
// request gets 200 and the body "host-service".
class LoopbackHttpServer {
 public:
  LoopbackHttpServer() : thread_([this] { serve(); }) {}
  ~LoopbackHttpServer() {
    stop_ = true;
    thread_.join();
  }
  int port() const { return listener_.port(); }
  std::string address() const { return listener_.address(); }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{listener_.fd(), POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      const int client = ::accept4(listener_.fd(), nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      std::string head;
      char buffer[1024];
      ssize_t n;
      while (head.find("\r\n\r\n") == std::string::npos && (n = ::read(client, buffer, sizeof buffer)) > 0)
        head.append(buffer, static_cast<std::size_t>(n));
      const std::string reply = "HTTP/1.1 200 OK\r\nContent-Length: 12\r\nConnection: close\r\n\r\nhost-service";
      (void)!::write(client, reply.data(), reply.size());
      ::close(client);
    }
  }

  LoopbackListener listener_;  // before the thread that serves it
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// A network client run by node inside the sandbox, as an install script would (the npm profile
// does not let curl or wget run). It finds the proxy where npm does, in HTTPS_PROXY, and prints
// one line: "status=N [body=...]" for an answer, "error=CODE" when the connection failed.
//   connect HOST:PORT  a CONNECT through the proxy (what npm does for https)
//   get URL            an absolute-URI GET through the proxy (plain http)
//   direct HOST:PORT   a TCP connection that ignores the proxy
constexpr const char* probe_js = R"JS(
const http = require('http'), net = require('net');
const [mode, target] = process.argv.slice(2);
const done = line => { console.log(line); process.exit(0); };
const proxy = new URL(process.env.HTTPS_PROXY || 'http://proxy-variable-missing:1');
setTimeout(() => done('error=TIMEOUT'), 20000);
if (mode === 'connect') {
  http.request({host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: target})
      .on('connect', (res, socket) => { socket.destroy(); done('status=' + res.statusCode); })
      .on('error', e => done('error=' + e.code)).end();
} else if (mode === 'get') {
  http.get({host: proxy.hostname, port: proxy.port, path: target}, res => {
    let body = '';
    res.on('data', d => body += d).on('end', () => done('status=' + res.statusCode + ' body=' + body));
  }).on('error', e => done('error=' + e.code));
} else {
  const [host, port] = target.split(':');
  net.connect(+port, host).on('connect', () => done('connected')).on('error', e => done('error=' + e.code));
}
)JS";

// Runs the probe under `profile` and returns its line (and anything else it printed).
std::string probe(const World& w, const std::string& profile, const std::string& mode, const std::string& target) {
  const fs::path script = w.home.project / "probe.js";
  if (!fs::exists(script)) {
    write_file(script, probe_js);
    w.give(script);
  }
  const RunResult r =
      w.pmg({"sandbox", "exec", "--sandbox-profile=" + profile, "--", "/usr/bin/node", script.string(), mode, target});
  return "exit=" + std::to_string(r.status) + " " + r.output;
}

std::vector<boost::property_tree::ptree> violations(const World& w) {
  std::vector<boost::property_tree::ptree> out;
  for (const auto& e : w.events())
    if (e.get<std::string>("type") == "network-violation") out.push_back(e);
  return out;
}

// A profile that inherits the npm profile and adds `allow_outbound`, written where the user can
// read it.
std::string profile_allowing(const World& w, const std::string& name, const std::string& destination) {
  const fs::path file = w.home.tmp / (name + ".yml");
  write_file(file, "name: " + name + "\ninherits: npm-restrictive\npackage_managers: [npm]\n"
                   "filesystem:\n  allow_write: [\"${CWD}\"]\n"
                   "network:\n  allow_outbound: [\"" + destination + "\"]\n");
  w.give(file);
  return file.string();
}

void only_allowed_hosts_through_the_proxy(bool unprivileged) {
  World w(user_for(unprivileged));
  const LoopbackHttpServer service;
  const std::string npm = profile_allowing(w, "npm-project", "registry.npmjs.org:443");
  // The host's service answers from outside: a failure inside is the sandbox's doing.
  REQUIRE(w.run({"/usr/bin/node", "-e",
                 "require('http').get('http://" + service.address() + "/', r => r.pipe(process.stdout))"})
              .output == "host-service");

  SECTION("an allowed host is reached through the proxy") {
    const std::string out = probe(w, npm, "connect", "registry.npmjs.org:443");
    INFO(out);
    CHECK(out.find("exit=0 status=200") != std::string::npos);
    CHECK(violations(w).empty());
  }
  SECTION("a host not in allow_outbound gets 403 and a violation record") {
    const std::string out = probe(w, npm, "connect", "example.com:443");
    INFO(out);
    CHECK(out.find("status=403") != std::string::npos);
    const auto refused = violations(w);
    REQUIRE(refused.size() == 1);
    CHECK(refused[0].get<std::string>("destination") == "example.com:443");
    CHECK(refused[0].get<std::string>("pm", "") == "");  // `sandbox exec` runs no package manager
  }
  SECTION("the host's loopback is unreachable, directly and through the proxy") {
    const std::string direct = probe(w, npm, "direct", service.address());
    INFO(direct);
    CHECK(direct.find("error=ECONNREFUSED") != std::string::npos);  // the sandbox's own loopback
    const std::string proxied = probe(w, npm, "get", "http://" + service.address() + "/");
    INFO(proxied);
    CHECK(proxied.find("status=403") != std::string::npos);
    CHECK(proxied.find("host-service") == std::string::npos);
  }
  SECTION("an allowed name that resolves to loopback is refused; the literal address is allowed") {
    const std::string port = std::to_string(service.port());
    const std::string by_name = probe(w, profile_allowing(w, "by-name", "localhost:" + port), "get",
                                      "http://localhost:" + port + "/");
    INFO(by_name);
    CHECK(by_name.find("status=403") != std::string::npos);
    CHECK(by_name.find("host-service") == std::string::npos);
    const auto refused = violations(w);
    REQUIRE(refused.size() == 1);
    CHECK(refused[0].get<std::string>("destination") == "localhost:" + port);

    const std::string by_address =
        probe(w, profile_allowing(w, "by-address", service.address()), "get", "http://" + service.address() + "/");
    INFO(by_address);
    CHECK(by_address.find("exit=0 status=200 body=host-service") != std::string::npos);
  }
}

}  // namespace

TEST_CASE("network e2e: only allowed hosts, through the proxy (root)", "[e2e][network]") {
  only_allowed_hosts_through_the_proxy(false);
}
TEST_CASE("network e2e: only allowed hosts, through the proxy (unprivileged)", "[e2e][network]") {
  only_allowed_hosts_through_the_proxy(true);
}
