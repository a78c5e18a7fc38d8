#pragma once
// The policy data model, exactly the YAML of the spec. Plain values; loading, inheritance and
// expansion live in their own headers.
#include <optional>
#include <string>
#include <vector>

namespace pmg {

struct FilesystemRules {
  std::vector<std::string> allow_read;
  std::vector<std::string> allow_write;
  std::vector<std::string> deny_read;
  std::vector<std::string> deny_write;
  // Unix socket paths the sandbox may connect to; every other socket under an allowed path is
  // hidden (see docs/protection.md).
  std::vector<std::string> allow_unix_sockets;

  bool operator==(const FilesystemRules&) const = default;
};

struct NetworkRules {
  std::vector<std::string> allow_outbound;  // "host:port", "*.example.com:443", "host:*"
  std::vector<std::string> deny_outbound;
  std::vector<std::string> allow_bind;  // "127.0.0.1:3000"

  bool operator==(const NetworkRules&) const = default;
};

struct ProcessRules {
  std::vector<std::string> allow_exec;
  std::vector<std::string> deny_exec;

  bool operator==(const ProcessRules&) const = default;
};

// Environment variables passed to the sandboxed process (names or name globs).
struct EnvironmentRules {
  std::vector<std::string> allow;
  std::vector<std::string> deny;

  bool operator==(const EnvironmentRules&) const = default;
};

struct Policy {
  std::string name;
  std::string description;
  std::optional<std::string> inherits;
  std::vector<std::string> package_managers;
  FilesystemRules filesystem;
  NetworkRules network;
  ProcessRules process;
  EnvironmentRules environment;
  // Unset is distinct from false so that a child profile can inherit the parent's value.
  std::optional<bool> allow_pty;
  std::optional<bool> allow_git_config;
  std::optional<bool> allow_network_bind;
  // Where the policy was read from ("builtin:npm-restrictive" or a file path), for messages.
  std::string source;

  bool operator==(const Policy&) const = default;
};

}  // namespace pmg
