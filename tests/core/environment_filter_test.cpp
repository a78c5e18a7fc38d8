#include <catch2/catch.hpp>

#include "pmg/environment_filter.hpp"

namespace {

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

const std::vector<std::string> environment = {
    "PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm",
    "AWS_SECRET_ACCESS_KEY=aws", "aws_access_key_id=lower", "GITHUB_TOKEN=gh", "TWINE_PASSWORD=tw",
    "NPM_TOKEN=npm", "MY_SERVICE_API_KEY=k", "DEPLOY_PASSWORD=p", "npm_config_registry=https://r",
    "EDITOR=vi", "HTTPS_PROXY=http://127.0.0.1:1"};

}  // namespace

TEST_CASE("credential variables are removed, by name, case-insensitively and by shape", "[environment]") {
  pmg::Policy policy;
  auto out = pmg::filter_environment(environment, policy);
  for (const char* name : {"AWS_SECRET_ACCESS_KEY", "aws_access_key_id", "GITHUB_TOKEN", "TWINE_PASSWORD",
                           "NPM_TOKEN", "MY_SERVICE_API_KEY", "DEPLOY_PASSWORD"})
    CHECK(has(out.removed, name));
  for (const char* entry : {"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm",
                            "EDITOR=vi", "npm_config_registry=https://r"})
    CHECK(has(out.kept, entry));
  // Only names are reported, never values.
  for (const auto& name : out.removed) CHECK(name.find('=') == std::string::npos);
}

TEST_CASE("environment.allow re-allows names and globs; allow wins over deny", "[environment]") {
  pmg::Policy policy;
  policy.environment.allow = {"NPM_TOKEN", "npm_config_*"};
  policy.environment.deny = {"NPM_*", "EDITOR"};
  auto out = pmg::filter_environment(environment, policy);
  CHECK(has(out.kept, "NPM_TOKEN=npm"));
  CHECK(has(out.kept, "npm_config_registry=https://r"));
  CHECK(has(out.removed, "EDITOR"));
  CHECK(has(out.removed, "TWINE_PASSWORD"));
}

TEST_CASE("essential variables and the sandbox's own variables are never removed", "[environment]") {
  pmg::Policy policy;
  policy.environment.deny = {"*"};
  auto out = pmg::filter_environment(environment, policy, {"HTTPS_PROXY"});
  CHECK(has(out.kept, "PATH=/usr/bin"));
  CHECK(has(out.kept, "HOME=/home/u"));
  CHECK(has(out.kept, "LC_ALL=C"));
  CHECK(has(out.kept, "HTTPS_PROXY=http://127.0.0.1:1"));
  CHECK(has(out.removed, "EDITOR"));
}
