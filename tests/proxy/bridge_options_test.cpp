#include <catch2/catch.hpp>

#include "bridge_options.hpp"
#include "pmg/proxy_environment.hpp"

using pmg::netbridge::parse_bridge_arguments;

TEST_CASE("pmg-netbridge arguments") {
  const auto o = parse_bridge_arguments({"--listen", "127.0.0.1:3128", "--socket", "/run/p.sock", "--", "npm", "ci"});
  CHECK(o.listen.address().to_string() == "127.0.0.1");
  CHECK(o.listen.port() == 3128);
  CHECK(o.socket_path == "/run/p.sock");
  CHECK(o.command == std::vector<std::string>{"npm", "ci"});
  CHECK(parse_bridge_arguments({"--socket", "/s", "--listen", "[::1]:80", "--", "x"}).listen.address().is_v6());

  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {},
           {"--listen", "127.0.0.1:3128", "--socket", "/s"},
           {"--listen", "127.0.0.1:3128", "--socket", "/s", "--"},
           {"--listen", "localhost:3128", "--socket", "/s", "--", "x"},
           {"--listen", "127.0.0.1", "--socket", "/s", "--", "x"},
           {"--listen", "127.0.0.1:0", "--socket", "/s", "--", "x"},
           {"--listen", "127.0.0.1:1", "--socket", "relative.sock", "--", "x"},
           {"--listen", "127.0.0.1:1", "--socket", "/s", "--seccomp", "filter.bpf", "--", "x"},
           {"--listen", "127.0.0.1:1", "--socket", "/s", "--seccomp"},
           {"--socket", "/s", "--", "x"},
           {"--listen"},
           {"--verbose", "--", "x"}}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_bridge_arguments(bad), pmg::UsageError);
  }
}

TEST_CASE("netbridge_command is what parse_bridge_arguments reads") {
  const auto argv = pmg::netbridge_command("/opt/pmg/bin/pmg-netbridge", "/tmp/pmg-net-x/proxy.sock", 3128,
                                           {"/usr/bin/npm", "install", "--", "x"});
  CHECK(argv.front() == "/opt/pmg/bin/pmg-netbridge");
  const auto o = parse_bridge_arguments(std::vector<std::string>(argv.begin() + 1, argv.end()));
  CHECK(o.listen.port() == pmg::default_netbridge_port);
  CHECK(o.listen.address().to_string() == "127.0.0.1");
  CHECK(o.socket_path == "/tmp/pmg-net-x/proxy.sock");
  CHECK(o.command == std::vector<std::string>{"/usr/bin/npm", "install", "--", "x"});
  CHECK(o.seccomp_file.empty());
  const auto filtered = pmg::netbridge_command("/b", "/p.sock", 3128, {"/bin/sh"}, "/p/unix-sockets.bpf");
  CHECK(parse_bridge_arguments(std::vector<std::string>(filtered.begin() + 1, filtered.end())).seccomp_file ==
        "/p/unix-sockets.bpf");
}
