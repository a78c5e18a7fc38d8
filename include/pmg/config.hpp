#pragma once
// config.yml: whether the sandbox is on, which profile each package manager runs under, and the
// policy templates that map a profile name to a file. Read as strictly as policies (unknown keys
// with a suggestion, positions in every message). A config.yml only needs the keys it changes:
// it is applied on top of the embedded default below, so leaving a key out never turns the
// sandbox off or drops a package manager's policy.
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "pmg/error.hpp"
#include "pmg/path.hpp"
#include "pmg/strict_yaml.hpp"
#include "pmg/validation.hpp"

namespace pmg {

struct PackageManagerPolicy {
  bool enabled = true;  // false: run this package manager unsandboxed (with a warning)
  std::string profile;  // profile name, or an absolute path to a policy file

  bool operator==(const PackageManagerPolicy&) const = default;
};

struct SandboxConfig {
  bool enabled = false;
  bool enforce_always = false;         // false: only installing/executing commands are sandboxed
  std::optional<std::string> backend;  // unset: the platform's default backend
  std::map<std::string, PackageManagerPolicy> policies;               // by package manager name
  std::map<std::string, std::filesystem::path> policy_templates;     // profile name -> absolute file

  bool operator==(const SandboxConfig&) const = default;
};

struct Config {
  SandboxConfig sandbox;
  std::filesystem::path dir;   // the config directory
  std::filesystem::path file;  // dir/config.yml, whether or not it exists
  bool from_file = false;      // false: config.yml does not exist and only the embedded default applies

  std::filesystem::path profile_dir() const { return dir / "profiles"; }
  bool operator==(const Config&) const = default;
};

// The configuration used when the user has no config.yml; also the base a config.yml overrides.
inline std::string_view default_config_yaml() {
  return R"yaml(# pmg's built-in configuration. A config.yml in the config directory is applied on top of it:
# only the keys it sets change.
sandbox:
  enabled: true
  enforce_always: false
  policies:
    npm: {enabled: true, profile: npm-restrictive}
    yarn: {enabled: true, profile: npm-restrictive}
    bun: {enabled: true, profile: npm-restrictive}
    pnpm: {enabled: true, profile: pnpm-restrictive}
    npx: {enabled: true, profile: npx}
    pnpx: {enabled: true, profile: npx}
    pip: {enabled: true, profile: pypi-restrictive}
    pip3: {enabled: true, profile: pypi-restrictive}
    poetry: {enabled: true, profile: pypi-restrictive}
    uv: {enabled: true, profile: pypi-restrictive}
)yaml";
}

namespace detail {

inline std::string config_key_location(std::string_view source, const YAML::Node& node) {
  return describe_location(source, to_location(node.Mark()));
}

// Relative paths in config.yml mean relative to the config directory, wherever pmg runs from.
inline std::filesystem::path config_relative_path(const YAML::Node& node, std::string_view source,
                                                  std::string_view what, const std::filesystem::path& dir) {
  const std::string text = read_string(node, source, what);
  if (text.empty()) fail_at(source, node, std::string(what) + " is empty; write a path to a policy file");
  if (text.front() == '~')
    fail_at(source, node, std::string(what) + " \"" + text +
                              "\": '~' is not expanded here; write an absolute path or one relative to the config directory");
  if (text.find('\n') != std::string::npos) fail_at(source, node, std::string(what) + " contains a newline");
  return join_path(dir.string(), text);
}

// Applies one config document on top of `config`: keys present replace, keys absent stay.
inline void apply_config_yaml(SandboxConfig& config, std::string_view text, std::string_view source,
                              const std::filesystem::path& dir) {
  const YAML::Node root = load_yaml_document(text, source);
  static const std::vector<std::string> top_keys{"sandbox"};
  static const std::vector<std::string> sandbox_keys{"enabled", "enforce_always", "backend", "policies",
                                                     "policy_templates"};
  static const std::vector<std::string> policy_keys{"enabled", "profile"};
  static const std::vector<std::string> template_keys{"path"};
  for (const YamlField& top : read_mapping(root, source, "the config file", "at the top level of the config", top_keys)) {
    for (const YamlField& field : read_mapping(top.value, source, "sandbox", "in sandbox", sandbox_keys)) {
      const std::string key = "sandbox." + field.key;
      if (field.key == "enabled") {
        config.enabled = read_bool(field.value, source, key);
      } else if (field.key == "enforce_always") {
        config.enforce_always = read_bool(field.value, source, key);
      } else if (field.key == "backend") {
        std::string backend = read_string(field.value, source, key);
        check_profile_name(backend, config_key_location(source, field.value) + ": " + key);
        config.backend = std::move(backend);
      } else if (field.key == "policies") {
        for (const YamlField& pm : read_mapping(field.value, source, key, "in " + key, {})) {
          const std::string pm_key = key + "." + pm.key;
          check_package_manager_name(pm.key, config_key_location(source, pm.key_node) + ": " + key);
          PackageManagerPolicy& policy = config.policies[pm.key];
          for (const YamlField& item : read_mapping(pm.value, source, pm_key, "in " + pm_key, policy_keys)) {
            const std::string item_key = pm_key + "." + item.key;
            if (item.key == "enabled") {
              policy.enabled = read_bool(item.value, source, item_key);
            } else {
              std::string profile = read_string(item.value, source, item_key);
              if (profile.find('/') != std::string::npos)
                profile = config_relative_path(item.value, source, item_key, dir).string();
              else
                check_profile_name(profile, config_key_location(source, item.value) + ": " + item_key);
              policy.profile = std::move(profile);
            }
          }
          if (policy.enabled && policy.profile.empty())
            fail_at(source, pm.key_node, pm_key + " has no profile; add 'profile: <profile name>' (e.g. npm-restrictive)");
        }
      } else {
        for (const YamlField& entry : read_mapping(field.value, source, key, "in " + key, {})) {
          const std::string entry_key = key + "." + entry.key;
          check_profile_name(entry.key, config_key_location(source, entry.key_node) + ": " + key);
          std::optional<std::filesystem::path> path;
          for (const YamlField& item : read_mapping(entry.value, source, entry_key, "in " + entry_key, template_keys))
            path = config_relative_path(item.value, source, entry_key + ".path", dir);
          if (!path) fail_at(source, entry.key_node, entry_key + " has no path; add 'path: ./my-policy.yml'");
          config.policy_templates[entry.key] = *path;
        }
      }
    }
  }
}

inline std::string non_empty_env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace detail

// The config directory: $PMG_CONFIG_DIR, else $XDG_CONFIG_HOME/pmg, else $HOME/.config/pmg.
// A relative XDG_CONFIG_HOME is ignored (the XDG spec says so); a relative PMG_CONFIG_DIR is an
// error, since the user set it for pmg and it would change meaning with the working directory.
inline std::filesystem::path config_dir() {
  if (const std::string dir = detail::non_empty_env("PMG_CONFIG_DIR"); !dir.empty()) {
    if (dir.front() != '/')
      throw Error("PMG_CONFIG_DIR=\"" + dir + "\" is not an absolute path; set it to an absolute directory");
    return normalize_path(dir);
  }
  if (const std::string xdg = detail::non_empty_env("XDG_CONFIG_HOME"); !xdg.empty() && xdg.front() == '/')
    return join_path(xdg, "pmg");
  const std::string home = detail::non_empty_env("HOME");
  if (home.empty() || home.front() != '/')
    throw Error("cannot find the pmg config directory: HOME is unset or not absolute and neither PMG_CONFIG_DIR "
                "nor XDG_CONFIG_HOME is set; set PMG_CONFIG_DIR to a directory");
  return join_path(home, ".config/pmg");
}

// The configuration from `text` (the content of `source`) applied on top of the embedded default.
// Relative paths in it are taken relative to `dir`.
inline SandboxConfig parse_config_yaml(std::string_view text, std::string_view source, const std::filesystem::path& dir) {
  SandboxConfig config;
  detail::apply_config_yaml(config, default_config_yaml(), "<embedded default config>", dir);
  detail::apply_config_yaml(config, text, source, dir);
  return config;
}

// Reads <dir>/config.yml, or uses the embedded default when it does not exist. A config path
// that exists but cannot be read is an Error naming it: never silently fall back to defaults the
// user did not choose.
inline Config load_config(const std::filesystem::path& dir) {
  Config config;
  config.dir = dir;
  config.file = dir / "config.yml";
  std::error_code ec;
  const auto dir_status = std::filesystem::status(dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw Error("cannot read the pmg config directory " + dir.string() + ": " + ec.message());
  if (std::filesystem::exists(dir_status) && !std::filesystem::is_directory(dir_status))
    throw Error("the pmg config directory " + dir.string() +
                " is not a directory; remove it or set PMG_CONFIG_DIR to a directory");
  // symlink_status: a config.yml symlink to a missing file is a broken config, not an absent one.
  const auto file_status = std::filesystem::symlink_status(config.file, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw Error("cannot read config file " + config.file.string() + ": " + ec.message());
  if (!std::filesystem::exists(file_status)) {
    detail::apply_config_yaml(config.sandbox, default_config_yaml(), "<embedded default config>", dir);
    return config;
  }
  config.from_file = true;
  config.sandbox = parse_config_yaml(read_yaml_file(config.file, "config file"), config.file.string(), dir);
  return config;
}

inline Config load_config() { return load_config(config_dir()); }

}  // namespace pmg
