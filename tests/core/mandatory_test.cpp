#include <catch2/catch.hpp>

#include "support/unit_helpers.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>

#include "pmg/glob.hpp"
#include "pmg/mandatory.hpp"

namespace {
using pmg::test_support::contains;
using pmg::test_support::home_project_context;
bool any_matches(const std::vector<std::string>& list, const std::string& path) {
  return std::any_of(list.begin(), list.end(), [&](const std::string& p) { return pmg::Glob(p).matches(path); });
}
}  // namespace

TEST_CASE("credential_names holds the spec's list and the documented extras", "[mandatory]") {
  for (const char* name : {".env", ".env.*", ".aws", ".gcloud", ".kube", ".ssh", ".gnupg", ".docker/config.json",
                           ".netrc", ".git-credentials", ".pgpass", ".config/gh", ".azure", ".config/gcloud",
                           ".pypirc"}) {
    CAPTURE(name);
    CHECK(std::find(pmg::credential_names.begin(), pmg::credential_names.end(), name) != pmg::credential_names.end());
  }
}

TEST_CASE("docs/mandatory-denies.md documents every credential name", "[mandatory]") {
  std::ifstream doc(std::string(PMG_SOURCE_DIR) + "/docs/mandatory-denies.md");
  REQUIRE(doc);
  const std::string text((std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>());
  for (std::string_view name : pmg::credential_names) {
    CAPTURE(name);
    CHECK(text.find("`" + std::string(name) + "`") != std::string::npos);
  }
}

TEST_CASE("mandatory_denies denies credentials under CWD and HOME, at the root and at any depth", "[mandatory]") {
  const pmg::MandatoryDenies m = pmg::mandatory_denies(pmg::Policy{}, home_project_context());
  CHECK(m.deny_read_write.size() == 2 * 2 * pmg::credential_names.size());
  for (const char* root : {"/home/u/proj", "/home/u"}) {
    for (std::string_view name : pmg::credential_names) {
      CAPTURE(root, name);
      CHECK(contains(m.deny_read_write, std::string(root) + "/" + std::string(name)));
      CHECK(contains(m.deny_read_write, std::string(root) + "/**/" + std::string(name)));
    }
  }
  for (const auto& p : m.deny_read_write) {
    CAPTURE(p);
    CHECK(p.front() == '/');
    CHECK(p.find("${") == std::string::npos);
  }
}

TEST_CASE("mandatory_denies covers the spec's protected files wherever they are", "[mandatory]") {
  const pmg::MandatoryDenies m = pmg::mandatory_denies(pmg::Policy{}, home_project_context());
  const auto [path, denied] = GENERATE(table<std::string, bool>({
      {"/home/u/proj/.env", true},
      {"/home/u/proj/.env.local", true},
      {"/home/u/proj/packages/api/.env.production", true},
      {"/home/u/.aws", true},
      {"/home/u/.ssh", true},
      {"/home/u/proj/sub/.kube", true},
      {"/home/u/.docker/config.json", true},
      {"/home/u/.config/gh", true},
      {"/home/u/.docker/other.json", false},
      {"/home/u/proj/.environment", false},
      {"/home/u/proj/package.json", false},
      {"/etc/.env", false},
  }));
  CAPTURE(path);
  CHECK(any_matches(m.deny_read_write, path) == denied);
}

TEST_CASE("mandatory_denies always denies writing .git/hooks in CWD and HOME", "[mandatory]") {
  for (const std::optional<bool> allow : {std::optional<bool>{}, std::optional<bool>{false}, std::optional<bool>{true}}) {
    pmg::Policy p;
    p.allow_git_config = allow;
    const pmg::MandatoryDenies m = pmg::mandatory_denies(p, home_project_context());
    CHECK(contains(m.deny_write, "/home/u/proj/.git/hooks"));
    CHECK(contains(m.deny_write, "/home/u/.git/hooks"));
  }
}

TEST_CASE("mandatory_denies denies writing .git/config unless allow_git_config is true", "[mandatory]") {
  const auto [allow, denied] = GENERATE(table<std::optional<bool>, bool>({
      {std::nullopt, true},
      {false, true},
      {true, false},
  }));
  pmg::Policy p;
  p.allow_git_config = allow;
  const pmg::MandatoryDenies m = pmg::mandatory_denies(p, home_project_context());
  CHECK(contains(m.deny_write, "/home/u/proj/.git/config") == denied);
  CHECK(contains(m.deny_write, "/home/u/.git/config") == denied);
  CHECK(m.deny_write.size() == (denied ? 4U : 2U));
}

TEST_CASE("mandatory_denies ignores the policy's lists", "[mandatory]") {
  pmg::Policy p;
  p.filesystem.allow_read = {"${HOME}/.ssh", "${HOME}/**"};
  p.filesystem.allow_write = {"${CWD}/.git/hooks"};
  CHECK(pmg::mandatory_denies(p, home_project_context()) == pmg::mandatory_denies(pmg::Policy{}, home_project_context()));
}

TEST_CASE("mandatory_denies lists a root once when CWD is HOME", "[mandatory]") {
  pmg::Context c = home_project_context();
  c.cwd = c.home;
  const pmg::MandatoryDenies m = pmg::mandatory_denies(pmg::Policy{}, c);
  CHECK(m.deny_read_write.size() == 2 * pmg::credential_names.size());
  CHECK(m.deny_write == std::vector<std::string>{"/home/u/.git/hooks", "/home/u/.git/config"});
}

TEST_CASE("mandatory_denies refuses a context without an absolute HOME", "[mandatory]") {
  pmg::Context c = home_project_context();
  c.home = "relative";
  CHECK_THROWS_WITH(pmg::mandatory_denies(pmg::Policy{}, c), Catch::Contains("${HOME}"));
}
