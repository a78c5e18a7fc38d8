#include <catch2/catch.hpp>

#include "support/unit_helpers.hpp"

#include <algorithm>

#include "pmg/overrides.hpp"

namespace {
using pmg::test_support::home_project_context;
using Strings = std::vector<std::string>;
using pmg::test_support::contains;
Strings apply(pmg::Policy& p, const std::string& raw) {
  const pmg::Override o = pmg::parse_override(raw, home_project_context());
  return pmg::apply_overrides(p, std::span<const pmg::Override>(&o, 1), home_project_context());
}
}  // namespace

TEST_CASE("to_string names each override type as on the command line", "[overrides]") {
  CHECK(pmg::to_string(pmg::OverrideType::read) == "read");
  CHECK(pmg::to_string(pmg::OverrideType::write) == "write");
  CHECK(pmg::to_string(pmg::OverrideType::exec) == "exec");
  CHECK(pmg::to_string(pmg::OverrideType::net_connect) == "net-connect");
  CHECK(pmg::to_string(pmg::OverrideType::net_bind) == "net-bind");
  CHECK(pmg::to_string(pmg::OverrideType::env) == "env");
}

TEST_CASE("parse_override accepts each type and normalises paths against CWD", "[overrides]") {
  using T = pmg::OverrideType;
  const auto [raw, type, value] = GENERATE(table<std::string, T, std::string>({
      {"read=/etc/hosts", T::read, "/etc/hosts"},
      {"write=./.gitignore", T::write, "/home/u/proj/.gitignore"},
      {"write=.gitignore", T::write, "/home/u/proj/.gitignore"},
      {"write=../shared//x/", T::write, "/home/u/shared/x"},
      {"read=${HOME}/.cache/**", T::read, "/home/u/.cache/**"},
      {"write=dist/*.js", T::write, "/home/u/proj/dist/*.js"},
      {"read=/a=b", T::read, "/a=b"},  // split on the first '='
      {"exec=/usr/bin/curl", T::exec, "/usr/bin/curl"},
      {"net-connect=npm.internal.corp:443", T::net_connect, "npm.internal.corp:443"},
      {"net-connect=10.0.0.5:8080", T::net_connect, "10.0.0.5:8080"},
      {"net-connect=[2001:db8::1]:443", T::net_connect, "[2001:db8::1]:443"},
      {"net-bind=127.0.0.1:3000", T::net_bind, "127.0.0.1:3000"},
      {"net-bind=[::1]:65535", T::net_bind, "[::1]:65535"},
      {"env=NPM_TOKEN", T::env, "NPM_TOKEN"},
      {"env=_x1", T::env, "_x1"},
  }));
  CAPTURE(raw);
  const pmg::Override o = pmg::parse_override(raw, home_project_context());
  CHECK(o.type == type);
  CHECK(o.value == value);
  CHECK(o.raw == raw);
}

TEST_CASE("parse_override errors name the flag value and list the accepted forms", "[overrides]") {
  const auto [raw, problem] = GENERATE(table<std::string, std::string>({
      {"read", "expected TYPE=VALUE"},
      {"rread=/x", "unknown type \"rread\""},
      {"net=host:1", "unknown type \"net\""},
      {"read=", "empty"},
      {"read=~/.npmrc", "use $HOME/... so your shell expands it"},
      {"write=~", "use $HOME/"},
      {"exec=/usr/bin/*", "not a glob"},
      {"exec=bin/[ab]", "not a glob"},
      {"read=/a/[b", "unbalanced '['"},
      {"read=${USER}/x", "unknown variable ${USER}"},
      {"net-connect=host", "port is missing"},
      {"net-connect=*.corp:443", "without wildcards"},
      {"net-connect=host:*", "from 1 to 65535"},
      {"net-connect=host:0", "from 1 to 65535"},
      {"net-connect=host:65536", "from 1 to 65535"},
      {"net-connect=host:123456", "from 1 to 65535"},
      {"net-connect=host:8o", "from 1 to 65535"},
      {"net-connect=:443", "host is empty"},
      {"net-connect=2001:db8::1:443", "in brackets"},
      {"net-connect=[2001:db8::1]443", "[IPv6-ADDRESS]:PORT"},
      {"net-connect=[nothex]:443", "not a host name"},
      {"net-connect=ho st:443", "not a host name"},
      {"net-bind=3000", "port is missing"},
      {"net-bind=*:3000", "without wildcards"},
      {"env=NPM_*", "not a pattern"},
      {"env=1ABC", "not a variable name"},
      {"env=A-B", "not a variable name"},
  }));
  CAPTURE(raw);
  CHECK_THROWS_AS(pmg::parse_override(raw, home_project_context()), pmg::UsageError);
  CHECK_THROWS_WITH(pmg::parse_override(raw, home_project_context()),
                    Catch::Contains("--sandbox-allow \"" + raw + "\"") && Catch::Contains(problem) &&
                        Catch::Contains("accepted forms: read=PATH") && Catch::Contains("net-connect=HOST:PORT") &&
                        Catch::Contains("env=NAME"));
}

TEST_CASE("apply_overrides appends to the allow list of each type", "[overrides]") {
  pmg::Policy p;
  for (const char* raw : {"read=/r", "write=/w", "exec=/x", "net-connect=h:1", "net-bind=127.0.0.1:2", "env=E"})
    CHECK(apply(p, raw).empty());
  CHECK(p.filesystem.allow_read == Strings{"/r"});
  CHECK(p.filesystem.allow_write == Strings{"/w"});
  CHECK(p.process.allow_exec == Strings{"/x"});
  CHECK(p.network.allow_outbound == Strings{"h:1"});
  CHECK(p.network.allow_bind == Strings{"127.0.0.1:2"});
  CHECK(p.environment.allow == Strings{"E"});
  CHECK(p.allow_network_bind == std::optional<bool>(true));
  apply(p, "read=/r");
  CHECK(p.filesystem.allow_read == Strings{"/r"});  // not duplicated
}

TEST_CASE("apply_overrides removes an exact deny entry, also one written with variables", "[overrides]") {
  pmg::Policy p;
  p.filesystem.deny_write = {"${CWD}/.gitignore", "${CWD}/other", "/home/u/proj/.gitignore/"};
  p.filesystem.deny_read = {"${HOME}/.npmrc"};
  p.process.deny_exec = {"/usr/bin/curl", "/usr/bin/wget"};
  p.network.deny_outbound = {"evil.com:443", "npm.internal.corp:443"};
  p.environment.deny = {"NPM_TOKEN"};
  apply(p, "write=./.gitignore");
  apply(p, "exec=/usr/bin/curl");
  apply(p, "net-connect=npm.internal.corp:443");
  apply(p, "env=NPM_TOKEN");
  CHECK(p.filesystem.deny_write == Strings{"${CWD}/other"});
  CHECK(p.filesystem.deny_read == Strings{"${HOME}/.npmrc"});  // only the corresponding list
  CHECK(p.process.deny_exec == Strings{"/usr/bin/wget"});
  CHECK(p.network.deny_outbound == Strings{"evil.com:443"});
  CHECK(p.environment.deny.empty());
  CHECK(contains(p.filesystem.allow_write, "/home/u/proj/.gitignore"));
}

TEST_CASE("apply_overrides never removes a glob deny and warns that it still applies", "[overrides]") {
  pmg::Policy p;
  p.filesystem.deny_read = {"/etc/**", "/etc/*"};
  p.network.deny_outbound = {"*.corp:443"};
  p.environment.deny = {"NPM_*"};
  const Strings w1 = apply(p, "read=/etc/passwd");
  const Strings w2 = apply(p, "net-connect=a.corp:443");
  const Strings w3 = apply(p, "env=NPM_TOKEN");
  CHECK(p.filesystem.deny_read == Strings{"/etc/**", "/etc/*"});
  CHECK(p.network.deny_outbound == Strings{"*.corp:443"});
  CHECK(p.environment.deny == Strings{"NPM_*"});
  REQUIRE(w1.size() == 2);
  CHECK_THAT(w1[0], Catch::Contains("read=/etc/passwd") && Catch::Contains("\"/etc/**\""));
  REQUIRE(w2.size() == 1);
  CHECK_THAT(w2[0], Catch::Contains("*.corp:443"));
  REQUIRE(w3.size() == 1);
  CHECK_THAT(w3[0], Catch::Contains("NPM_*"));
}

TEST_CASE("apply_overrides warns when a parent directory stays denied", "[overrides]") {
  pmg::Policy p;
  p.filesystem.deny_write = {"${CWD}/config", "${CWD}/conf*/**"};
  const Strings w = apply(p, "write=config/app.json");
  CHECK(p.filesystem.deny_write.size() == 2);
  CHECK(w.size() == 2);
}

TEST_CASE("an override can never remove a mandatory deny", "[overrides]") {
  pmg::Policy p;
  p.filesystem.deny_read = {"${HOME}/.ssh/id_rsa"};
  const pmg::MandatoryDenies before = pmg::mandatory_denies(p, home_project_context());
  const Strings warnings = apply(p, "read=/home/u/.ssh/id_rsa");
  // The policy's own exact entry goes, but the mandatory list is not made of policy entries.
  CHECK(p.filesystem.deny_read.empty());
  CHECK(contains(p.filesystem.allow_read, "/home/u/.ssh/id_rsa"));
  const pmg::MandatoryDenies after = pmg::mandatory_denies(p, home_project_context());
  CHECK(after == before);
  CHECK(contains(after.deny_read_write, "/home/u/.ssh"));
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Contains("mandatory deny \"/home/u/.ssh\"") && Catch::Contains("no override"));
}

TEST_CASE("a write override cannot open .git/hooks or, by default, .git/config", "[overrides]") {
  pmg::Policy p;
  const pmg::MandatoryDenies before = pmg::mandatory_denies(p, home_project_context());
  const Strings w1 = apply(p, "write=.git/hooks/pre-commit");
  const Strings w2 = apply(p, "write=.git/config");
  CHECK(pmg::mandatory_denies(p, home_project_context()) == before);
  REQUIRE(w1.size() == 1);
  CHECK_THAT(w1[0], Catch::Contains("/home/u/proj/.git/hooks"));
  REQUIRE(w2.size() == 1);
  CHECK_THAT(w2[0], Catch::Contains("/home/u/proj/.git/config"));
  p.allow_git_config = true;
  CHECK(apply(p, "write=.git/config").empty());
}

TEST_CASE("net-bind sets allow_network_bind and warns for a host beyond localhost", "[overrides]") {
  const auto [raw, warns] = GENERATE(table<std::string, bool>({
      {"net-bind=127.0.0.1:3000", false},
      {"net-bind=localhost:3000", false},
      {"net-bind=[::1]:3000", false},
      {"net-bind=0.0.0.0:3000", true},
      {"net-bind=192.168.1.2:3000", true},
      {"net-bind=[::]:3000", true},
  }));
  CAPTURE(raw);
  pmg::Policy p;
  p.allow_network_bind = false;
  const Strings w = apply(p, raw);
  CHECK(p.allow_network_bind == std::optional<bool>(true));
  CHECK(w.size() == (warns ? 1U : 0U));
  if (warns) CHECK_THAT(w[0], Catch::Contains(raw) && Catch::Contains("127.0.0.1"));
}

TEST_CASE("apply_overrides applies several overrides in order", "[overrides]") {
  pmg::Policy p;
  p.filesystem.deny_write = {"/home/u/proj/.gitignore"};
  const std::vector<pmg::Override> overrides{pmg::parse_override("write=./.gitignore", home_project_context()),
                                             pmg::parse_override("exec=/usr/bin/curl", home_project_context())};
  CHECK(pmg::apply_overrides(p, overrides, home_project_context()).empty());
  CHECK(p.filesystem.deny_write.empty());
  CHECK(p.process.allow_exec == Strings{"/usr/bin/curl"});
}
