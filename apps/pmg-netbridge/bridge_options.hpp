#pragma once
// pmg-netbridge's command line:
//   pmg-netbridge --listen 127.0.0.1:PORT --socket /path/proxy.sock [--seccomp FILE] -- COMMAND [ARGS...]
#include <boost/asio/ip/tcp.hpp>
#include <string>
#include <vector>

#include "pmg/error.hpp"
#include "pmg/outbound_rules.hpp"

namespace pmg::netbridge {

struct BridgeOptions {
  boost::asio::ip::tcp::endpoint listen;  // inside the sandbox's network namespace
  std::string socket_path;                // the filtering proxy's Unix socket
  std::string seccomp_file;               // a BPF program the command runs under; empty: none
  std::vector<std::string> command;
};

inline constexpr const char* usage =
    "usage: pmg-netbridge --listen 127.0.0.1:PORT --socket /path/to/proxy.sock [--seccomp FILE] -- COMMAND "
    "[ARGS...]";

// Throws UsageError naming the argument that is wrong.
inline BridgeOptions parse_bridge_arguments(const std::vector<std::string>& args) {
  BridgeOptions out;
  bool have_listen = false;
  std::size_t i = 0;
  for (; i < args.size() && args[i] != "--"; ++i) {
    const std::string& flag = args[i];
    if (flag != "--listen" && flag != "--socket" && flag != "--seccomp")
      throw UsageError("pmg-netbridge: unknown argument " + quote_for_message(flag) + "; " + usage);
    if (i + 1 == args.size()) throw UsageError("pmg-netbridge: " + flag + " needs a value; " + usage);
    const std::string& value = args[++i];
    if (flag == "--socket" || flag == "--seccomp") {
      if (value.empty() || value.front() != '/')
        throw UsageError("pmg-netbridge: " + flag + " " + quote_for_message(value) + " must be an absolute path");
      (flag == "--socket" ? out.socket_path : out.seccomp_file) = value;
      continue;
    }
    const std::size_t colon = value.rfind(':');
    const auto host = colon == std::string::npos ? std::nullopt : parse_host(value.substr(0, colon));
    const auto port = colon == std::string::npos ? std::nullopt : parse_port(value.substr(colon + 1));
    if (!host || !host->is_literal() || !port)
      throw UsageError("pmg-netbridge: --listen " + quote_for_message(value) +
                       " is not ADDRESS:PORT with a literal address, e.g. 127.0.0.1:3128");
    out.listen = {*host->address, *port};
    have_listen = true;
  }
  if (!have_listen || out.socket_path.empty())
    throw UsageError(std::string("pmg-netbridge: --listen and --socket are both required; ") + usage);
  if (i + 1 >= args.size()) throw UsageError(std::string("pmg-netbridge: no command after --; ") + usage);
  out.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
  return out;
}

}  // namespace pmg::netbridge
