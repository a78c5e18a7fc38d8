#pragma once
// Where profiles come from and how a name becomes the policy a backend enforces.
//
// A name is looked up as: a policy template from config.yml (name -> file), then a user profile
// (<config dir>/profiles/NAME.yml or .yaml), then a built-in profile (profiles/*.yml, embedded at
// build time so an installed binary and the build tree carry the same ones). Anything containing
// '/' or ending in .yml/.yaml is a path to a policy file instead. resolve() then applies the
// spec's single-level inheritance: the parent must be a built-in profile that inherits nothing.
#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "pmg/builtin_profiles_data.hpp"
#include "pmg/config.hpp"
#include "pmg/error.hpp"
#include "pmg/inheritance.hpp"
#include "pmg/log.hpp"
#include "pmg/policy.hpp"
#include "pmg/policy_yaml.hpp"
#include "pmg/suggest.hpp"
#include "pmg/validation.hpp"

namespace pmg {

enum class ProfileOrigin { builtin, user, policy_template, path };

inline std::string_view to_string(ProfileOrigin origin) {
  switch (origin) {
    case ProfileOrigin::builtin: return "builtin";
    case ProfileOrigin::user: return "user";
    case ProfileOrigin::policy_template: return "template";
    case ProfileOrigin::path: return "path";
  }
  return "unknown";
}

struct ProfileEntry {
  std::string name;
  ProfileOrigin origin = ProfileOrigin::builtin;
  std::string source;     // "builtin:NAME" or the file's path
  bool shadowed = false;  // a template or user profile of the same name is used instead

  bool operator==(const ProfileEntry&) const = default;
};

class ProfileRegistry {
 public:
  // `user_profile_dir` may be empty (no user profiles) or missing (none yet). Template paths
  // should be absolute (load_config makes them so).
  ProfileRegistry(std::filesystem::path user_profile_dir, std::map<std::string, std::filesystem::path> templates)
      : user_profile_dir_(std::move(user_profile_dir)), templates_(std::move(templates)) {}

  static ProfileRegistry builtin_only() { return ProfileRegistry({}, {}); }

  // User profiles from <config dir>/profiles, templates from sandbox.policy_templates.
  static ProfileRegistry from_config(const Config& config) {
    return ProfileRegistry(config.profile_dir(), config.sandbox.policy_templates);
  }

  // Whether a --sandbox-profile value is a file path rather than a profile name.
  static bool is_path(std::string_view name_or_path) {
    return name_or_path.find('/') != std::string_view::npos || name_or_path.ends_with(".yml") ||
           name_or_path.ends_with(".yaml");
  }

  const std::filesystem::path& user_profile_dir() const { return user_profile_dir_; }
  const std::map<std::string, std::filesystem::path>& templates() const { return templates_; }

  std::vector<std::string> builtin_names() const {
    std::vector<std::string> names;
    for (const auto& embedded : embedded()) names.emplace_back(embedded.name);
    return names;
  }

  bool is_builtin(std::string_view name) const {
    const auto all = embedded();
    return std::any_of(all.begin(), all.end(), [&](const auto& e) { return e.name == name; });
  }

  // A built-in profile as written (not inherited).
  Policy builtin(std::string_view name) const {
    for (const auto& embedded_profile : embedded()) {
      if (embedded_profile.name != name) continue;
      Policy policy = parse_policy_yaml(embedded_profile.yaml, "builtin:" + std::string(name));
      if (policy.name != name)
        throw Error("built-in profile file profiles/" + std::string(name) + ".yml declares name '" + policy.name +
                    "'; the name must match the file name");
      return policy;
    }
    throw Error("'" + std::string(name) + "' is not a built-in profile; built-in profiles: " +
                join_names(builtin_names()));
  }

  // Which profile `name_or_path` means. Error for an unknown name, listing the available ones.
  ProfileEntry find(std::string_view name_or_path) const {
    if (is_path(name_or_path)) return {std::string(name_or_path), ProfileOrigin::path, std::string(name_or_path)};
    const std::string name(name_or_path);
    if (auto it = templates_.find(name); it != templates_.end())
      return {name, ProfileOrigin::policy_template, it->second.string()};
    if (auto file = user_profile_file(name)) return {name, ProfileOrigin::user, file->string()};
    if (is_builtin(name)) return {name, ProfileOrigin::builtin, "builtin:" + name};
    throw Error(unknown_profile_message(name));
  }

  // The profile as written: parsed and validated on its own, inheritance not applied.
  Policy load(std::string_view name_or_path) const {
    const ProfileEntry entry = find(name_or_path);
    switch (entry.origin) {
      case ProfileOrigin::builtin: return builtin(entry.name);
      case ProfileOrigin::user:
      case ProfileOrigin::path: return load_policy_file(entry.source);
      case ProfileOrigin::policy_template:
        try {
          return load_policy_file(entry.source);
        } catch (const Error& e) {
          throw Error("policy template '" + entry.name + "' (sandbox.policy_templates." + entry.name +
                      ".path in config.yml): " + e.what());
        }
    }
    throw Error("internal: unhandled profile origin");
  }

  // The policy to enforce: loaded, its built-in parent merged in, validated as a whole.
  Policy resolve(std::string_view name_or_path) const {
    Policy child = load(name_or_path);
    if (!child.inherits) {
      validate_resolved_policy(child);
      return child;
    }
    const std::string& parent_name = *child.inherits;
    const std::string context = child.source + ": profile '" + child.name + "' inherits '" + parent_name + "'";
    if (!is_builtin(parent_name)) {
      if (is_custom(parent_name)) {
        const ProfileEntry parent = find(parent_name);
        throw Error(context + ", which is a " + std::string(to_string(parent.origin)) + " profile (" + parent.source +
                    "); a profile can inherit only from a built-in profile (" + join_names(builtin_names()) +
                    "): inherit from one of those and copy the rules you need from '" + parent_name + "'");
      }
      std::string message = context + ", which is not a built-in profile";
      if (auto guess = closest_match(parent_name, builtin_names())) message += "; did you mean '" + *guess + "'?";
      throw Error(message + "; built-in profiles: " + join_names(builtin_names()));
    }
    const Policy parent = builtin(parent_name);
    if (parent.inherits)
      throw Error(context + ", which itself inherits '" + *parent.inherits +
                  "'; inheritance is single-level: inherit from '" + *parent.inherits +
                  "' and copy the rules you need from '" + parent_name + "'");
    Policy result = inherit(parent, child);
    validate_resolved_policy(result);
    return result;
  }

  // Every profile that can be named, in lookup order (templates, user profiles, built-ins; each
  // sorted by name). An entry hidden by an earlier one of the same name is marked shadowed.
  std::vector<ProfileEntry> list() const {
    std::vector<ProfileEntry> entries;
    for (const auto& [name, file] : templates_) entries.push_back({name, ProfileOrigin::policy_template, file.string()});
    for (auto& [name, file] : user_profile_files()) entries.push_back({name, ProfileOrigin::user, file.string()});
    for (const std::string& name : builtin_names()) entries.push_back({name, ProfileOrigin::builtin, "builtin:" + name});
    std::set<std::string, std::less<>> seen;
    for (ProfileEntry& entry : entries) entry.shadowed = !seen.insert(entry.name).second;
    return entries;
  }

 private:
  static std::span<const detail::EmbeddedProfile> embedded() {
    if (detail::embedded_profiles.empty())
      throw Error("this pmg was built without built-in profiles (profiles/*.yml was empty when it was configured); "
                  "rebuild it from a complete source tree");
    return {detail::embedded_profiles.data(), detail::embedded_profiles.size()};
  }

  bool is_custom(std::string_view name) const {
    return templates_.count(std::string(name)) != 0 || user_profile_file(std::string(name)).has_value();
  }

  // <dir>/NAME.yml or <dir>/NAME.yaml, if one exists. Both existing is ambiguous.
  std::optional<std::filesystem::path> user_profile_file(const std::string& name) const {
    if (user_profile_dir_.empty() || !is_valid_profile_name(name)) return std::nullopt;
    std::optional<std::filesystem::path> found;
    for (const char* extension : {".yml", ".yaml"}) {
      std::filesystem::path file = user_profile_dir_ / (name + extension);
      std::error_code ec;
      const auto status = std::filesystem::status(file, ec);
      if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
        throw Error("cannot read user profile " + file.string() + ": " + ec.message());
      if (!std::filesystem::exists(status)) continue;
      if (found)
        throw Error("user profile '" + name + "' exists twice, as " + found->string() + " and " + file.string() +
                    "; remove one of them");
      found = std::move(file);
    }
    return found;
  }

  // name -> file for every user profile; files whose stem is not a valid profile name are
  // reported and skipped, since they could not be named on the command line anyway.
  std::map<std::string, std::filesystem::path> user_profile_files() const {
    std::map<std::string, std::filesystem::path> files;
    if (user_profile_dir_.empty()) return files;
    std::error_code ec;
    if (!std::filesystem::exists(user_profile_dir_, ec) && !ec) return files;
    std::filesystem::directory_iterator it(user_profile_dir_, ec);
    if (ec) throw Error("cannot read the user profile directory " + user_profile_dir_.string() + ": " + ec.message());
    for (const auto& item : it) {
      const std::filesystem::path& file = item.path();
      const std::string extension = file.extension().string();
      if (extension != ".yml" && extension != ".yaml") continue;
      const std::string name = file.stem().string();
      if (!is_valid_profile_name(name)) {
        log_warn("ignoring user profile {}: '{}' is not a valid profile name (letters, digits, '.', '_', '-')",
                 file.string(), name);
        continue;
      }
      if (files.count(name) != 0)
        throw Error("user profile '" + name + "' exists twice, as " + files[name].string() + " and " + file.string() +
                    "; remove one of them");
      files[name] = file;
    }
    return files;
  }

  std::string unknown_profile_message(const std::string& name) const {
    std::vector<std::string> names;
    for (const ProfileEntry& entry : list())
      if (!entry.shadowed) names.push_back(entry.name);
    std::sort(names.begin(), names.end());
    std::string message = "unknown sandbox profile '" + name + "'";
    if (auto guess = closest_match(name, names)) message += "; did you mean '" + *guess + "'?";
    return message + "; available profiles: " + join_names(names) +
           " (or give a path to a policy file, e.g. ./my-policy.yml)";
  }

  std::filesystem::path user_profile_dir_;
  std::map<std::string, std::filesystem::path> templates_;
};

}  // namespace pmg
