// The profile registry: built-in profiles (every one loaded and checked), lookup order
// template > user > built-in, direct paths, listing, and the errors for unknown names.
#include <catch2/catch.hpp>

#include "support/unit_helpers.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "pmg/glob.hpp"
#include "pmg/path.hpp"
#include "pmg/profile_registry.hpp"
#include "pmg/variables.hpp"

namespace {

using pmg::test_support::fixture_config_dir;
using pmg::test_support::fixture_profile_dir;

const std::string fixtures = std::string(PMG_SOURCE_DIR) + "/tests/fixtures/";

pmg::ProfileRegistry fixture_registry() {
  return pmg::ProfileRegistry(fixture_profile_dir, {{"corp-npm", fixture_config_dir + "/templates/corp-npm.yml"},
                                            {"my-npm", fixture_config_dir + "/templates/my-npm-template.yml"},
                                            {"missing", fixture_config_dir + "/templates/missing.yml"}});
}

using pmg::test_support::contains;

// Every allow list that grants access to a path.
std::vector<std::string> path_allows(const pmg::Policy& p) {
  std::vector<std::string> all;
  for (const auto* list : {&p.filesystem.allow_read, &p.filesystem.allow_write, &p.process.allow_exec})
    all.insert(all.end(), list->begin(), list->end());
  return all;
}

bool environment_allows(const pmg::Policy& p, const std::string& name) {
  return std::any_of(p.environment.allow.begin(), p.environment.allow.end(),
                     [&](const std::string& pattern) { return pmg::Glob(pattern).matches(name); });
}

}  // namespace

struct BuiltinExpectation {
  const char* name;
  std::vector<std::string> package_managers;
  std::vector<std::string> outbound;      // must be allowed
  std::vector<std::string> writable;      // expanded paths that an install must be able to write
  std::vector<std::string> env_allowed;   // variables the package manager needs
  bool writes_project_sources;            // may write CWD itself (only npx)
  bool pty;
};

TEST_CASE("every built-in profile loads, resolves, lets an install work and keeps HOME closed", "[profiles]") {
  const pmg::ProfileRegistry registry = pmg::ProfileRegistry::builtin_only();
  const std::vector<BuiltinExpectation> expectations = {
      {"npm-restrictive",
       {"npm", "yarn", "bun"},
       {"registry.npmjs.org:443"},
       {"/home/u/.npm/_cacache/x", "/work/p/node_modules/a/b.js", "/work/p/package.json", "/work/p/package-lock.json",
        "/home/u/.cache/node-gyp/20/include", "/tmp/t/npm-1234/x"},
       {"NPM_TOKEN", "NODE_AUTH_TOKEN", "npm_config_registry"},
       false,
       false},
      {"npx",
       {"npx", "pnpx"},
       {"registry.npmjs.org:443"},
       {"/home/u/.npm/_npx/abc/node_modules/x", "/work/p/src/index.ts", "/work/p/node_modules/a"},
       {"NPM_TOKEN", "npm_config_registry"},
       true,
       true},
      {"pnpm-restrictive",
       {"pnpm"},
       {"registry.npmjs.org:443"},
       {"/home/u/.local/share/pnpm/store/v3/x", "/work/p/node_modules/.pnpm/x", "/work/p/pnpm-lock.yaml",
        "/home/u/.cache/pnpm/metadata/x"},
       {"NPM_TOKEN", "npm_config_registry"},
       false,
       false},
      {"pypi-restrictive",
       {"pip", "pip3", "poetry", "uv"},
       {"pypi.org:443", "files.pythonhosted.org:443"},
       {"/home/u/.cache/pip/http/x", "/work/p/.venv/lib/python3.11/site-packages/x", "/home/u/.local/lib/python3.11/x",
        "/tmp/t/pip-build-1/setup.py"},
       {"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"},
       false,
       false},
  };
  REQUIRE(registry.builtin_names() ==
          std::vector<std::string>{"npm-restrictive", "npx", "pnpm-restrictive", "pypi-restrictive"});
  const pmg::Context ctx{"/home/u", "/work/p", "/tmp/t", 1000, 1000};

  for (const BuiltinExpectation& expected : expectations) {
    INFO("profile " << expected.name);
    const pmg::Policy policy = registry.resolve(expected.name);
    CHECK(policy.name == expected.name);
    CHECK(policy.source == std::string("builtin:") + expected.name);
    CHECK(policy.package_managers == expected.package_managers);
    CHECK(policy.allow_pty.value_or(false) == expected.pty);
    CHECK_FALSE(policy.allow_git_config.value_or(false));
    for (const std::string& host : expected.outbound) CHECK(contains(policy.network.allow_outbound, host));

    const pmg::Policy expanded = pmg::expand_policy(policy, ctx);
    const auto allowed = [&](const std::vector<std::string>& list, const std::string& path) {
      return std::any_of(list.begin(), list.end(), [&](const std::string& entry) {
        return pmg::has_glob_chars(entry) ? pmg::Glob(entry).matches(path) : pmg::path_is_within(path, entry);
      });
    };
    for (const std::string& path : expected.writable) {
      INFO("writable " << path);
      CHECK(allowed(expanded.filesystem.allow_write, path));
    }
    // The system binary and the project are readable, the project's sources writable only for npx.
    CHECK(allowed(expanded.filesystem.allow_read, "/usr/bin/env"));
    CHECK(allowed(expanded.filesystem.allow_read, "/work/p/package.json"));
    CHECK(allowed(expanded.filesystem.allow_write, "/work/p/src/index.js") == expected.writes_project_sources);

    // Not HOME wholesale: no allow entry (read, write or exec) covers HOME itself or its dotfiles.
    for (const std::string& entry : path_allows(expanded)) {
      INFO("entry " << entry);
      const std::string base = pmg::has_glob_chars(entry) ? pmg::Glob(entry).base_directory() : entry;
      CHECK_FALSE(pmg::path_is_within(ctx.home, base));
      CHECK_FALSE(allowed({entry}, "/home/u/.bashrc"));
      CHECK_FALSE(allowed({entry}, "/home/u/.ssh/id_rsa"));
      CHECK_FALSE(allowed({entry}, "/home/u/.gitconfig"));
      CHECK_FALSE(allowed({entry}, "/home/u/Documents/tax.pdf"));
      CHECK(entry != "/");
    }
    CHECK_FALSE(allowed(expanded.filesystem.allow_read, "/etc/shadow"));
    CHECK_FALSE(allowed(expanded.filesystem.allow_write, "/usr/bin/node"));

    for (const std::string& name : expected.env_allowed) CHECK(environment_allows(policy, name));
    for (const char* secret : {"TWINE_PASSWORD", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "UV_PUBLISH_TOKEN"})
      CHECK_FALSE(environment_allows(policy, secret));
    // Download tools are blocked by exact path, so a runtime override can lift one.
    CHECK(contains(policy.process.deny_exec, "/usr/bin/curl"));
  }
}

TEST_CASE("built-in profiles round-trip through emit", "[profiles]") {
  const pmg::ProfileRegistry registry = pmg::ProfileRegistry::builtin_only();
  for (const std::string& name : registry.builtin_names()) {
    INFO(name);
    const pmg::Policy p = registry.load(name);
    CHECK(pmg::parse_policy_yaml(pmg::emit_policy_yaml(p), p.source) == p);
  }
}

TEST_CASE("npx inherits npm-restrictive and adds project writes, a terminal and local ports", "[profiles]") {
  const pmg::ProfileRegistry registry = pmg::ProfileRegistry::builtin_only();
  const pmg::Policy npm = registry.resolve("npm-restrictive");
  const pmg::Policy npx_as_written = registry.load("npx");
  const pmg::Policy npx = registry.resolve("npx");
  CHECK(npx_as_written.inherits == std::optional<std::string>("npm-restrictive"));
  CHECK(npx.inherits == std::optional<std::string>("npm-restrictive"));
  // Parent's rules first, in the parent's order.
  REQUIRE(npx.filesystem.allow_read.size() > npm.filesystem.allow_read.size());
  CHECK(std::equal(npm.filesystem.allow_read.begin(), npm.filesystem.allow_read.end(), npx.filesystem.allow_read.begin()));
  CHECK(contains(npx.filesystem.allow_write, "${CWD}"));
  CHECK(npx.allow_pty == std::optional<bool>(true));
  CHECK(npx.allow_network_bind == std::optional<bool>(true));
  CHECK(npx.network.allow_bind == std::vector<std::string>{"localhost:*"});
  CHECK(npx.network.allow_outbound == npm.network.allow_outbound);
}

TEST_CASE("a name is a template first, then a user profile, then a built-in", "[registry]") {
  const pmg::ProfileRegistry registry = fixture_registry();
  const pmg::ProfileEntry from_template = registry.find("my-npm");
  CHECK(from_template.origin == pmg::ProfileOrigin::policy_template);
  CHECK(from_template.source == fixture_config_dir + "/templates/my-npm-template.yml");
  CHECK(registry.resolve("my-npm").name == "my-npm-template");

  const pmg::ProfileEntry user = registry.find("npm-restrictive");
  CHECK(user.origin == pmg::ProfileOrigin::user);
  CHECK(user.source == fixture_profile_dir + "/npm-restrictive.yml");
  CHECK(registry.resolve("npm-restrictive").name == "npm-restrictive-local");

  const pmg::ProfileEntry builtin = registry.find("pypi-restrictive");
  CHECK(builtin.origin == pmg::ProfileOrigin::builtin);
  CHECK(builtin.source == "builtin:pypi-restrictive");

  CHECK(registry.find("my-base").origin == pmg::ProfileOrigin::user);
}

TEST_CASE("a template may replace a built-in and extend it under its own name", "[registry]") {
  const pmg::ProfileRegistry registry(fixture_profile_dir, {{"pnpm-restrictive", fixture_config_dir + "/templates/pnpm-override.yml"}});
  const pmg::Policy p = registry.resolve("pnpm-restrictive");
  CHECK(p.name == "pnpm-custom");
  CHECK(p.inherits == std::optional<std::string>("pnpm-restrictive"));
  CHECK(contains(p.filesystem.allow_write, "${HOME}/Library/pnpm/.tools/**"));
  CHECK(contains(p.filesystem.allow_write, "${CWD}/pnpm-lock.yaml"));  // from the built-in parent
}

TEST_CASE("paths are loaded directly", "[registry]") {
  CHECK(pmg::ProfileRegistry::is_path("./x.yml"));
  CHECK(pmg::ProfileRegistry::is_path("/abs/policy"));
  CHECK(pmg::ProfileRegistry::is_path("policy.yaml"));
  CHECK_FALSE(pmg::ProfileRegistry::is_path("npm-restrictive"));

  const pmg::ProfileRegistry registry = pmg::ProfileRegistry::builtin_only();
  const std::string file = fixture_profile_dir + "/my-npm.yml";
  CHECK(registry.find(file).origin == pmg::ProfileOrigin::path);
  const pmg::Policy p = registry.resolve(file);
  CHECK(p.name == "my-npm");
  CHECK(p.source == file);
  CHECK_THROWS_WITH(registry.resolve(fixtures + "nope.yml"), Catch::Contains("cannot read policy file " + fixtures + "nope.yml"));
}

TEST_CASE("an unknown profile name lists the available ones", "[registry]") {
  const pmg::ProfileRegistry registry = pmg::ProfileRegistry::builtin_only();
  CHECK_THROWS_WITH(registry.resolve("npm-restritive"),
                    Catch::StartsWith("unknown sandbox profile 'npm-restritive'; did you mean 'npm-restrictive'?") &&
                        Catch::Contains("available profiles: npm-restrictive, npx, pnpm-restrictive, pypi-restrictive"));
  CHECK_THROWS_WITH(fixture_registry().resolve("zzz"),
                    Catch::Contains("available profiles: ") && Catch::Contains("corp-npm") && Catch::Contains("my-base") &&
                        !Catch::Contains("did you mean"));
}

TEST_CASE("list shows every profile with its origin in lookup order", "[registry]") {
  const std::vector<pmg::ProfileEntry> entries = fixture_registry().list();
  std::vector<std::string> rendered;
  for (const pmg::ProfileEntry& e : entries)
    rendered.push_back(e.name + " " + std::string(pmg::to_string(e.origin)) + (e.shadowed ? " shadowed" : ""));
  CHECK(rendered == std::vector<std::string>{
                        "corp-npm template", "missing template", "my-npm template", "broken user", "child-of-custom user",
                        "child-of-npx user", "child-of-template user", "child-of-unknown user", "grants-nothing user",
                        "my-base user", "my-npm user shadowed", "npm-restrictive user", "npm-restrictive builtin shadowed",
                        "npx builtin", "pnpm-restrictive builtin", "pypi-restrictive builtin"});
  CHECK(entries.front().source == fixture_config_dir + "/templates/corp-npm.yml");
}

TEST_CASE("registry errors name the file and the fix", "[registry]") {
  const pmg::ProfileRegistry registry = fixture_registry();
  CHECK_THROWS_WITH(registry.resolve("missing"),
                    Catch::StartsWith("policy template 'missing' (sandbox.policy_templates.missing.path in config.yml): "
                                      "cannot read policy file " + fixture_config_dir + "/templates/missing.yml"));
  CHECK_THROWS_WITH(registry.resolve("broken"),
                    Catch::StartsWith(fixture_profile_dir + "/broken.yaml:4:3: unknown key 'alow_read' in filesystem; did you mean 'allow_read'?"));
  CHECK_THROWS_WITH(registry.resolve("grants-nothing"),
                    Catch::StartsWith(fixture_profile_dir + "/grants-nothing.yml: policy 'grants-nothing' allows nothing"));
  // A "profile directory" that is a file cannot be listed.
  const pmg::ProfileRegistry not_a_dir(fixture_config_dir + "/config.yml", {});
  CHECK_THROWS_WITH(not_a_dir.list(),
                    Catch::StartsWith("cannot read the user profile directory " + fixture_config_dir + "/config.yml"));
  CHECK(not_a_dir.resolve("npx").name == "npx");  // lookups of other names are unaffected
  const pmg::ProfileRegistry ambiguous(fixtures + "user_profiles_ambiguous", {});
  CHECK_THROWS_WITH(ambiguous.resolve("dup"), Catch::Contains("user profile 'dup' exists twice"));
  CHECK_THROWS_WITH(ambiguous.list(), Catch::Contains("user profile 'dup' exists twice"));
}

TEST_CASE("a registry from a config uses its profile dir and templates", "[registry]") {
  const pmg::Config config = pmg::load_config(fixture_config_dir);
  const pmg::ProfileRegistry registry = pmg::ProfileRegistry::from_config(config);
  CHECK(registry.user_profile_dir() == fixture_profile_dir);
  CHECK(registry.find("corp-npm").origin == pmg::ProfileOrigin::policy_template);
  const pmg::Policy corp = registry.resolve("corp-npm");
  CHECK(contains(corp.network.allow_outbound, "npm.corp.example:443"));
  CHECK(contains(corp.network.allow_outbound, "registry.npmjs.org:443"));
}
