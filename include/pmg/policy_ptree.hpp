#pragma once
// A Policy as a Boost.PropertyTree, for `--json` output. Keys follow the YAML; empty lists and
// unset booleans are left out, as in emit_policy_yaml (PropertyTree would write an empty list as
// ""). Values are JSON strings: PropertyTree's writer quotes every value.
#include <boost/property_tree/ptree.hpp>
#include <string>
#include <vector>

#include "pmg/policy.hpp"
#include "pmg/policy_schema.hpp"

namespace pmg {

// `values` as a JSON array.
inline boost::property_tree::ptree string_array(const std::vector<std::string>& values) {
  boost::property_tree::ptree array;
  for (const std::string& v : values) array.push_back({"", boost::property_tree::ptree(v)});
  return array;
}

inline boost::property_tree::ptree policy_to_ptree(const Policy& policy) {
  boost::property_tree::ptree tree;
  tree.put("name", policy.name);
  if (!policy.description.empty()) tree.put("description", policy.description);
  if (policy.inherits) tree.put("inherits", *policy.inherits);
  if (!policy.package_managers.empty()) tree.add_child("package_managers", string_array(policy.package_managers));
  for_each_bool_field(
      [&](std::string_view key, const std::optional<bool>& value) {
        if (value) tree.put(std::string(key), *value);
      },
      policy);
  for_each_list_field(
      [&](const ListField& field, const std::vector<std::string>& list) {
        if (!list.empty()) tree.add_child(field.name(), string_array(list));  // "filesystem.allow_read": nested
      },
      policy);
  return tree;
}

}  // namespace pmg
