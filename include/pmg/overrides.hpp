#pragma once
// --sandbox-allow TYPE=VALUE: one-off exceptions for a single run (spec, "Runtime Allow
// Overrides"). An override appends to an allow list and removes only an exact, literal match from
// the matching deny list; glob denies stay, and mandatory denies are not in the policy at all
// (mandatory.hpp), so no override reaches them.
#include <algorithm>
#include <cctype>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/context.hpp"
#include "pmg/error.hpp"
#include "pmg/glob.hpp"
#include "pmg/mandatory.hpp"
#include "pmg/path.hpp"
#include "pmg/policy.hpp"
#include "pmg/variables.hpp"

namespace pmg {

enum class OverrideType { read, write, exec, net_connect, net_bind, env };

struct Override {
  OverrideType type;
  std::string value;  // paths: absolute and normalised; net: host:port; env: a variable name
  std::string raw;    // the flag's argument as given, for messages and the event log

  bool operator==(const Override&) const = default;
};

inline std::string_view to_string(OverrideType type) {
  switch (type) {
    case OverrideType::read: return "read";
    case OverrideType::write: return "write";
    case OverrideType::exec: return "exec";
    case OverrideType::net_connect: return "net-connect";
    case OverrideType::net_bind: return "net-bind";
    case OverrideType::env: return "env";
  }
  return "?";
}

inline constexpr std::string_view override_forms =
    "accepted forms: read=PATH, write=PATH (a glob is fine), exec=PATH (one executable, no glob), "
    "net-connect=HOST:PORT, net-bind=HOST:PORT ([IPv6]:PORT for IPv6), env=NAME; "
    "a relative PATH is relative to the current directory";

namespace detail {

inline UsageError override_error(std::string_view raw, std::string_view problem) {
  return UsageError("--sandbox-allow " + quote_for_message(raw) + ": " + std::string(problem) + "; " +
                    std::string(override_forms));
}

struct HostPort {
  std::string host;  // IPv6 without brackets
  bool ipv6 = false;
};

// "host:port" or "[v6addr]:port", port 1-65535, host without wildcards.
inline HostPort parse_host_port(std::string_view raw, std::string_view value) {
  HostPort out;
  std::string_view host, port;
  if (value.starts_with('[')) {
    const std::size_t close = value.find(']');
    if (close == std::string_view::npos || close + 1 >= value.size() || value[close + 1] != ':')
      throw override_error(raw, "expected [IPv6-ADDRESS]:PORT");
    host = value.substr(1, close - 1);
    port = value.substr(close + 2);
    out.ipv6 = true;
  } else {
    const std::size_t colon = value.rfind(':');
    if (colon == std::string_view::npos) throw override_error(raw, "expected HOST:PORT, the port is missing");
    host = value.substr(0, colon);
    port = value.substr(colon + 1);
    if (host.find(':') != std::string_view::npos)
      throw override_error(raw, "an IPv6 address must be written in brackets, e.g. [::1]:8080");
  }
  if (host.empty()) throw override_error(raw, "the host is empty");
  if (host.find_first_of("*?[]") != std::string_view::npos)
    throw override_error(raw, "the host must be one name or address, without wildcards");
  const auto host_char = [&](char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (out.ipv6) return std::isxdigit(u) != 0 || c == ':' || c == '.';
    return std::isalnum(u) != 0 || c == '.' || c == '-' || c == '_';
  };
  if (!std::all_of(host.begin(), host.end(), host_char) || (out.ipv6 && host.find(':') == std::string_view::npos))
    throw override_error(raw, "\"" + std::string(host) + "\" is not a host name or IP address");
  if (port.empty() || port.size() > 5 ||
      !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      std::stoul(std::string(port)) < 1 || std::stoul(std::string(port)) > 65535)
    throw override_error(raw, "the port must be a number from 1 to 65535");
  out.host = std::string(host);
  return out;
}

inline bool is_env_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front())) != 0) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

inline bool is_local_host(std::string_view host) {
  return host == "localhost" || host == "127.0.0.1" || host == "::1";
}

// Does the (expanded) deny entry still cover `value`? A glob covers what it matches and what lies
// below a match; a literal path covers itself and everything below it.
inline bool deny_covers(const std::string& deny, const std::string& value, bool is_path) {
  if (!has_glob_chars(deny)) return is_path ? path_is_within(value, deny) : deny == value;
  const Glob glob(deny);
  if (!is_path) return glob.matches(value);
  for (std::string p = value;; p = p.substr(0, std::max<std::size_t>(p.rfind('/'), 1))) {
    if (glob.matches(p)) return true;
    if (p == "/") return false;
  }
}

}  // namespace detail

// Parses one --sandbox-allow argument. Throws UsageError naming the argument and listing the
// accepted forms.
inline Override parse_override(std::string_view raw, const Context& ctx) {
  const std::size_t eq = raw.find('=');
  if (eq == std::string_view::npos) throw detail::override_error(raw, "expected TYPE=VALUE");
  const std::string_view type_text = raw.substr(0, eq);
  const std::string_view value = raw.substr(eq + 1);
  Override out{OverrideType::read, {}, std::string(raw)};
  bool known = false;
  for (OverrideType t : {OverrideType::read, OverrideType::write, OverrideType::exec, OverrideType::net_connect,
                         OverrideType::net_bind, OverrideType::env}) {
    if (to_string(t) == type_text) {
      out.type = t;
      known = true;
    }
  }
  if (!known) throw detail::override_error(raw, "unknown type \"" + std::string(type_text) + "\"");
  if (value.empty()) throw detail::override_error(raw, "the value after '=' is empty");

  switch (out.type) {
    case OverrideType::read:
    case OverrideType::write:
    case OverrideType::exec: {
      if (value.front() == '~')
        throw detail::override_error(raw, "'~' is not expanded after '='; use $HOME/... so your shell expands it");
      const bool absolute = value.front() == '/' || value.starts_with("${");
      const std::string text = absolute ? std::string(value) : ctx.cwd + "/" + std::string(value);
      try {
        out.value = expand_variables(text, ctx, "--sandbox-allow " + quote_for_message(raw));
      } catch (const Error& e) {  // the message already names the flag value
        throw UsageError(std::string(e.what()) + "; " + std::string(override_forms));
      }
      if (!has_glob_chars(out.value)) break;
      if (out.type == OverrideType::exec)
        throw detail::override_error(raw, "exec takes one executable path, not a glob");
      try {
        static_cast<void>(Glob(out.value));  // a malformed glob is a usage error now, not later
      } catch (const Error& e) {
        throw detail::override_error(raw, e.what());
      }
      break;
    }
    case OverrideType::net_connect:
    case OverrideType::net_bind:
      detail::parse_host_port(raw, value);
      out.value = std::string(value);
      break;
    case OverrideType::env:
      if (has_glob_chars(value)) throw detail::override_error(raw, "env takes one variable name, not a pattern");
      if (!detail::is_env_name(value))
        throw detail::override_error(raw, "\"" + std::string(value) +
                                              "\" is not a variable name (letters, digits, '_', not starting with a digit)");
      out.value = std::string(value);
      break;
  }
  return out;
}

// Applies overrides to `policy` (unexpanded or expanded alike): appends each value to its allow
// list and removes deny entries that have no glob characters and whose expansion equals the value.
// net-bind also sets allow_network_bind. Returns warnings for the user: a bind beyond localhost,
// and a value that stays denied (by a glob, a parent directory, or a mandatory deny).
inline std::vector<std::string> apply_overrides(Policy& policy, std::span<const Override> overrides,
                                                const Context& ctx) {
  std::vector<std::string> warnings;
  for (const Override& o : overrides) {
    std::vector<std::string>* allow = nullptr;
    std::vector<std::string>* deny = nullptr;
    std::string_view deny_name;
    const bool is_path = o.type == OverrideType::read || o.type == OverrideType::write || o.type == OverrideType::exec;
    switch (o.type) {
      case OverrideType::read:
        allow = &policy.filesystem.allow_read, deny = &policy.filesystem.deny_read, deny_name = "filesystem.deny_read";
        break;
      case OverrideType::write:
        allow = &policy.filesystem.allow_write, deny = &policy.filesystem.deny_write, deny_name = "filesystem.deny_write";
        break;
      case OverrideType::exec:
        allow = &policy.process.allow_exec, deny = &policy.process.deny_exec, deny_name = "process.deny_exec";
        break;
      case OverrideType::net_connect:
        allow = &policy.network.allow_outbound, deny = &policy.network.deny_outbound, deny_name = "network.deny_outbound";
        break;
      case OverrideType::net_bind:
        allow = &policy.network.allow_bind;
        policy.allow_network_bind = true;
        if (const auto host = detail::parse_host_port(o.raw, o.value); !detail::is_local_host(host.host))
          warnings.push_back("--sandbox-allow " + o.raw + ": binds on " + host.host +
                             ", which other machines may reach; use 127.0.0.1 unless that is intended");
        break;
      case OverrideType::env:
        allow = &policy.environment.allow, deny = &policy.environment.deny, deny_name = "environment.deny";
        break;
    }
    if (std::find(allow->begin(), allow->end(), o.value) == allow->end()) allow->push_back(o.value);
    if (deny == nullptr) continue;

    const std::string where = std::string(policy.source.empty() ? policy.name : policy.source) + ": " +
                              std::string(deny_name);
    const auto expanded = [&](const std::string& entry) {
      return is_path ? expand_variables(entry, ctx, where) : entry;
    };
    std::erase_if(*deny, [&](const std::string& entry) {
      return !has_glob_chars(entry) && expanded(entry) == o.value;
    });
    for (const std::string& entry : *deny)
      if (detail::deny_covers(expanded(entry), o.value, is_path))
        warnings.push_back("--sandbox-allow " + o.raw + ": still denied by " + std::string(deny_name) + " entry \"" +
                           entry + "\" (only an exact, non-glob entry is removed)");
    if (!is_path) continue;
    const MandatoryDenies mandatory = mandatory_denies(policy, ctx);
    std::vector<std::string> stays = mandatory.deny_read_write;
    if (o.type == OverrideType::write) stays.insert(stays.end(), mandatory.deny_write.begin(), mandatory.deny_write.end());
    for (const std::string& entry : stays)
      if (detail::deny_covers(entry, o.value, true)) {
        warnings.push_back("--sandbox-allow " + o.raw + ": still denied by the mandatory deny \"" + entry +
                           "\", which no override can remove (see docs/mandatory-denies.md)");
        break;
      }
  }
  return warnings;
}

}  // namespace pmg
