#pragma once
// `pmg sandbox profile diff A B`: what changes, rule by rule, when B is used instead of A. Both
// policies are compared resolved (inheritance applied) and unexpanded, as their authors wrote the
// rules; the mandatory denies are compared expanded for the current Context, since
// allow_git_config changes them.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "pmg/context.hpp"
#include "pmg/mandatory.hpp"
#include "pmg/policy.hpp"
#include "pmg/policy_schema.hpp"

namespace pmg {

// One field that differs. Lists are compared as sets (order is not a rule); a scalar that differs
// is one entry removed and one added. An unset boolean is "unset".
struct FieldDiff {
  std::string field;                 // "description", "allow_pty", "filesystem.allow_read", "mandatory.deny_write"
  std::vector<std::string> removed;  // in A only
  std::vector<std::string> added;    // in B only

  bool operator==(const FieldDiff&) const = default;
};

namespace detail {

inline std::vector<std::string> missing_from(const std::vector<std::string>& from, const std::vector<std::string>& in) {
  std::vector<std::string> out;
  for (const std::string& entry : from)
    if (std::find(in.begin(), in.end(), entry) == in.end() && std::find(out.begin(), out.end(), entry) == out.end())
      out.push_back(entry);
  return out;
}

inline void diff_list(std::vector<FieldDiff>& out, std::string field, const std::vector<std::string>& a,
                      const std::vector<std::string>& b) {
  FieldDiff d{std::move(field), missing_from(a, b), missing_from(b, a)};
  if (!d.removed.empty() || !d.added.empty()) out.push_back(std::move(d));
}

inline void diff_scalar(std::vector<FieldDiff>& out, std::string field, const std::optional<std::string>& a,
                        const std::optional<std::string>& b) {
  if (a == b) return;
  FieldDiff d{std::move(field), {}, {}};
  if (a) d.removed.push_back(*a);
  if (b) d.added.push_back(*b);
  out.push_back(std::move(d));
}

inline std::string bool_text(const std::optional<bool>& value) {
  return value ? (*value ? "true" : "false") : "unset";
}

}  // namespace detail

// The differences from `a` to `b`, in the spec's key order. Names and sources are not compared:
// they always differ and say nothing about what the sandbox allows.
inline std::vector<FieldDiff> diff_policies(const Policy& a, const Policy& b, const Context& ctx) {
  std::vector<FieldDiff> out;
  const auto text = [](const std::string& s) { return s.empty() ? std::optional<std::string>() : s; };
  detail::diff_scalar(out, "description", text(a.description), text(b.description));
  detail::diff_scalar(out, "inherits", a.inherits, b.inherits);
  detail::diff_list(out, "package_managers", a.package_managers, b.package_managers);
  for_each_bool_field(
      [&](std::string_view key, const std::optional<bool>& va, const std::optional<bool>& vb) {
        if (va != vb) out.push_back({std::string(key), {detail::bool_text(va)}, {detail::bool_text(vb)}});
      },
      a, b);
  for_each_list_field(
      [&](const ListField& field, const std::vector<std::string>& la, const std::vector<std::string>& lb) {
        detail::diff_list(out, field.name(), la, lb);
      },
      a, b);
  const MandatoryDenies ma = mandatory_denies(a, ctx);
  const MandatoryDenies mb = mandatory_denies(b, ctx);
  detail::diff_list(out, "mandatory.deny_read_write", ma.deny_read_write, mb.deny_read_write);
  detail::diff_list(out, "mandatory.deny_write", ma.deny_write, mb.deny_write);
  return out;
}

}  // namespace pmg
