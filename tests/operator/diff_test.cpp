// profile_diff.hpp: rule-by-rule differences between resolved profiles.
#include <catch2/catch.hpp>

#include "support/unit_helpers.hpp"

#include "pmg/inheritance.hpp"
#include "pmg/profile_diff.hpp"
#include "pmg/profile_registry.hpp"

namespace {

using pmg::test_support::work_project_context;

const pmg::FieldDiff* find(const std::vector<pmg::FieldDiff>& diff, const std::string& field) {
  for (const auto& d : diff)
    if (d.field == field) return &d;
  return nullptr;
}

}  // namespace

TEST_CASE("a profile compared with itself has no differences", "[diff]") {
  const pmg::ProfileRegistry registry = pmg::ProfileRegistry::builtin_only();
  const pmg::Policy p = registry.resolve("npm-restrictive");
  CHECK(pmg::diff_policies(p, p, work_project_context()).empty());
}

TEST_CASE("npx against npm-restrictive: what the child adds, field by field", "[diff]") {
  const pmg::ProfileRegistry registry = pmg::ProfileRegistry::builtin_only();
  const auto diff = pmg::diff_policies(registry.resolve("npm-restrictive"), registry.resolve("npx"), work_project_context());
  const auto* pty = find(diff, "allow_pty");
  REQUIRE(pty != nullptr);
  CHECK(pty->removed == std::vector<std::string>{"unset"});
  CHECK(pty->added == std::vector<std::string>{"true"});
  const auto* write = find(diff, "filesystem.allow_write");
  REQUIRE(write != nullptr);
  CHECK(write->removed.empty());
  CHECK(write->added.front() == "${CWD}");
  const auto* pms = find(diff, "package_managers");
  REQUIRE(pms != nullptr);
  CHECK(pms->removed == std::vector<std::string>{"npm", "yarn", "bun"});
  CHECK(pms->added == std::vector<std::string>{"npx", "pnpx"});
  // Lists the child does not touch are the same on both sides.
  CHECK(find(diff, "process.deny_exec") == nullptr);
  CHECK(find(diff, "filesystem.deny_read") == nullptr);
  // Order of keys follows the spec: description first, mandatory denies last.
  CHECK(diff.front().field == "description");
}

TEST_CASE("allow_git_config changes the mandatory denies, and the diff says so", "[diff]") {
  pmg::Policy a;
  a.name = "a";
  a.package_managers = {"npm"};
  a.filesystem.allow_read = {"/usr", "/usr"};
  pmg::Policy b = a;
  b.allow_git_config = true;
  b.filesystem.allow_read = {"/usr"};  // the same set: order and repeats are not rules
  const auto diff = pmg::diff_policies(a, b, work_project_context());
  REQUIRE(diff.size() == 2);
  CHECK(diff[0] == pmg::FieldDiff{"allow_git_config", {"unset"}, {"true"}});
  CHECK(diff[1] == pmg::FieldDiff{"mandatory.deny_write", {"/work/proj/.git/config", "/home/u/.git/config"}, {}});
}
