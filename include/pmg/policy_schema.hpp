#pragma once
// The YAML shape of a Policy, in the spec's key order: which keys exist, which lists belong to
// which section, and what kind of entry each list holds. The loader, the emitter, validation and
// inheritance all walk these tables, so a new policy key is added in one place.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/policy.hpp"

namespace pmg {

// What a list entry is, which decides how it is checked.
enum class EntryKind {
  path,         // absolute path or glob, may start with ${HOME}, ${CWD} or ${TMPDIR}
  endpoint,     // host:port
  environment,  // environment variable name or name glob
};

struct ListField {
  std::string_view section;  // "filesystem"
  std::string_view key;      // "allow_read"
  EntryKind kind;

  std::string name() const { return std::string(section) + "." + std::string(key); }
};

// Calls f(field, policies.<section>.<key>...) for every list of every section, in emit order.
// Passing several policies visits the same list of each side by side (inheritance merges them).
template <typename F, typename... P>
void for_each_list_field(F&& f, P&... policies) {
  f(ListField{"filesystem", "allow_read", EntryKind::path}, policies.filesystem.allow_read...);
  f(ListField{"filesystem", "allow_write", EntryKind::path}, policies.filesystem.allow_write...);
  f(ListField{"filesystem", "deny_read", EntryKind::path}, policies.filesystem.deny_read...);
  f(ListField{"filesystem", "deny_write", EntryKind::path}, policies.filesystem.deny_write...);
  f(ListField{"filesystem", "allow_unix_sockets", EntryKind::path}, policies.filesystem.allow_unix_sockets...);
  f(ListField{"network", "allow_outbound", EntryKind::endpoint}, policies.network.allow_outbound...);
  f(ListField{"network", "deny_outbound", EntryKind::endpoint}, policies.network.deny_outbound...);
  f(ListField{"network", "allow_bind", EntryKind::endpoint}, policies.network.allow_bind...);
  f(ListField{"process", "allow_exec", EntryKind::path}, policies.process.allow_exec...);
  f(ListField{"process", "deny_exec", EntryKind::path}, policies.process.deny_exec...);
  f(ListField{"environment", "allow", EntryKind::environment}, policies.environment.allow...);
  f(ListField{"environment", "deny", EntryKind::environment}, policies.environment.deny...);
}

// Calls f(key, policies.<key>...) for every optional boolean, in emit order.
template <typename F, typename... P>
void for_each_bool_field(F&& f, P&... policies) {
  f(std::string_view("allow_pty"), policies.allow_pty...);
  f(std::string_view("allow_git_config"), policies.allow_git_config...);
  f(std::string_view("allow_network_bind"), policies.allow_network_bind...);
}

// Top-level keys in the spec's order (the emitter writes them in this order).
inline const std::vector<std::string>& policy_top_level_keys() {
  static const std::vector<std::string> keys{
      "name",      "description",        "inherits",   "package_managers", "allow_pty", "allow_git_config",
      "allow_network_bind", "filesystem", "network", "process",          "environment"};
  return keys;
}

inline constexpr std::array<std::string_view, 4> policy_sections{"filesystem", "network", "process", "environment"};

// The keys allowed inside one section, in emit order.
inline std::vector<std::string> policy_section_keys(std::string_view section) {
  std::vector<std::string> keys;
  Policy unused;
  for_each_list_field(
      [&](const ListField& field, const std::vector<std::string>&) {
        if (field.section == section) keys.emplace_back(field.key);
      },
      unused);
  return keys;
}

}  // namespace pmg
