// The operator commands as a user runs them: output against golden files (paths normalised), exit
// codes, and --json that parses.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "operator_support.hpp"
#include "pmg/event_log.hpp"
#include "pmg/violation_record.hpp"

using operator_test::check_golden;
using operator_test::Layout;
using operator_test::parse_json;

namespace {

const std::string lint_fixtures = std::string(PMG_SOURCE_DIR) + "/tests/operator/fixtures/lint/";

// A config with a policy template, and a user profile made by `profile init`.
void add_custom_profiles(const Layout& layout) {
  operator_test::write_text(layout.cfg() / "config.yml",
                            "sandbox:\n  policy_templates:\n    strict-npm:\n      path: " + lint_fixtures +
                                "clean.yml\n  policies:\n    npm: {enabled: true, profile: strict-npm}\n");
  const auto init = layout.pmg({"sandbox", "profile", "init", "my-npm", "--from", "npm-restrictive"});
  REQUIRE(init.status == 0);
}

}  // namespace

TEST_CASE("profile list: built-in, user and template profiles with their source and users", "[cli]") {
  Layout layout;
  add_custom_profiles(layout);
  const auto r = layout.pmg({"sandbox", "profile", "list"});
  CHECK(r.status == 0);
  // Columns are padded to the real paths' lengths, which differ between machines.
  check_golden("profile_list.txt", std::regex_replace(layout.normalise(r.out), std::regex(" {2,}"), "  "));
  const auto json = layout.pmg({"sandbox", "profile", "list", "--json"});
  REQUIRE(json.status == 0);
  const auto tree = parse_json(json.out);
  CHECK(tree.get_child("profiles").size() == 6);
  CHECK(tree.get<std::string>("user_profile_dir") == (layout.cfg() / "profiles").string());
}

TEST_CASE("profile show: as written, resolved with expansion and mandatory denies, and as JSON", "[cli]") {
  Layout layout;
  const auto plain = layout.pmg({"sandbox", "profile", "show", "npx"});
  CHECK(plain.status == 0);
  check_golden("profile_show_npx.txt", layout.normalise(plain.out));
  const auto resolved = layout.pmg({"sandbox", "profile", "show", "npx", "--resolved"});
  CHECK(resolved.status == 0);
  check_golden("profile_show_npx_resolved.txt", layout.normalise(resolved.out));
  const auto json = layout.pmg({"sandbox", "profile", "show", "npx", "--resolved", "--json"});
  REQUIRE(json.status == 0);
  const auto tree = parse_json(json.out);
  CHECK(tree.get<std::string>("policy.inherits") == "npm-restrictive");
  CHECK(tree.get<std::string>("mandatory.removable") == "false");
  CHECK(tree.get_child("expanded.filesystem.allow_write").front().second.data() == layout.home().string() + "/.npm/**");
  const auto missing = layout.pmg({"sandbox", "profile", "show", "npxx"});
  CHECK(missing.status == 1);
  CHECK(missing.err.find("did you mean 'npx'?") != std::string::npos);
}

TEST_CASE("profile lint: each warning class in a fixture made for it", "[cli]") {
  Layout layout;
  for (int i = 0; i < 150; ++i) operator_test::write_text(layout.proj() / "data" / ("f" + std::to_string(i) + ".csv"), "");
  struct Case {
    std::string fixture;
    std::string code;
  };
  for (const Case& c : std::vector<Case>{{"missing_path", "missing-path"},
                                         {"dead_rule", "dead-rule"},
                                         {"opens_home", "opens-home"},
                                         {"writable_path", "writable-path-dir"},
                                         {"shell_startup", "writes-shell-startup"},
                                         {"duplicates", "duplicate"},
                                         {"coarse_glob", "coarse-glob"}}) {
    INFO(c.fixture);
    const std::string file = lint_fixtures + c.fixture + ".yml";
    const auto r = layout.pmg({"sandbox", "profile", "lint", file});
    CHECK(r.status == 0);  // warnings alone pass ...
    CHECK(r.out.find("warning [" + c.code + "]") != std::string::npos);
    check_golden("lint_" + c.fixture + ".txt", layout.normalise(r.out));
    CHECK(layout.pmg({"sandbox", "profile", "lint", file, "--strict"}).status == 1);  // ... unless --strict
  }
  const auto invalid = layout.pmg({"sandbox", "profile", "lint", lint_fixtures + "invalid.yml"});
  CHECK(invalid.status == 1);
  check_golden("lint_invalid.txt", layout.normalise(invalid.out));
  const auto clean = layout.pmg({"sandbox", "profile", "lint", lint_fixtures + "clean.yml", "--strict"});
  CHECK(clean.status == 0);
  CHECK(layout.normalise(clean.out) == "<SRC>/tests/operator/fixtures/lint/clean.yml: no problems found\n");
}

TEST_CASE("profile lint --strict finds nothing in the built-in profiles", "[cli]") {
  Layout layout;
  for (const char* name : {"npm-restrictive", "npx", "pnpm-restrictive", "pypi-restrictive"}) {
    const auto r = layout.pmg({"sandbox", "profile", "lint", name, "--strict"});
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out == std::string("builtin:") + name + ": no problems found\n");
  }
}

TEST_CASE("profile diff: rule by rule", "[cli]") {
  Layout layout;
  const auto r = layout.pmg({"sandbox", "profile", "diff", "npm-restrictive", "npx"});
  CHECK(r.status == 0);
  check_golden("profile_diff_npm_npx.txt", layout.normalise(r.out));
  const auto same = layout.pmg({"sandbox", "profile", "diff", "npx", "npx"});
  CHECK(same.status == 0);
  CHECK(same.out.find("no differences") != std::string::npos);
  CHECK(layout.pmg({"sandbox", "profile", "diff", "npx"}).status == 2);
}

TEST_CASE("profile init: a commented profile that loads, lints clean and is not overwritten", "[cli]") {
  Layout layout;
  const auto r = layout.pmg({"sandbox", "profile", "init", "my-npm", "--from", "npm-restrictive"});
  REQUIRE(r.status == 0);
  const auto file = layout.cfg() / "profiles" / "my-npm.yml";
  check_golden("profile_init_my-npm.yml", operator_test::read_text(file));
  CHECK(layout.pmg({"sandbox", "profile", "lint", "my-npm", "--strict"}).status == 0);
  CHECK(layout.pmg({"sandbox", "profile", "show", "my-npm", "--resolved"}).status == 0);
  const auto again = layout.pmg({"sandbox", "profile", "init", "my-npm", "--from", "npx"});
  CHECK(again.status == 1);
  CHECK(again.err.find("already exists") != std::string::npos);
  CHECK(layout.pmg({"sandbox", "profile", "init", "npx", "--from", "npm-restrictive"}).status == 1);
  CHECK(layout.pmg({"sandbox", "profile", "init", "x", "--from", "my-npm"}).status == 2);
  CHECK(layout.pmg({"sandbox", "profile", "init", "bad/name", "--from", "npx"}).status == 2);
  CHECK(layout.pmg({"sandbox", "profile", "init", "y"}).status == 2);
}

TEST_CASE("usage errors of the operator commands exit 2", "[cli]") {
  Layout layout;
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"sandbox", "profile"},
           {"sandbox", "profile", "frob"},
           {"sandbox", "profile", "show"},
           {"sandbox", "profile", "lint", "a", "b"},
           {"sandbox", "profile", "list", "--bogus"},
           {"sandbox", "doctor", "extra"},
           {"sandbox", "violations", "--last", "0"},
           {"sandbox", "violations", "--last", "x"},
           {"sandbox", "explain", "--first"}}) {
    INFO(args.back());
    CHECK(layout.pmg(args).status == 2);
  }
  CHECK(layout.pmg({"sandbox", "profile", "--help"}).status == 0);
}

TEST_CASE("doctor: exit 0 when the default backend works, the fix when it does not", "[cli]") {
  Layout layout;
  const auto r = layout.pmg({"sandbox", "doctor"});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK(r.out.find("the bubblewrap backend works") != std::string::npos);
  const auto json = layout.pmg({"sandbox", "doctor", "--json"});
  CHECK(json.status == 0);
  const auto tree = parse_json(json.out);
  CHECK(tree.get<std::string>("ok") == "true");
  CHECK(tree.get<std::string>("backend") == "bubblewrap");

  const auto no_bwrap = layout.pmg({"sandbox", "doctor"}, {{"PATH", "/nonexistent"}});
  CHECK(no_bwrap.status == 1);
  CHECK(no_bwrap.out.find("FAILED   bwrap") != std::string::npos);
  CHECK(no_bwrap.out.find("fix: sudo apt-get install bubblewrap") != std::string::npos);

  const auto unknown = layout.pmg({"sandbox", "doctor", "--json"}, {{"PMG_SANDBOX_BACKEND", "nosuch"}});
  CHECK(unknown.status == 1);
  const auto unknown_tree = parse_json(unknown.out);
  CHECK(unknown_tree.get<std::string>("ok") == "false");
  CHECK(unknown.out.find("export PMG_SANDBOX_BACKEND=") != std::string::npos);

  operator_test::write_text(layout.cfg() / "config.yml", "sandbox:\n  enabeld: true\n");
  const auto bad_config = layout.pmg({"sandbox", "doctor"});
  CHECK(bad_config.status == 1);
  CHECK(bad_config.out.find("did you mean 'enabled'?") != std::string::npos);
}

namespace {

// An event log with two runs: the second had two violations.
void write_event_log(const Layout& layout) {
  const pmg::EventLog log(layout.cfg() / "events.jsonl");
  pmg::RunDescription first;
  first.id = "run-1";
  first.observed_by = "stderr";
  first.profile = "npm-restrictive";
  first.profile_source = "builtin:npm-restrictive";
  first.backend = "bubblewrap";
  first.tool = "npm";
  first.args = {"install"};
  first.cwd = layout.proj().string();
  const std::string cwd = layout.proj().string();
  log.append(pmg::make_violation_event(
      first, {pmg::Operation::exec, "/usr/bin/curl", pmg::RuleKind::deny_exec, "/usr/bin/curl",
              "denied by the process.deny_exec entry \"/usr/bin/curl\" of profile npm-restrictive", "exec=/usr/bin/curl",
              "", "EACCES", "Error: spawn /usr/bin/curl EACCES"}));
  log.append(pmg::make_event("run"));
  pmg::RunDescription second = first;
  second.id = "run-2";
  second.exec = true;
  second.tool.clear();
  second.args = {"sh", "-c", "echo x > out.txt; cat .env"};
  log.append(pmg::make_violation_event(
      second, {pmg::Operation::write, cwd + "/out.txt", pmg::RuleKind::not_in_allow_write, "",
               "no filesystem.allow_write entry of profile npm-restrictive covers it", "write=" + cwd,
               cwd + "/out.txt does not exist yet", "EROFS", "sh: 1: cannot create out.txt: Read-only file system"}));
  log.append(pmg::make_violation_event(
      second, {pmg::Operation::read, cwd + "/.env", pmg::RuleKind::mandatory, cwd + "/.env",
               "pmg's mandatory deny \"" + cwd + "/.env\": credential stores are hidden", "",
               "cannot be allowed: mandatory denies are not part of any profile", "EACCES",
               "cat: .env: Permission denied"}));
}

}  // namespace

TEST_CASE("violations and explain read the event log", "[cli]") {
  Layout layout;
  const auto none = layout.pmg({"sandbox", "explain"});
  CHECK(none.status == 1);
  CHECK(none.out.find("nothing to explain") != std::string::npos);
  CHECK(layout.pmg({"sandbox", "violations"}).status == 0);

  write_event_log(layout);
  const auto all = layout.pmg({"sandbox", "violations"});
  CHECK(all.status == 0);
  check_golden("violations.txt", layout.normalise(all.out));
  const auto last = layout.pmg({"sandbox", "violations", "--last", "1"});
  CHECK(last.status == 0);
  check_golden("violations_last_1.txt", layout.normalise(last.out));
  const auto json = layout.pmg({"sandbox", "violations", "--json"});
  REQUIRE(json.status == 0);
  const auto tree = parse_json(json.out);
  CHECK(tree.get_child("violations").size() == 3);
  CHECK(tree.get_child("violations").back().second.get<std::string>("rule") == "mandatory");

  const auto explain = layout.pmg({"sandbox", "explain"});
  CHECK(explain.status == 0);
  check_golden("explain.txt", layout.normalise(explain.out));
  const auto explain_last = layout.pmg({"sandbox", "explain", "--last"});
  CHECK(explain_last.status == 0);
  check_golden("explain_last.txt", layout.normalise(explain_last.out));
}
