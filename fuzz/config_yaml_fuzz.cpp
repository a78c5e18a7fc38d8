// Fuzz target: config.yml. Whatever the bytes, parse_config_yaml either throws pmg::Error or
// returns a configuration for which these hold:
//   - every package manager of the embedded default still has a policy (a config.yml that leaves
//     a key out must never drop a package manager's sandbox);
//   - every enabled policy names a profile; a profile given as a path is absolute and normalised;
//   - every policy template path is absolute and normalised.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "pmg/config.hpp"
#include "pmg/path.hpp"

namespace {

using pmg::fuzz::invariant_failed;
using pmg::fuzz::printable;

void check_path(const std::string& path, const std::string& what) {
  if (path.empty() || path.front() != '/' || pmg::normalize_path(path) != path ||
      path.find_first_of(std::string_view("\0\n", 2)) != std::string::npos)
    invariant_failed("config path is not absolute and normalised", what + ": " + printable(path));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const pmg::SandboxConfig defaults =
      pmg::parse_config_yaml("", "<empty>", "/home/fuzz/.config/pmg");
  pmg::SandboxConfig config;
  try {
    config = pmg::parse_config_yaml(text, "config.yml", "/home/fuzz/.config/pmg");
  } catch (const pmg::Error&) {
    return 0;
  }
  for (const auto& [pm, policy] : defaults.policies)
    if (config.policies.count(pm) == 0) invariant_failed("a default package manager lost its policy", pm);
  for (const auto& [pm, policy] : config.policies) {
    if (policy.enabled && policy.profile.empty())
      invariant_failed("an enabled policy has no profile", printable(pm));
    if (policy.profile.find('/') != std::string::npos) check_path(policy.profile, "sandbox.policies." + pm);
  }
  for (const auto& [name, path] : config.policy_templates)
    check_path(path.string(), "sandbox.policy_templates." + name);
  return 0;
}
