#pragma once
// What a sandboxed command needs to use the filtering proxy: it runs under pmg-netbridge, which
// listens on 127.0.0.1:<port> inside the sandbox's network namespace and relays to the proxy's
// Unix socket, and its environment names that address in the variables npm, pnpm, yarn (1 and
// berry), pip, poetry, uv and curl read. A program that ignores all of them simply has no
// network: the sandbox's namespace has nothing but loopback.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pmg {

// Any port works (the namespace is the sandbox's own); 3128 is the one proxies are known by.
inline constexpr std::uint16_t default_netbridge_port = 3128;

struct ProxyEnvironmentOptions {
  std::uint16_t bridge_port = default_netbridge_port;  // pmg-netbridge's port on the sandbox's 127.0.0.1
  bool socks5 = true;             // also offer SOCKS5 (ALL_PROXY) for other TCP clients
};

// "NAME=value" entries to add. NO_PROXY is set empty so no host is exempted: every exempted
// host would be unreachable anyway.
inline std::vector<std::string> proxy_environment(const ProxyEnvironmentOptions& options) {
  const std::string http = "http://127.0.0.1:" + std::to_string(options.bridge_port);
  std::vector<std::string> out;
  for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "npm_config_proxy",
                           "npm_config_https_proxy", "YARN_HTTP_PROXY", "YARN_HTTPS_PROXY", "PIP_PROXY"})
    out.push_back(std::string(name) + "=" + http);
  if (options.socks5) {
    // socks5h: the proxy resolves names; the sandbox has no DNS of its own.
    const std::string socks = "socks5h://127.0.0.1:" + std::to_string(options.bridge_port);
    out.push_back("ALL_PROXY=" + socks);
    out.push_back("all_proxy=" + socks);
  }
  for (const char* name : {"NO_PROXY", "no_proxy", "npm_config_noproxy"}) out.push_back(std::string(name) + "=");
  return out;
}

namespace detail {

inline std::string lower_case(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

inline std::string_view variable_name(std::string_view entry) { return entry.substr(0, entry.find('=')); }

}  // namespace detail

// Sets the proxy variables in `environment` ("NAME=value" entries), first removing every entry
// whose name equals one of them ignoring case (npm reads its npm_config_* variables
// case-insensitively, so a user's NPM_CONFIG_HTTPS_PROXY would otherwise compete with ours).
inline void apply_proxy_environment(std::vector<std::string>& environment, const ProxyEnvironmentOptions& options) {
  const std::vector<std::string> ours = proxy_environment(options);
  std::vector<std::string> replaced = {"all_proxy"};  // a user's SOCKS proxy is unreachable too
  for (const std::string& entry : ours) replaced.push_back(detail::lower_case(detail::variable_name(entry)));
  std::erase_if(environment, [&](const std::string& entry) {
    const std::string name = detail::lower_case(detail::variable_name(entry));
    return std::find(replaced.begin(), replaced.end(), name) != replaced.end();
  });
  environment.insert(environment.end(), ours.begin(), ours.end());
}

// The command line that runs `command` under pmg-netbridge (the inverse of its argument parser);
// with `seccomp_file`, the bridge installs that seccomp program in the command before exec.
inline std::vector<std::string> netbridge_command(const std::string& netbridge, const std::string& proxy_socket,
                                                  std::uint16_t bridge_port, const std::vector<std::string>& command,
                                                  const std::string& seccomp_file = {}) {
  std::vector<std::string> out = {netbridge, "--listen", "127.0.0.1:" + std::to_string(bridge_port), "--socket",
                                  proxy_socket};
  if (!seccomp_file.empty()) out.insert(out.end(), {"--seccomp", seccomp_file});
  out.push_back("--");
  out.insert(out.end(), command.begin(), command.end());
  return out;
}

}  // namespace pmg
