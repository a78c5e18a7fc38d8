#pragma once
// Policy files <-> Policy values. Loading is strict (unknown keys with a suggestion, wrong types,
// malformed entries, missing name or package managers: all Errors "source:line:col: ..."), because
// a typo in a security policy must never silently mean "no rule". Emitting writes the keys in the
// spec's order and round-trips: parse_policy_yaml(emit_policy_yaml(p), p.source) == p.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/error.hpp"
#include "pmg/policy.hpp"
#include "pmg/policy_schema.hpp"
#include "pmg/strict_yaml.hpp"
#include "pmg/validation.hpp"

namespace pmg {

// A parsed policy together with where each part of it was written, for tools that point at a line
// (lint). Keys: "name", "filesystem", "filesystem.allow_read", "filesystem.allow_read[2]", ...
struct PolicyDocument {
  Policy policy;
  std::map<std::string, SourceLocation> locations;
};

// Parses and validates (validate_profile) one policy. `source` names the text in messages and is
// stored in Policy::source.
inline PolicyDocument parse_policy_document(std::string_view text, std::string_view source) {
  PolicyDocument doc;
  Policy& policy = doc.policy;
  policy.source = std::string(source);
  const YAML::Node root = load_yaml_document(text, source);
  if (root.IsNull())
    throw Error(std::string(source) +
                ": the policy is empty; a policy needs at least 'name:' and 'package_managers:'");
  if (!root.IsMap())
    fail_at(source, root,
            "a policy must be a mapping of keys (name:, package_managers:, filesystem:, ...), not " +
                std::string(detail::kind_name(root)));

  const auto at = [&](SourceLocation location) { return describe_location(source, location); };
  for (const YamlField& field :
       read_mapping(root, source, "the policy", "at the top level of the policy", policy_top_level_keys())) {
    const std::string& key = field.key;
    doc.locations[key] = to_location(field.key_node.Mark());
    if (key == "name") {
      policy.name = read_string(field.value, source, key);
      check_profile_name(policy.name, at(to_location(field.value.Mark())) + ": name");
    } else if (key == "description") {
      policy.description = read_string(field.value, source, key);
    } else if (key == "inherits") {
      policy.inherits = read_string(field.value, source, key);
      check_profile_name(*policy.inherits, at(to_location(field.value.Mark())) + ": inherits");
    } else if (key == "package_managers") {
      for (auto& [entry, location] : read_string_list(field.value, source, key)) {
        doc.locations[key + "[" + std::to_string(policy.package_managers.size()) + "]"] = location;
        check_package_manager_name(entry, at(location) + ": package_managers");
        policy.package_managers.push_back(std::move(entry));
      }
    } else if (std::find(policy_sections.begin(), policy_sections.end(), key) != policy_sections.end()) {
      for (const YamlField& item :
           read_mapping(field.value, source, key, "in " + key, policy_section_keys(key))) {
        for_each_list_field(
            [&](const ListField& list_field, std::vector<std::string>& list) {
              if (list_field.section != key || list_field.key != item.key) return;
              const std::string name = list_field.name();
              doc.locations[name] = to_location(item.key_node.Mark());
              for (auto& [entry, location] : read_string_list(item.value, source, name)) {
                doc.locations[name + "[" + std::to_string(list.size()) + "]"] = location;
                check_entry(list_field.kind, entry, at(location) + ": " + name);
                list.push_back(std::move(entry));
              }
            },
            policy);
      }
    } else {
      for_each_bool_field(
          [&](std::string_view bool_key, std::optional<bool>& value) {
            if (bool_key == key) value = read_bool(field.value, source, key);
          },
          policy);
    }
  }
  validate_profile(policy);
  return doc;
}

inline Policy parse_policy_yaml(std::string_view text, std::string_view source) {
  return parse_policy_document(text, source).policy;
}

inline PolicyDocument load_policy_document(const std::filesystem::path& file) {
  return parse_policy_document(read_yaml_file(file, "policy file"), file.string());
}

inline Policy load_policy_file(const std::filesystem::path& file) {
  return load_policy_document(file).policy;
}

// YAML for `policy` with keys in the spec's order; unset booleans, empty strings, empty lists and
// empty sections are left out. Policy::source is not part of the document.
inline std::string emit_policy_yaml(const Policy& policy) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << policy.name;
  if (!policy.description.empty()) out << YAML::Key << "description" << YAML::Value << policy.description;
  if (policy.inherits) out << YAML::Key << "inherits" << YAML::Value << *policy.inherits;
  const auto emit_list = [&](std::string_view key, const std::vector<std::string>& list) {
    out << YAML::Key << std::string(key) << YAML::Value << YAML::BeginSeq;
    for (const std::string& entry : list) out << entry;
    out << YAML::EndSeq;
  };
  if (!policy.package_managers.empty()) emit_list("package_managers", policy.package_managers);
  for_each_bool_field(
      [&](std::string_view key, const std::optional<bool>& value) {
        if (value) out << YAML::Key << std::string(key) << YAML::Value << *value;
      },
      policy);
  for (const std::string_view section : policy_sections) {
    bool open = false;
    for_each_list_field(
        [&](const ListField& field, const std::vector<std::string>& list) {
          if (field.section != section || list.empty()) return;
          if (!open) out << YAML::Key << std::string(section) << YAML::Value << YAML::BeginMap;
          open = true;
          emit_list(field.key, list);
        },
        policy);
    if (open) out << YAML::EndMap;
  }
  out << YAML::EndMap;
  if (!out.good()) throw Error("cannot write policy '" + policy.name + "' as YAML: " + out.GetLastError());
  return std::string(out.c_str()) + "\n";
}

}  // namespace pmg
