#include <catch2/catch.hpp>

#include "support/unit_helpers.hpp"

#include "pmg/variables.hpp"

namespace {
using pmg::test_support::home_project_context;
}  // namespace

TEST_CASE("expand_variables replaces ${HOME} ${CWD} ${TMPDIR} and normalises", "[variables]") {
  const auto [input, expected] = GENERATE(table<std::string, std::string>({
      {"${HOME}/.npm", "/home/u/.npm"},
      {"${CWD}/node_modules/**", "/home/u/proj/node_modules/**"},
      {"${TMPDIR}", "/tmp"},
      {"${CWD}/../other/./x/", "/home/u/other/x"},
      {"/usr/bin/node", "/usr/bin/node"},
      {"${HOME}${CWD}", "/home/u/home/u/proj"},
      {"/opt/$x/y", "/opt/$x/y"},
      {"/a//b", "/a/b"},
  }));
  CHECK(pmg::expand_variables(input, home_project_context(), "test") == expected);
}

TEST_CASE("expand_variables rejects an unknown variable, naming where and the valid ones", "[variables]") {
  CHECK_THROWS_WITH(pmg::expand_variables("${USER}/x", home_project_context(), "profile p: filesystem.allow_read[0]"),
                    Catch::Contains("profile p: filesystem.allow_read[0]") &&
                        Catch::Contains("unknown variable ${USER}") &&
                        Catch::Contains("${HOME}, ${CWD} and ${TMPDIR}"));
  CHECK_THROWS_WITH(pmg::expand_variables("${home}/x", home_project_context(), "w"), Catch::Contains("${home}"));
}

TEST_CASE("expand_variables rejects an unterminated variable", "[variables]") {
  CHECK_THROWS_WITH(pmg::expand_variables("${HOME/x", home_project_context(), "where-1"),
                    Catch::Contains("where-1") && Catch::Contains("unterminated") &&
                        Catch::Contains("${HOME}, ${CWD} and ${TMPDIR}"));
}

TEST_CASE("expand_variables rejects ~ with a hint to use ${HOME}", "[variables]") {
  CHECK_THROWS_WITH(pmg::expand_variables("~/.npm", home_project_context(), "w"),
                    Catch::Contains("'~'") && Catch::Contains("${HOME}"));
}

TEST_CASE("expand_variables rejects a relative result", "[variables]") {
  CHECK_THROWS_WITH(pmg::expand_variables("node_modules", home_project_context(), "w"),
                    Catch::Contains("not an absolute path"));
  CHECK_THROWS_WITH(pmg::expand_variables("$HOME/x", home_project_context(), "w"),
                    Catch::Contains("not an absolute path") && Catch::Contains("${HOME}"));
  CHECK_THROWS_WITH(pmg::expand_variables("", home_project_context(), "w"), Catch::Contains("empty"));
}

TEST_CASE("expand_variables rejects NUL and newline", "[variables]") {
  CHECK_THROWS_WITH(pmg::expand_variables(std::string("/a\0b", 4), home_project_context(), "w"), Catch::Contains("NUL"));
  CHECK_THROWS_WITH(pmg::expand_variables("/a\nb", home_project_context(), "w"), Catch::Contains("newline"));
}

TEST_CASE("expand_variables refuses a context value that is not absolute", "[variables]") {
  pmg::Context c = home_project_context();
  c.home = "";
  // An empty HOME must not turn ${HOME}/.ssh into /.ssh.
  CHECK_THROWS_WITH(pmg::expand_variables("${HOME}/.ssh", c, "w"), Catch::Contains("${HOME}"));
  CHECK(pmg::expand_variables("${CWD}", c, "w") == "/home/u/proj");
}

TEST_CASE("expand_policy expands filesystem and process lists and names the entry on error", "[variables]") {
  pmg::Policy p;
  p.name = "p";
  p.source = "builtin:p";
  p.filesystem.allow_read = {"${HOME}/.npmrc"};
  p.filesystem.allow_write = {"${CWD}/**"};
  p.filesystem.deny_read = {"${HOME}/.ssh/"};
  p.filesystem.deny_write = {"${CWD}/.git/config"};
  p.filesystem.allow_unix_sockets = {"${TMPDIR}/s.sock"};
  p.process.allow_exec = {"/usr/bin/node"};
  p.process.deny_exec = {"${HOME}/bin/curl"};
  p.network.allow_outbound = {"registry.npmjs.org:443"};
  p.environment.allow = {"NPM_*"};
  const pmg::Policy e = pmg::expand_policy(p, home_project_context());
  CHECK(e.filesystem.allow_read == std::vector<std::string>{"/home/u/.npmrc"});
  CHECK(e.filesystem.allow_write == std::vector<std::string>{"/home/u/proj/**"});
  CHECK(e.filesystem.deny_read == std::vector<std::string>{"/home/u/.ssh"});
  CHECK(e.filesystem.deny_write == std::vector<std::string>{"/home/u/proj/.git/config"});
  CHECK(e.filesystem.allow_unix_sockets == std::vector<std::string>{"/tmp/s.sock"});
  CHECK(e.process.allow_exec == std::vector<std::string>{"/usr/bin/node"});
  CHECK(e.process.deny_exec == std::vector<std::string>{"/home/u/bin/curl"});
  CHECK(e.network.allow_outbound == p.network.allow_outbound);
  CHECK(e.environment.allow == p.environment.allow);

  p.filesystem.deny_write = {"/ok", "${PWD}/x"};
  CHECK_THROWS_WITH(pmg::expand_policy(p, home_project_context()),
                    Catch::Contains("builtin:p: filesystem.deny_write[1]") && Catch::Contains("${PWD}"));
}
