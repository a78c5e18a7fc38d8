// config.yml: where it is found (PMG_CONFIG_DIR > XDG_CONFIG_HOME > HOME), the embedded default,
// a user file applied on top of it, strict errors with positions, unreadable paths.
#include <catch2/catch.hpp>

#include "support/unit_helpers.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "pmg/config.hpp"
#include "pmg/profile_registry.hpp"

namespace fs = std::filesystem;

namespace {

using pmg::test_support::TempDir;
using pmg::test_support::read_file;

const std::string configs = std::string(PMG_SOURCE_DIR) + "/tests/fixtures/configs/";

// Sets environment variables for one test and puts the previous values back afterwards.
class EnvGuard {
 public:
  EnvGuard() {
    for (const char* name : names_) {
      const char* value = std::getenv(name);
      saved_.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
    }
  }
  ~EnvGuard() {
    for (const auto& [name, value] : saved_) {
      if (value) ::setenv(name.c_str(), value->c_str(), 1);
      else ::unsetenv(name.c_str());
    }
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

  void set(const char* name, const std::string& value) { ::setenv(name, value.c_str(), 1); }
  void unset(const char* name) { ::unsetenv(name); }

 private:
  static constexpr const char* names_[] = {"PMG_CONFIG_DIR", "XDG_CONFIG_HOME", "HOME"};
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

void write_file(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

}  // namespace

TEST_CASE("the config dir is PMG_CONFIG_DIR, else XDG_CONFIG_HOME/pmg, else HOME/.config/pmg", "[config]") {
  EnvGuard env;
  env.set("HOME", "/home/someone");
  env.set("XDG_CONFIG_HOME", "/xdg/config");
  env.set("PMG_CONFIG_DIR", "/etc/pmg-custom/");
  CHECK(pmg::config_dir() == "/etc/pmg-custom");

  env.unset("PMG_CONFIG_DIR");
  CHECK(pmg::config_dir() == "/xdg/config/pmg");

  env.set("PMG_CONFIG_DIR", "");  // empty counts as unset
  CHECK(pmg::config_dir() == "/xdg/config/pmg");

  env.unset("XDG_CONFIG_HOME");
  CHECK(pmg::config_dir() == "/home/someone/.config/pmg");

  env.set("XDG_CONFIG_HOME", "relative/dir");  // the XDG spec says to ignore relative values
  CHECK(pmg::config_dir() == "/home/someone/.config/pmg");

  env.set("PMG_CONFIG_DIR", "relative/pmg");
  CHECK_THROWS_WITH(pmg::config_dir(), Catch::StartsWith("PMG_CONFIG_DIR=\"relative/pmg\" is not an absolute path"));

  env.unset("PMG_CONFIG_DIR");
  env.unset("XDG_CONFIG_HOME");
  env.unset("HOME");
  CHECK_THROWS_WITH(pmg::config_dir(), Catch::Contains("set PMG_CONFIG_DIR"));
}

TEST_CASE("load_config() reads the directory the environment names", "[config]") {
  EnvGuard env;
  TempDir home;
  TempDir xdg;
  env.unset("PMG_CONFIG_DIR");
  env.set("HOME", home.path().string());
  env.set("XDG_CONFIG_HOME", xdg.path().string());
  write_file(home.path() / ".config/pmg/config.yml", "sandbox:\n  backend: from-home\n");
  write_file(xdg.path() / "pmg/config.yml", "sandbox:\n  backend: from-xdg\n");

  CHECK(pmg::load_config().sandbox.backend == std::optional<std::string>("from-xdg"));
  env.unset("XDG_CONFIG_HOME");
  CHECK(pmg::load_config().sandbox.backend == std::optional<std::string>("from-home"));
  env.set("PMG_CONFIG_DIR", configs + "full");
  const pmg::Config config = pmg::load_config();
  CHECK(config.dir == configs + "full");
  CHECK(config.sandbox.backend == std::optional<std::string>("bubblewrap"));
}

TEST_CASE("without config.yml the embedded default applies", "[config]") {
  TempDir dir;
  const pmg::Config config = pmg::load_config(dir.path() / "does-not-exist-yet");
  CHECK_FALSE(config.from_file);
  CHECK(config.dir == dir.path() / "does-not-exist-yet");
  CHECK(config.file == dir.path() / "does-not-exist-yet/config.yml");
  CHECK(config.profile_dir() == dir.path() / "does-not-exist-yet/profiles");
  CHECK(config.sandbox.enabled);
  CHECK_FALSE(config.sandbox.enforce_always);
  CHECK_FALSE(config.sandbox.backend.has_value());
  CHECK(config.sandbox.policy_templates.empty());
  const std::map<std::string, std::string> expected = {
      {"npm", "npm-restrictive"},   {"yarn", "npm-restrictive"},  {"bun", "npm-restrictive"},
      {"pnpm", "pnpm-restrictive"}, {"npx", "npx"},               {"pnpx", "npx"},
      {"pip", "pypi-restrictive"},  {"pip3", "pypi-restrictive"}, {"poetry", "pypi-restrictive"},
      {"uv", "pypi-restrictive"}};
  REQUIRE(config.sandbox.policies.size() == expected.size());
  for (const auto& [pm, profile] : expected) {
    INFO(pm);
    CHECK(config.sandbox.policies.at(pm) == pmg::PackageManagerPolicy{true, profile});
  }
}

TEST_CASE("every default policy names a built-in profile made for that package manager", "[config]") {
  const pmg::SandboxConfig defaults = pmg::parse_config_yaml("", "empty", "/nowhere");
  const pmg::ProfileRegistry registry = pmg::ProfileRegistry::builtin_only();
  for (const auto& [pm, policy] : defaults.policies) {
    INFO(pm);
    const pmg::Policy resolved = registry.resolve(policy.profile);
    CHECK(std::find(resolved.package_managers.begin(), resolved.package_managers.end(), pm) !=
          resolved.package_managers.end());
  }
}

TEST_CASE("a config.yml sets every key, with paths relative to the config dir", "[config]") {
  const pmg::Config config = pmg::load_config(configs + "full");
  CHECK(config.from_file);
  CHECK(config.file == configs + "full/config.yml");
  CHECK_FALSE(config.sandbox.enabled);
  CHECK(config.sandbox.enforce_always);
  CHECK(config.sandbox.backend == std::optional<std::string>("bubblewrap"));
  CHECK(config.sandbox.policies.at("npm") == pmg::PackageManagerPolicy{true, "my-npm"});
  // Only `enabled` was given: the default profile stays.
  CHECK(config.sandbox.policies.at("pnpm") == pmg::PackageManagerPolicy{false, "pnpm-restrictive"});
  CHECK(config.sandbox.policies.at("pip") == pmg::PackageManagerPolicy{true, configs + "full/custom/pip-policy.yml"});
  CHECK(config.sandbox.policies.at("cargo") == pmg::PackageManagerPolicy{true, "corp-npm"});
  CHECK(config.sandbox.policies.at("uv") == pmg::PackageManagerPolicy{true, "pypi-restrictive"});
  CHECK(config.sandbox.policy_templates ==
        std::map<std::string, fs::path>{{"corp-npm", configs + "full/templates/corp-npm.yml"},
                                        {"my-npm", configs + "full/templates/my-npm-template.yml"},
                                        {"pnpm-restrictive", configs + "full/templates/pnpm-override.yml"}});
}

TEST_CASE("a partial or empty config.yml keeps every default it does not change", "[config]") {
  const pmg::Config partial = pmg::load_config(configs + "partial");
  CHECK(partial.sandbox.enabled);
  CHECK(partial.sandbox.enforce_always);
  CHECK(partial.sandbox.policies.at("npm") == pmg::PackageManagerPolicy{false, "npm-restrictive"});
  CHECK(partial.sandbox.policies.at("pip") == pmg::PackageManagerPolicy{true, "pypi-restrictive"});

  const pmg::Config empty = pmg::load_config(configs + "empty");
  CHECK(empty.from_file);
  CHECK(empty.sandbox == pmg::load_config("/nonexistent-pmg-config-dir").sandbox);
}

TEST_CASE("config errors name file, line and column", "[config]") {
  const std::pair<const char*, const char*> cases[] = {
      {"unknown_key", ":2:3: unknown key 'enabeld' in sandbox; did you mean 'enabled'?"},
      {"bad_type", ":4:5: sandbox.policies must be a mapping of 'key: value' lines, not a list"},
      {"no_profile", ":3:5: sandbox.policies.cargo has no profile; add 'profile: <profile name>'"},
      {"template_no_path", ":4:7: unknown key 'file' in sandbox.policy_templates.corp; expected one of: path"},
      {"bad_profile_name", ":4:16: sandbox.policies.npm.profile: \"npm restrictive\" is not a valid profile name"},
      {"not_a_map", ":1:10: sandbox must be a mapping of 'key: value' lines, not a scalar"},
      {"tilde_template", ":4:13: sandbox.policy_templates.corp.path \"~/corp.yml\": '~' is not expanded here"},
      {"backend_list", ":2:12: sandbox.backend must be a string, not a list"},
  };
  for (const auto& [dir, expected] : cases) {
    INFO(dir);
    CHECK_THROWS_WITH(pmg::load_config(configs + dir), Catch::StartsWith(configs + dir + "/config.yml" + expected));
  }
  CHECK_THROWS_WITH(pmg::parse_config_yaml("sandbox:\n  enabled: on\n", "c.yml", "/d"),
                    Catch::StartsWith("c.yml:2:12: sandbox.enabled must be true or false (unquoted), not 'on'"));
  CHECK_THROWS_WITH(pmg::parse_config_yaml("sandbox: {}\nsandbox: {}\n", "c.yml", "/d"),
                    Catch::StartsWith("c.yml:2:1: duplicate key 'sandbox' at the top level of the config"));
  CHECK_THROWS_WITH(pmg::parse_config_yaml("sandbox:\n  policies:\n    npm: &p {profile: x}\n", "c.yml", "/d"),
                    Catch::StartsWith("c.yml:3:10: YAML anchors"));
  CHECK_THROWS_WITH(pmg::parse_config_yaml("sandboxx: {}\n", "c.yml", "/d"),
                    Catch::StartsWith("c.yml:1:1: unknown key 'sandboxx' at the top level of the config; did you mean 'sandbox'?"));
}

TEST_CASE("an unreadable config dir or file is an error naming it", "[config]") {
  TempDir dir;
  write_file(dir.path() / "a-file", "x");
  CHECK_THROWS_WITH(pmg::load_config(dir.path() / "a-file"),
                    Catch::StartsWith("the pmg config directory " + (dir.path() / "a-file").string() + " is not a directory"));
  fs::create_directories(dir.path() / "cfg/config.yml");
  CHECK_THROWS_WITH(pmg::load_config(dir.path() / "cfg"),
                    Catch::StartsWith("cannot read config file " + (dir.path() / "cfg/config.yml").string() +
                                      ": not a regular file"));
  write_file(dir.path() / "dangling/placeholder", "");
  fs::create_symlink(dir.path() / "nowhere", dir.path() / "dangling/config.yml");
  // A config.yml that is a dangling symlink is a broken config, not a missing one.
  CHECK_THROWS_WITH(pmg::load_config(dir.path() / "dangling"),
                    Catch::StartsWith("cannot read config file " + (dir.path() / "dangling/config.yml").string() +
                                      ": No such file"));
}

TEST_CASE("every YAML example in docs/policy.md loads", "[config][docs]") {
  std::ifstream in(std::string(PMG_SOURCE_DIR) + "/docs/policy.md");
  REQUIRE(in);
  std::vector<std::string> blocks;
  std::string line;
  std::optional<std::string> block;
  while (std::getline(in, line)) {
    if (!block && line == "```yaml") {
      block.emplace();
    } else if (block && line == "```") {
      blocks.push_back(*block);
      block.reset();
    } else if (block) {
      *block += line + "\n";
    }
  }
  const pmg::ProfileRegistry registry = pmg::ProfileRegistry::builtin_only();
  TempDir dir;
  std::size_t policies = 0;
  std::size_t configs_seen = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const std::string source = "docs/policy.md yaml block " + std::to_string(i + 1);
    INFO(source << "\n" << blocks[i]);
    if (blocks[i].starts_with("name:")) {
      const fs::path file = dir.path() / ("example-" + std::to_string(i) + ".yml");
      write_file(file, blocks[i]);
      CHECK_NOTHROW(registry.resolve(file.string()));
      ++policies;
    } else if (blocks[i].starts_with("sandbox:")) {
      CHECK_NOTHROW(pmg::parse_config_yaml(blocks[i], source, "/config"));
      ++configs_seen;
    }
  }
  CHECK(policies >= 4);
  CHECK(configs_seen >= 3);
  // The documented default is the embedded one, word for word (without its comment lines).
  std::string embedded;
  std::istringstream text{std::string(pmg::default_config_yaml())};
  while (std::getline(text, line))
    if (!line.starts_with("#")) embedded += line + "\n";
  CHECK(std::find(blocks.begin(), blocks.end(), embedded) != blocks.end());
}
