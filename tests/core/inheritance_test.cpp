// Single-level inheritance: the merge (union order, boolean override, what comes from the child)
// and the registry's rules on parents (built-in only, no chains, no unknown or custom parents).
#include <catch2/catch.hpp>

#include "support/unit_helpers.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "pmg/inheritance.hpp"
#include "pmg/profile_registry.hpp"

namespace {

using pmg::test_support::fixture_config_dir;
using pmg::test_support::fixture_profile_dir;


pmg::Policy parent_policy() {
  pmg::Policy p;
  p.name = "parent";
  p.description = "the parent";
  p.package_managers = {"npm", "yarn"};
  p.filesystem.allow_read = {"/usr", "/etc/ssl", "/usr"};
  p.filesystem.deny_write = {"/etc/**"};
  p.network.allow_outbound = {"registry.npmjs.org:443"};
  p.process.deny_exec = {"/usr/bin/curl"};
  p.environment.allow = {"NPM_TOKEN"};
  p.allow_pty = true;
  p.allow_git_config = false;
  p.source = "builtin:parent";
  return p;
}

pmg::Policy child_policy() {
  pmg::Policy c;
  c.name = "child";
  c.inherits = "parent";
  c.package_managers = {"pnpm"};
  c.filesystem.allow_read = {"/opt", "/usr", "/srv"};
  c.filesystem.allow_write = {"${CWD}/dist/**"};
  c.network.allow_outbound = {"npm.corp.example:443", "registry.npmjs.org:443"};
  c.environment.allow = {"npm_config_*"};
  c.allow_pty = false;
  c.allow_network_bind = true;
  c.source = "child.yml";
  return c;
}

}  // namespace

TEST_CASE("lists are unioned parent-first without duplicates", "[inheritance]") {
  const pmg::Policy r = pmg::inherit(parent_policy(), child_policy());
  CHECK(r.filesystem.allow_read == std::vector<std::string>{"/usr", "/etc/ssl", "/opt", "/srv"});
  CHECK(r.filesystem.allow_write == std::vector<std::string>{"${CWD}/dist/**"});
  CHECK(r.filesystem.deny_write == std::vector<std::string>{"/etc/**"});
  CHECK(r.network.allow_outbound == std::vector<std::string>{"registry.npmjs.org:443", "npm.corp.example:443"});
  CHECK(r.process.deny_exec == std::vector<std::string>{"/usr/bin/curl"});
  CHECK(r.environment.allow == std::vector<std::string>{"NPM_TOKEN", "npm_config_*"});
}

TEST_CASE("a boolean the child sets wins, an unset one is inherited", "[inheritance]") {
  const pmg::Policy r = pmg::inherit(parent_policy(), child_policy());
  CHECK(r.allow_pty == std::optional<bool>(false));          // child false overrides parent true
  CHECK(r.allow_git_config == std::optional<bool>(false));   // child unset: parent's value
  CHECK(r.allow_network_bind == std::optional<bool>(true));  // parent unset: child's value

  pmg::Policy child = child_policy();
  child.allow_pty.reset();
  child.allow_git_config = true;
  const pmg::Policy r2 = pmg::inherit(parent_policy(), child);
  CHECK(r2.allow_pty == std::optional<bool>(true));
  CHECK(r2.allow_git_config == std::optional<bool>(true));

  pmg::Policy bare_parent = parent_policy();
  bare_parent.allow_pty.reset();
  child.allow_pty.reset();
  CHECK_FALSE(pmg::inherit(bare_parent, child).allow_pty.has_value());  // unset stays unset
}

TEST_CASE("name, description, package managers, source and inherits come from the child", "[inheritance]") {
  const pmg::Policy r = pmg::inherit(parent_policy(), child_policy());
  CHECK(r.name == "child");
  CHECK(r.description.empty());
  CHECK(r.package_managers == std::vector<std::string>{"pnpm"});
  CHECK(r.source == "child.yml");
  CHECK(r.inherits == std::optional<std::string>("parent"));
}

TEST_CASE("a child that adds nothing yields the parent's rules under the child's name", "[inheritance]") {
  pmg::Policy child;
  child.name = "thin";
  child.inherits = "parent";
  child.package_managers = {"npm"};
  child.source = "thin.yml";
  pmg::Policy expected = parent_policy();
  expected.name = "thin";
  expected.description.clear();
  expected.inherits = "parent";
  expected.package_managers = {"npm"};
  expected.source = "thin.yml";
  expected.filesystem.allow_read = {"/usr", "/etc/ssl"};  // the parent's duplicate is dropped
  CHECK(pmg::inherit(parent_policy(), child) == expected);
}

TEST_CASE("inherit refuses a parent that itself inherits", "[inheritance]") {
  pmg::Policy parent = parent_policy();
  parent.inherits = "grandparent";
  CHECK_THROWS_WITH(pmg::inherit(parent, child_policy()),
                    "profile 'child' cannot inherit from 'parent', which itself inherits 'grandparent': "
                    "inheritance is single-level");
}

TEST_CASE("a user profile inheriting a built-in gets the built-in's rules first", "[inheritance]") {
  const pmg::ProfileRegistry registry(fixture_profile_dir, {});
  const pmg::Policy npm = pmg::ProfileRegistry::builtin_only().resolve("npm-restrictive");
  const pmg::Policy r = registry.resolve("my-npm");
  // The parent is the built-in npm-restrictive even though a user profile shadows that name.
  REQUIRE(r.filesystem.allow_read.size() == npm.filesystem.allow_read.size() + 1);
  CHECK(std::equal(npm.filesystem.allow_read.begin(), npm.filesystem.allow_read.end(), r.filesystem.allow_read.begin()));
  CHECK(r.filesystem.allow_read.back() == "${CWD}/vendor");
  CHECK(r.filesystem.allow_write.back() == "${CWD}/dist/**");
  CHECK(std::count(r.filesystem.allow_write.begin(), r.filesystem.allow_write.end(), "${CWD}/dist/**") == 1);
  CHECK(r.network.allow_outbound.back() == "npm.corp.example:443");
  CHECK(r.process.deny_exec == npm.process.deny_exec);
  CHECK(r.allow_pty == std::optional<bool>(true));
  CHECK(r.package_managers == std::vector<std::string>{"npm"});
  // resolve() is exactly the merge of the built-in with the profile as written.
  CHECK(r == pmg::inherit(pmg::ProfileRegistry::builtin_only().load("npm-restrictive"), registry.load("my-npm")));
}

TEST_CASE("inheritance chains are rejected", "[inheritance]") {
  const pmg::ProfileRegistry registry(fixture_profile_dir, {});
  CHECK_THROWS_WITH(registry.resolve("child-of-npx"),
                    fixture_profile_dir + "/child-of-npx.yml: profile 'child-of-npx' inherits 'npx', which itself inherits "
                    "'npm-restrictive'; inheritance is single-level: inherit from 'npm-restrictive' and copy the "
                    "rules you need from 'npx'");
}

TEST_CASE("an unknown parent is an error listing the built-in profiles", "[inheritance]") {
  const pmg::ProfileRegistry registry(fixture_profile_dir, {});
  CHECK_THROWS_WITH(registry.resolve("child-of-unknown"),
                    fixture_profile_dir + "/child-of-unknown.yml: profile 'child-of-unknown' inherits 'npm-restrictve', which "
                    "is not a built-in profile; did you mean 'npm-restrictive'?; built-in profiles: npm-restrictive, "
                    "npx, pnpm-restrictive, pypi-restrictive");
}

TEST_CASE("a custom profile cannot be a parent", "[inheritance]") {
  const pmg::ProfileRegistry registry(fixture_profile_dir, {{"corp-npm", fixture_config_dir + "/templates/corp-npm.yml"}});
  CHECK_THROWS_WITH(registry.resolve("child-of-custom"),
                    Catch::StartsWith(fixture_profile_dir + "/child-of-custom.yml: profile 'child-of-custom' inherits 'my-base', "
                                      "which is a user profile (" + fixture_profile_dir + "/my-base.yml); a profile can inherit "
                                      "only from a built-in profile"));
  CHECK_THROWS_WITH(registry.resolve("child-of-template"),
                    Catch::Contains("inherits 'corp-npm', which is a template profile (" + fixture_config_dir +
                                    "/templates/corp-npm.yml)"));
}

TEST_CASE("a profile inheriting itself is rejected when loaded", "[inheritance]") {
  CHECK_THROWS_WITH(pmg::parse_policy_yaml("name: npx\ninherits: npx\npackage_managers: [npx]\n", "self.yml"),
                    Catch::StartsWith("self.yml: policy 'npx' inherits itself"));
}
