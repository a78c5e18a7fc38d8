#pragma once
// Single-level profile inheritance (spec): a child profile extends one built-in parent. Which
// parent is allowed is the registry's decision (profile_registry.hpp); this is the merge.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/error.hpp"
#include "pmg/policy.hpp"
#include "pmg/policy_schema.hpp"

namespace pmg {

// `base` followed by each entry of `extra` not already present; duplicates within either side are
// dropped too, so the result lists every rule once, parent's rules first.
inline std::vector<std::string> union_entries(const std::vector<std::string>& base,
                                              const std::vector<std::string>& extra) {
  std::vector<std::string> out;
  out.reserve(base.size() + extra.size());
  for (const auto* side : {&base, &extra})
    for (const std::string& entry : *side)
      if (std::find(out.begin(), out.end(), entry) == out.end()) out.push_back(entry);
  return out;
}

// The child's rules added to the parent's: every allow and deny list is the union (parent first),
// a boolean the child sets overrides the parent's, and name, description, package_managers and
// source are the child's. The result keeps the child's `inherits` so tools can show where its
// rules came from. A parent that itself inherits would make this a chain, which the spec forbids.
inline Policy inherit(const Policy& parent, const Policy& child) {
  if (parent.inherits)
    throw Error("profile '" + child.name + "' cannot inherit from '" + parent.name + "', which itself inherits '" +
                *parent.inherits + "': inheritance is single-level");
  Policy result = child;
  for_each_list_field(
      [](const ListField&, std::vector<std::string>& out, const std::vector<std::string>& from_parent,
         const std::vector<std::string>& from_child) { out = union_entries(from_parent, from_child); },
      result, parent, child);
  for_each_bool_field(
      [](std::string_view, std::optional<bool>& out, const std::optional<bool>& from_parent,
         const std::optional<bool>& from_child) { out = from_child ? from_child : from_parent; },
      result, parent, child);
  return result;
}

}  // namespace pmg
