// The whole launch on Linux, with a stand-in for sandbox-exec: log tag, proxy, environment,
// profile and clean-up. Only the enforcement itself needs macOS.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "support/unit_helpers.hpp"
#include <filesystem>
#include <fstream>
#include <sstream>

#include "seatbelt_backend.hpp"
#include "seatbelt_test_support.hpp"

using namespace pmg::seatbelt;
namespace fs = std::filesystem;

namespace {

using pmg::test_support::TempDir;
using pmg::test_support::read_file;
using pmg::seatbelt::test::write_fake_sandbox_exec;

bool accepts_connections(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return connected;
}

pmg::LaunchRequest request_in(const TempDir& dir) {
  pmg::LaunchRequest request;
  request.policy = pmg::seatbelt::test::base_policy();
  request.context = pmg::seatbelt::test::mac_context();
  request.context.tmpdir = (dir.path() / "tmp").string();
  fs::create_directory(request.context.tmpdir);
  request.environment = {"RECORD=" + dir.path().string(), "PATH=/usr/bin:/bin"};
  request.tool = "npm";
  request.event_log = (dir.path() / "events.jsonl").string();
  return request;
}

}  // namespace

TEST_CASE("launch: allowed hosts are reached only through pmg's proxy, for the run only", "[seatbelt][launch]") {
  TempDir dir;
  pmg::LaunchRequest request = request_in(dir);
  request.policy.network.allow_outbound = {"registry.npmjs.org:443"};
  request.environment.push_back("HTTPS_PROXY=http://users-own-proxy:3128");
  // Inside: record the environment, then ask the proxy for a host the policy does not allow.
  request.command = {"/bin/bash", "-c",
                     "env > \"$RECORD/env\"; port=${HTTPS_PROXY##*:}; exec 3<>/dev/tcp/127.0.0.1/$port || exit 3; "
                     "printf 'CONNECT evil.example.com:443 HTTP/1.1\\r\\nHost: evil.example.com:443\\r\\n\\r\\n' >&3; "
                     "head -n 1 <&3 > \"$RECORD/answer\""};
  REQUIRE(launch_with(request, write_fake_sandbox_exec(dir.path()).string()) == 0);

  const std::string env = read_file(dir.path() / "env");
  const auto at = env.find("\nHTTPS_PROXY=http://127.0.0.1:");
  REQUIRE(at != std::string::npos);
  const std::string port_text = env.substr(at + 30, env.find('\n', at + 1) - at - 30);
  const auto port = static_cast<std::uint16_t>(std::stoi(port_text));
  CHECK(env.find("users-own-proxy") == std::string::npos);
  CHECK(env.find("\nnpm_config_https_proxy=http://127.0.0.1:" + port_text + "\n") != std::string::npos);

  const std::string profile = read_file(dir.path() / "profile");
  CHECK(profile.find("(allow network-outbound (remote ip \"localhost:" + port_text + "\"))") != std::string::npos);
  CHECK(profile.find("*:443") == std::string::npos);
  CHECK(profile.find("mDNSResponder") == std::string::npos);

  CHECK_THAT(read_file(dir.path() / "answer"), Catch::StartsWith("HTTP/1.1 403"));
  CHECK_THAT(read_file(dir.path() / "events.jsonl"), Catch::Contains("evil.example.com"));
  CHECK_FALSE(accepts_connections(port));  // the proxy stopped with the run
  CHECK(fs::is_empty(request.context.tmpdir));  // and the profile file is gone
}

TEST_CASE("launch: without allow_outbound there is no proxy and no network", "[seatbelt][launch]") {
  TempDir dir;
  pmg::LaunchRequest request = request_in(dir);
  request.policy.network.deny_outbound = {"*:*"};
  request.command = {"/bin/sh", "-c", "env > \"$RECORD/env\"; exit 5"};
  CHECK(launch_with(request, write_fake_sandbox_exec(dir.path()).string()) == 5);
  CHECK(read_file(dir.path() / "env").find("PROXY") == std::string::npos);
  const std::string profile = read_file(dir.path() / "profile");
  CHECK(profile.find("(deny network-outbound (remote ip \"*:*\")") != std::string::npos);
  CHECK(profile.find("(allow network-outbound (remote") == std::string::npos);
  CHECK(profile.find("(deny default (with message \"PMG_SBX_") != std::string::npos);
  CHECK(profile.find("PMG_SBX_GOLDEN0TAG") == std::string::npos);  // a fresh tag per launch
}
