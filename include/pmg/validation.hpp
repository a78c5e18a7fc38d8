#pragma once
// The rules a policy must satisfy. Two stages: a profile as written (before inheritance: it has a
// name, the package managers it is for, well-formed entries) and a resolved policy (after
// inheritance: it grants at least one access, since a policy that grants nothing is a mistake the
// user would otherwise only discover as a failed install). Each entry rule is one function that
// the YAML loader calls with a file position and validate_profile calls for policies built in code.
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/context.hpp"
#include "pmg/error.hpp"
#include "pmg/glob.hpp"
#include "pmg/path.hpp"
#include "pmg/policy.hpp"
#include "pmg/policy_schema.hpp"
#include "pmg/variables.hpp"

namespace pmg {

// Profile names double as file names (<config dir>/profiles/NAME.yml) and command-line values,
// so they are restricted to letters, digits, '.', '_' and '-', starting with a letter or digit.
inline bool is_valid_profile_name(std::string_view name) {
  if (name.empty() || name.size() > 128 || !std::isalnum(static_cast<unsigned char>(name.front()))) return false;
  for (const char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') return false;
  return true;
}

// `where` prefixes every message, e.g. "npx.yml:3:7: inherits".
inline void check_profile_name(std::string_view name, std::string_view where) {
  if (!is_valid_profile_name(name))
    throw Error(std::string(where) + ": " + quote_for_message(name) +
                " is not a valid profile name; use letters, digits, '.', '_' and '-' (e.g. npm-custom)");
}

// Package manager names are executable names as typed on the command line (npm, pip3).
inline void check_package_manager_name(std::string_view name, std::string_view where) {
  if (!is_valid_profile_name(name))
    throw Error(std::string(where) + ": " + quote_for_message(name) +
                " is not a package manager name; write the command name, e.g. npm or pip");
}

// Filesystem and process entries: absolute paths or globs, optionally starting with a variable.
// Checked by expanding against a probe context, so the load-time check is exactly the run-time
// expansion (unknown variables, '~', relative paths, NUL and newline all fail here already).
inline void check_path_entry(std::string_view entry, std::string_view where) {
  for (const char c : entry)
    if (std::iscntrl(static_cast<unsigned char>(c)))
      throw Error(std::string(where) + ": " + quote_for_message(entry) +
                  " contains a control character (NUL, newline, ...); a path entry is one absolute path");
  static const Context probe{"/home", "/cwd", "/tmp", 0, 0};
  expand_variables(entry, probe, where);
  // A malformed glob ("/a/[b") would otherwise only fail when a backend compiles it. Variables
  // contain no glob characters, so the entry as written is checked.
  if (has_glob_chars(entry)) {
    try {
      Glob{std::string(entry)};
    } catch (const Error& e) {
      throw Error(std::string(where) + ": " + e.what());
    }
  }
}

// Network entries: "host:port" where host may be "*", "*.domain" or a bracketed IPv6 address and
// port is a number or "*".
inline void check_endpoint_entry(std::string_view entry, std::string_view where) {
  const auto fail = [&](std::string_view problem) {
    throw Error(std::string(where) + ": " + quote_for_message(entry) + ": " + std::string(problem) +
                "; write host:port, e.g. registry.npmjs.org:443, *.example.com:443, localhost:*");
  };
  for (const char c : entry)
    if (std::isspace(static_cast<unsigned char>(c)) || std::iscntrl(static_cast<unsigned char>(c)))
      fail("contains whitespace or a control character");
  const std::size_t colon = entry.rfind(':');
  if (colon == std::string_view::npos) fail("has no port");
  const std::string_view host = entry.substr(0, colon);
  const std::string_view port = entry.substr(colon + 1);
  if (host.empty()) fail("has no host");
  if (host.front() == '[' ? host.back() != ']' : host.find(':') != std::string_view::npos)
    fail("an IPv6 address must be written in brackets, e.g. [::1]:8080");
  if (port != "*") {
    if (port.empty() || port.size() > 5) fail("the port must be a number from 1 to 65535 or *");
    unsigned value = 0;
    for (const char c : port) {
      if (!std::isdigit(static_cast<unsigned char>(c))) fail("the port must be a number from 1 to 65535 or *");
      value = value * 10 + static_cast<unsigned>(c - '0');
    }
    if (value == 0 || value > 65535) fail("the port must be a number from 1 to 65535 or *");
  }
}

// Environment entries: a variable name or a name glob (npm_config_*).
inline void check_environment_entry(std::string_view entry, std::string_view where) {
  const auto fail = [&](std::string_view problem) {
    throw Error(std::string(where) + ": " + quote_for_message(entry) + ": " + std::string(problem) +
                "; write a variable name or a name glob, e.g. NPM_TOKEN or npm_config_*");
  };
  if (entry.empty()) fail("is empty");
  for (const char c : entry) {
    if (c == '=') fail("contains '='; list names only, never values");
    if (std::isspace(static_cast<unsigned char>(c)) || std::iscntrl(static_cast<unsigned char>(c)))
      fail("contains whitespace or a control character");
  }
  if (has_glob_chars(entry)) {
    try {
      Glob{std::string(entry)};
    } catch (const Error& e) {
      fail(e.what());
    }
  }
}

// Dispatches to the check for one kind of list entry.
inline void check_entry(EntryKind kind, std::string_view entry, std::string_view where) {
  switch (kind) {
    case EntryKind::path: return check_path_entry(entry, where);
    case EntryKind::endpoint: return check_endpoint_entry(entry, where);
    case EntryKind::environment: return check_environment_entry(entry, where);
  }
}

namespace detail {

inline std::string policy_origin(const Policy& policy) {
  if (!policy.source.empty()) return policy.source;
  return policy.name.empty() ? std::string("policy") : "policy " + policy.name;
}

}  // namespace detail

// Before inheritance: what every profile file must say about itself.
inline void validate_profile(const Policy& policy) {
  const std::string origin = detail::policy_origin(policy);
  if (policy.name.empty())
    throw Error(origin + ": the policy has no name; add a line 'name: <profile name>' at the top");
  check_profile_name(policy.name, origin + ": name");
  if (policy.package_managers.empty())
    throw Error(origin + ": policy '" + policy.name +
                "' names no package managers; add 'package_managers:' with at least one entry, e.g. '- npm'");
  for (std::size_t i = 0; i < policy.package_managers.size(); ++i)
    check_package_manager_name(policy.package_managers[i], origin + ": package_managers[" + std::to_string(i) + "]");
  if (policy.inherits) {
    check_profile_name(*policy.inherits, origin + ": inherits");
    if (*policy.inherits == policy.name)
      throw Error(origin + ": policy '" + policy.name +
                  "' inherits itself; name a built-in profile as parent, or give this profile its own name");
  }
  for_each_list_field(
      [&](const ListField& field, const std::vector<std::string>& list) {
        for (std::size_t i = 0; i < list.size(); ++i)
          check_entry(field.kind, list[i], origin + ": " + field.name() + "[" + std::to_string(i) + "]");
      },
      policy);
}

// True when the policy allows anything at all: a file to read or write, a program to run, a host
// to reach, an address to bind or a socket to connect to. (Environment entries grant no access.)
inline bool grants_any_access(const Policy& policy) {
  bool any = false;
  for_each_list_field(
      [&](const ListField& field, const std::vector<std::string>& list) {
        if (field.section != "environment" && field.key.starts_with("allow") && !list.empty()) any = true;
      },
      policy);
  return any;
}

// After inheritance: the policy a backend will enforce.
inline void validate_resolved_policy(const Policy& policy) {
  validate_profile(policy);
  if (!grants_any_access(policy))
    throw Error(detail::policy_origin(policy) + ": policy '" + policy.name +
                "' allows nothing (every allow list is empty), so no package manager could run under it; "
                "add filesystem.allow_read / allow_write, process.allow_exec or network.allow_outbound "
                "entries, or inherit from a built-in profile");
}

}  // namespace pmg
