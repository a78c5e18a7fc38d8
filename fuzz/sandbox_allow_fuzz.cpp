// Fuzz target: --sandbox-allow. Each input line is one flag value. parse_override either throws
// pmg::UsageError (the host's exit 2; any other exception is a bug) or returns an override whose
// value is well-formed for its type. The parsed overrides are then applied to a resolved built-in
// profile, and the result must differ from the profile exactly as the spec allows:
//   - each value is in its allow list (net-bind also sets allow_network_bind);
//   - a deny entry is removed only when it is literal (no glob characters) and expands to the
//     value of an override of its type; glob denies always stay;
//   - no other list or boolean changes, and the mandatory denies are the same as before;
//   - the result still expands against the Context.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "pmg/glob.hpp"
#include "pmg/mandatory.hpp"
#include "pmg/overrides.hpp"
#include "pmg/path.hpp"
#include "pmg/policy_schema.hpp"
#include "pmg/profile_registry.hpp"
#include "pmg/variables.hpp"

namespace {

using pmg::OverrideType;
using pmg::fuzz::fuzz_context;
using pmg::fuzz::invariant_failed;
using pmg::fuzz::printable;

constexpr std::size_t max_overrides = 16;

const std::vector<pmg::Policy>& builtin_policies() {
  static const std::vector<pmg::Policy> policies = [] {
    std::vector<pmg::Policy> out;
    const pmg::ProfileRegistry registry = pmg::ProfileRegistry::builtin_only();
    for (const std::string& name : registry.builtin_names()) out.push_back(registry.resolve(name));
    return out;
  }();
  return policies;
}

bool is_path_type(OverrideType type) {
  return type == OverrideType::read || type == OverrideType::write || type == OverrideType::exec;
}

void check_parsed(const pmg::Override& o, std::string_view raw) {
  const std::string what = "--sandbox-allow " + printable(raw) + " -> " + printable(o.value);
  if (o.raw != raw) invariant_failed("Override::raw is not the flag value", what);
  const std::string_view after_eq = raw.substr(raw.find('=') + 1);
  if (is_path_type(o.type)) {
    if (o.value.empty() || o.value.front() != '/' || pmg::normalize_path(o.value) != o.value ||
        o.value.find_first_of(std::string_view("\0\n", 2)) != std::string::npos)
      invariant_failed("a path override is not absolute and normalised", what);
    if (o.type == OverrideType::exec && pmg::has_glob_chars(o.value))
      invariant_failed("an exec override holds a glob", what);
    if (pmg::has_glob_chars(o.value)) {
      try {
        pmg::Glob glob(o.value);
      } catch (const pmg::Error& e) {
        invariant_failed("a path override holds a malformed glob", what + "\n" + e.what());
      }
    }
  } else if (o.value != after_eq) {
    invariant_failed("a network or env override changed its value", what);
  }
  if (o.type == OverrideType::env &&
      (o.value.empty() || o.value.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") !=
                              std::string::npos))
    invariant_failed("an env override is not a variable name", what);
}

// The allow and deny list an override of `type` touches, by field name; "" when none.
std::pair<std::string_view, std::string_view> lists_of(OverrideType type) {
  switch (type) {
    case OverrideType::read: return {"filesystem.allow_read", "filesystem.deny_read"};
    case OverrideType::write: return {"filesystem.allow_write", "filesystem.deny_write"};
    case OverrideType::exec: return {"process.allow_exec", "process.deny_exec"};
    case OverrideType::net_connect: return {"network.allow_outbound", "network.deny_outbound"};
    case OverrideType::net_bind: return {"network.allow_bind", ""};
    case OverrideType::env: return {"environment.allow", "environment.deny"};
  }
  return {"", ""};
}

void check_applied(const pmg::Policy& before, const pmg::Policy& after, const std::vector<pmg::Override>& overrides) {
  const pmg::Context& ctx = fuzz_context();
  pmg::for_each_list_field(
      [&](const pmg::ListField& field, const std::vector<std::string>& old_list, const std::vector<std::string>& new_list) {
        const std::string name = field.name();
        std::vector<const pmg::Override*> mine_allow, mine_deny;
        for (const pmg::Override& o : overrides) {
          if (lists_of(o.type).first == name) mine_allow.push_back(&o);
          if (lists_of(o.type).second == name) mine_deny.push_back(&o);
        }
        // Allow lists: the old entries in order, then the new values not already present.
        std::vector<std::string> expected = old_list;
        for (const pmg::Override* o : mine_allow)
          if (std::find(expected.begin(), expected.end(), o->value) == expected.end()) expected.push_back(o->value);
        if (!mine_deny.empty()) {
          // Deny lists: exactly the literal entries equal (after expansion) to a value are gone.
          expected.clear();
          for (const std::string& entry : old_list) {
            const bool removable =
                !pmg::has_glob_chars(entry) &&
                std::any_of(mine_deny.begin(), mine_deny.end(), [&](const pmg::Override* o) {
                  const std::string value = is_path_type(o->type) ? pmg::expand_variables(entry, ctx, name) : entry;
                  return value == o->value;
                });
            if (!removable) expected.push_back(entry);
          }
        }
        if (new_list != expected) {
          std::string detail = name + "\nbefore:";
          for (const auto& e : old_list) detail += " " + printable(e);
          detail += "\nafter: ";
          for (const auto& e : new_list) detail += " " + printable(e);
          for (const auto& o : overrides) detail += "\noverride: " + printable(o.raw);
          invariant_failed("apply_overrides changed a list in a way the spec does not allow", detail);
        }
      },
      before, after);
  const bool binds = std::any_of(overrides.begin(), overrides.end(),
                                 [](const pmg::Override& o) { return o.type == OverrideType::net_bind; });
  if (after.allow_network_bind != (binds ? std::optional<bool>(true) : before.allow_network_bind))
    invariant_failed("apply_overrides got allow_network_bind wrong", "");
  if (after.allow_pty != before.allow_pty || after.allow_git_config != before.allow_git_config ||
      after.name != before.name || after.package_managers != before.package_managers)
    invariant_failed("apply_overrides changed something other than lists", "");
  if (pmg::mandatory_denies(after, ctx) != pmg::mandatory_denies(before, ctx))
    invariant_failed("overrides changed the mandatory denies", "");
  try {
    pmg::expand_policy(after, ctx);
  } catch (const pmg::Error& e) {
    invariant_failed("the policy no longer expands after overrides", e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  // The first byte picks the built-in profile the overrides are applied to.
  const std::vector<pmg::Policy>& policies = builtin_policies();
  const pmg::Policy& before = policies[data[0] % policies.size()];
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);

  std::vector<pmg::Override> overrides;
  std::size_t pos = 0;
  while (pos <= input.size() && overrides.size() < max_overrides) {
    std::size_t end = input.find('\n', pos);
    if (end == std::string_view::npos) end = input.size();
    const std::string_view raw = input.substr(pos, end - pos);
    pos = end + 1;
    try {
      overrides.push_back(pmg::parse_override(raw, fuzz_context()));
    } catch (const pmg::UsageError& e) {
      if (std::string_view(e.what()).find("--sandbox-allow") == std::string_view::npos)
        invariant_failed("a --sandbox-allow error does not name the flag", e.what());
      continue;
    }
    check_parsed(overrides.back(), raw);
  }
  if (overrides.empty()) return 0;

  pmg::Policy after = before;
  try {
    pmg::apply_overrides(after, overrides, fuzz_context());
  } catch (const pmg::Error& e) {
    invariant_failed("apply_overrides threw on parsed overrides and a valid policy", e.what());
  }
  check_applied(before, after, overrides);
  return 0;
}
