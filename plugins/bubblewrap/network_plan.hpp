#pragma once
// What the sandbox's network is. The sandbox always gets its own network namespace, which holds
// nothing but loopback. With no allow_outbound entry that is all it has. With entries, the only
// way out is pmg's filtering proxy on the host (pmg/network_proxy.hpp): its Unix socket is bound
// into the sandbox and pmg-netbridge, started in front of the command, listens on the sandbox's
// 127.0.0.1 and relays to it, so allow_outbound means exactly the hosts and ports it lists.
#include <string>
#include <vector>

#include "pmg/policy.hpp"
#include "pmg/proxy_environment.hpp"

namespace pmg::bubblewrap {

// Where the sandbox finds the proxy: fixed paths in the sandbox's own root, which no policy path
// can name or cover (the root is bwrap's tmpfs).
inline constexpr const char* sandbox_proxy_dir = "/.pmg-network/proxy";
inline constexpr const char* sandbox_netbridge = "/.pmg-network/pmg-netbridge";
inline constexpr const char* proxy_socket_name = "proxy.sock";
// The Unix-socket filter (socket_filter.hpp), in the proxy directory for pmg-netbridge to install
// in the command: bwrap's own --seccomp would also bind the bridge, which needs the proxy socket.
inline constexpr const char* socket_filter_name = "unix-sockets.bpf";

// The host side, known only at launch: the run's private directory holding the proxy's socket,
// and the pmg-netbridge executable. The defaults are what `pmg sandbox translate` shows.
struct ProxyEndpoint {
  std::string host_dir = "${PMG_PROXY_DIR}";
  std::string netbridge = "${PMG_NETBRIDGE}";
};

struct NetworkPlan {
  bool filtered = false;  // reached through the proxy; otherwise no network at all
  std::string reason;     // for the plan's notes and the debug log
  // Put before the command when filtered: pmg-netbridge, which then runs the command.
  std::vector<std::string> command_prefix;
};

// `block_unix_sockets`: whether the command runs under the Unix-socket filter.
inline NetworkPlan plan_network(const NetworkRules& rules, bool block_unix_sockets) {
  if (rules.allow_outbound.empty())
    return {false, "no allow_outbound entries: the sandbox gets its own network namespace (loopback only)", {}};
  const std::string dir = sandbox_proxy_dir;
  std::vector<std::string> prefix =
      netbridge_command(sandbox_netbridge, dir + "/" + proxy_socket_name, default_netbridge_port, {},
                        block_unix_sockets ? dir + "/" + socket_filter_name : std::string());
  return {true,
          "allow_outbound has " + std::to_string(rules.allow_outbound.size()) +
              " entries: the sandbox's own network namespace, left only through pmg's filtering proxy "
              "(pmg-netbridge on 127.0.0.1:" + std::to_string(default_netbridge_port) + ")",
          std::move(prefix)};
}

}  // namespace pmg::bubblewrap
