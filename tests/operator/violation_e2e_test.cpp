// End to end, with the real bubblewrap backend: a run that fails on a write outside allow_write
// records a violation, `pmg sandbox explain` names the rule and a flag, and the same run with that
// flag passes.
#include <catch2/catch.hpp>

#include <string>

#include "operator_support.hpp"

using operator_test::Layout;

namespace {

bool bubblewrap_built() {
  return std::filesystem::exists(operator_test::binary_dir() / "lib/pmg/plugins/libpmg-bubblewrap.so");
}

// The `allow` value of the latest violation, with its rule and target.
struct Latest {
  std::string rule, target, allow;
};

Latest latest_violation(const Layout& layout) {
  const auto json = layout.pmg({"sandbox", "violations", "--json", "--last", "1"});
  REQUIRE(json.status == 0);
  const auto tree = operator_test::parse_json(json.out);
  const auto& list = tree.get_child("violations");
  INFO("no violation was recorded: the host must launch through launch_recording_violations "
       "(docs/operator-guide.md, \"Host integration\")");
  REQUIRE(list.size() == 1);
  const auto& v = list.front().second;
  return {v.get<std::string>("rule"), v.get<std::string>("target"), v.get<std::string>("allow")};
}

}  // namespace

TEST_CASE("an npm install that writes outside allow_write: explain's flag makes it pass", "[e2e]") {
  if (!bubblewrap_built()) {
    WARN("SKIPPED: " << (operator_test::binary_dir() / "lib/pmg/plugins/libpmg-bubblewrap.so").string()
                     << " is not built; this test needs the bubblewrap backend");
    return;
  }
  Layout layout;
  // A project whose postinstall writes a file next to package.json, which npm-restrictive does
  // not allow (only node_modules, the manifest and the lock files). The lock file exists, so the
  // write that fails is the script's own.
  operator_test::write_text(layout.proj() / "package.json",
                            R"({"name":"ops-e2e","version":"1.0.0","scripts":{"postinstall":"node gen.js"}})");
  operator_test::write_text(layout.proj() / "package-lock.json",
                            R"({"name":"ops-e2e","version":"1.0.0","lockfileVersion":3,"requires":true,)"
                            R"("packages":{"":{"name":"ops-e2e","version":"1.0.0","hasInstallScript":true}}})");
  operator_test::write_text(layout.proj() / "gen.js",
                            "require('fs').writeFileSync(require('path').join(__dirname, 'generated.txt'), 'ok\\n');\n");
  const std::vector<std::string> install{"npm", "install", "--no-audit", "--no-fund", "--offline"};

  const auto failed = layout.pmg(install);
  INFO(failed.out << failed.err);
  REQUIRE(failed.status != 0);
  CHECK(failed.err.find("pmg sandbox explain") != std::string::npos);
  const Latest v = latest_violation(layout);
  CHECK(v.rule == "not in allow_write");
  CHECK(v.target == (layout.proj() / "generated.txt").string());
  CHECK(v.allow == "write=" + layout.proj().string());

  const auto explain = layout.pmg({"sandbox", "explain", "--last"});
  CHECK(explain.status == 0);
  CHECK(explain.out.find("denied: write " + v.target) != std::string::npos);
  CHECK(explain.out.find("allow: --sandbox-allow " + v.allow) != std::string::npos);

  std::vector<std::string> rerun{"--sandbox-allow", v.allow};
  rerun.insert(rerun.end(), install.begin(), install.end());
  const auto passed = layout.pmg(rerun);
  INFO(passed.out << passed.err);
  CHECK(passed.status == 0);
  CHECK(operator_test::read_text(layout.proj() / "generated.txt") == "ok\n");
}

TEST_CASE("sandbox exec: a relative write, a mandatory deny and a denied program", "[e2e]") {
  if (!bubblewrap_built()) {
    WARN("SKIPPED: libpmg-bubblewrap.so is not built; this test needs the bubblewrap backend");
    return;
  }
  Layout layout;
  operator_test::write_text(layout.proj() / ".env", "TOKEN=secret\n");
  const std::vector<std::string> exec{"sandbox", "exec", "--sandbox-profile=npm-restrictive", "--",
                                      "sh",      "-c",   "echo hi > out.txt"};
  const auto failed = layout.pmg(exec);
  REQUIRE(failed.status != 0);
  const Latest v = latest_violation(layout);
  CHECK(v.rule == "not in allow_write");
  CHECK(v.target == (layout.proj() / "out.txt").string());
  std::vector<std::string> rerun{"sandbox", "exec", "--sandbox-profile=npm-restrictive", "--sandbox-allow", v.allow,
                                 "--",      "sh",   "-c",                               "echo hi > out.txt"};
  CHECK(layout.pmg(rerun).status == 0);
  CHECK(operator_test::read_text(layout.proj() / "out.txt") == "hi\n");

  const auto env = layout.pmg({"sandbox", "exec", "--sandbox-profile=npm-restrictive", "--", "cat", ".env"});
  CHECK(env.status != 0);
  const Latest m = latest_violation(layout);
  CHECK(m.rule == "mandatory");
  CHECK(m.allow.empty());
  const auto explain = layout.pmg({"sandbox", "explain", "--last"});
  CHECK(explain.out.find("allow: cannot be allowed") != std::string::npos);

  if (!std::filesystem::exists("/usr/bin/curl")) return;  // deny_exec hides it; nothing to hide here
  const auto curl = layout.pmg({"sandbox", "exec", "--sandbox-profile=npm-restrictive", "--", "sh", "-c",
                                "/usr/bin/curl --version"});
  CHECK(curl.status != 0);
  const Latest c = latest_violation(layout);
  CHECK(c.rule == "deny_exec");
  CHECK(c.allow == "exec=/usr/bin/curl");
}
