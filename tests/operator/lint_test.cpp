// profile_lint.hpp: each warning class found in a profile written for it, at the entry's line and
// column, and nothing in the built-in profiles.
#include <catch2/catch.hpp>

#include "support/unit_helpers.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "pmg/inheritance.hpp"
#include "pmg/profile_lint.hpp"

namespace {

using pmg::test_support::work_project_context;

pmg::FakeFs sample_fs() {
  pmg::FakeFs fs;
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/usr/share", "/etc/ssl", "/bin", "/home/u/.npm",
                          "/home/u/.local/bin", "/work/proj/src", "/work/proj/docs", "/tmp"})
    fs.add_dir(dir);
  fs.add_file("/home/u/.bashrc");
  fs.add_file("/work/proj/package.json");
  return fs;
}

// Lints `yaml` as the file "test.yml", its parent (if any) taken from the built-ins.
std::vector<pmg::LintFinding> lint(const std::string& yaml, const pmg::FsView& fs,
                                   std::vector<std::string> path_dirs = {"/usr/bin", "/bin"}) {
  const pmg::PolicyDocument doc = pmg::parse_policy_document(yaml, "test.yml");
  const pmg::ProfileRegistry registry = pmg::ProfileRegistry::builtin_only();
  std::optional<pmg::Policy> parent;
  if (doc.policy.inherits) parent = registry.builtin(*doc.policy.inherits);
  const pmg::Policy resolved = parent ? pmg::inherit(*parent, doc.policy) : doc.policy;
  const pmg::LintContext lc{work_project_context(), fs, std::move(path_dirs), pmg::builtin_path_entries(registry)};
  return pmg::lint_policy(doc, resolved, parent ? &*parent : nullptr, lc);
}

std::vector<std::string> codes_at(const std::vector<pmg::LintFinding>& findings, std::size_t line) {
  std::vector<std::string> codes;
  for (const auto& f : findings)
    if (f.at.line == line) codes.push_back(f.code);
  return codes;
}

std::vector<std::string> all_codes(const std::vector<pmg::LintFinding>& findings) {
  std::vector<std::string> codes;
  for (const auto& f : findings) codes.push_back(f.code);
  return codes;
}

const std::string header = "name: t\npackage_managers: [npm]\nfilesystem:\n";  // 3 lines

}  // namespace

TEST_CASE("a system path that exists nowhere is reported, other platforms' and known paths are not", "[lint]") {
  const pmg::FakeFs fs = sample_fs();
  const auto findings = lint(header +
                                 "  allow_read:\n"
                                 "    - /usr/lcoal/share\n"         // line 5: typo
                                 "    - /System/Library/Fonts\n"    // macOS
                                 "    - /etc/pki\n"                 // named by a built-in (Red Hat)
                                 "    - ${HOME}/.not-yet-created\n"  // created by installs
                                 "    - /usr/shar*/doc\n"            // glob: base /usr exists
                                 "    - /opt/nothing/*.so\n",        // glob: base /opt/nothing missing
                             fs);
  REQUIRE(all_codes(findings) == std::vector<std::string>{"missing-path", "missing-path"});
  CHECK(findings[0].location() == "test.yml:5:7");
  CHECK(findings[0].what == "filesystem.allow_read entry \"/usr/lcoal/share\" exists nowhere on this machine");
  CHECK(findings[1].at.line == 10);
  CHECK(findings[1].what.find("starts from /opt/nothing") != std::string::npos);
  CHECK(!findings[0].why.empty());
  CHECK(!findings[0].fix.empty());
}

TEST_CASE("an allow covered by a deny is a dead rule", "[lint]") {
  const pmg::FakeFs fs = sample_fs();
  const auto findings = lint(header +
                                 "  allow_read:\n"
                                 "    - ${HOME}/.ssh/config\n"  // 5: mandatory credential deny
                                 "  allow_write:\n"
                                 "    - ${CWD}/docs/**\n"       // 7: deny_write ${CWD}/docs
                                 "    - ${CWD}/src\n"           // 8: only a part of it is denied: alive
                                 "    - ${CWD}/.git/hooks\n"    // 9: mandatory write deny
                                 "  deny_write:\n"
                                 "    - ${CWD}/docs\n"
                                 "  deny_read:\n"
                                 "    - ${CWD}/src/*.pem\n",
                             fs);
  CHECK(codes_at(findings, 5) == std::vector<std::string>{"dead-rule"});
  CHECK(codes_at(findings, 7) == std::vector<std::string>{"dead-rule"});
  CHECK(codes_at(findings, 8).empty());
  CHECK(codes_at(findings, 9) == std::vector<std::string>{"dead-rule"});
  const auto five = std::find_if(findings.begin(), findings.end(), [](const auto& f) { return f.at.line == 5; });
  CHECK(five->what.find("the mandatory deny \"/home/u/.ssh\"") != std::string::npos);
  CHECK(five->fix.find("mandatory denies") != std::string::npos);
  const auto seven = std::find_if(findings.begin(), findings.end(), [](const auto& f) { return f.at.line == 7; });
  CHECK(seven->what.find("filesystem.deny_write entry \"${CWD}/docs\"") != std::string::npos);
}

TEST_CASE("'/' or ${HOME}/** in allow_read opens all of HOME", "[lint]") {
  const pmg::FakeFs fs = sample_fs();
  const auto findings = lint(header +
                                 "  allow_read:\n"
                                 "    - /\n"                 // 5
                                 "    - ${HOME}/**\n"        // 6
                                 "    - ${HOME}/.npm/**\n"   // 7: fine
                                 "    - /home\n"             // 8: the parent of HOME
                                 "  allow_write:\n"
                                 "    - ${HOME}\n",          // 10
                             fs);
  CHECK(codes_at(findings, 5) == std::vector<std::string>{"opens-home"});
  CHECK(codes_at(findings, 6) == std::vector<std::string>{"opens-home"});
  CHECK(codes_at(findings, 7).empty());
  CHECK(codes_at(findings, 8) == std::vector<std::string>{"opens-home"});
  CHECK(codes_at(findings, 10) == std::vector<std::string>{"opens-home"});
  const auto six = std::find_if(findings.begin(), findings.end(), [](const auto& f) { return f.at.line == 6; });
  CHECK(six->what == "filesystem.allow_read entry \"${HOME}/**\" (here /home/u/**) covers all of HOME (/home/u)");
}

TEST_CASE("write access to a PATH directory or a shell start-up file is reported", "[lint]") {
  pmg::FakeFs fs = sample_fs();
  fs.add_file("/usr/local/bin/node");
  const auto findings = lint(header +
                                 "  allow_write:\n"
                                 "    - ${HOME}/.local/bin/**\n"   // 5: on PATH below
                                 "    - /usr/local/bin/node\n"     // 6: a program in a PATH directory
                                 "    - ${HOME}/.bashrc\n"         // 7
                                 "    - ${HOME}/.*\n"              // 8: every dotfile: rc files, and ~/.local/bin below ~/.local
                                 "    - ${CWD}/node_modules/**\n", // 9: fine
                             fs, {"/home/u/.local/bin", "/usr/local/bin", "/usr/bin"});
  CHECK(codes_at(findings, 5) == std::vector<std::string>{"writable-path-dir"});
  CHECK(codes_at(findings, 6) == std::vector<std::string>{"writable-path-dir"});
  CHECK(codes_at(findings, 7) == std::vector<std::string>{"writes-shell-startup"});
  CHECK(codes_at(findings, 8) == std::vector<std::string>{"writable-path-dir", "writes-shell-startup"});
  CHECK(codes_at(findings, 9).empty());
  const auto eight = std::find_if(findings.begin(), findings.end(),
                                  [](const auto& f) { return f.at.line == 8 && f.code == "writes-shell-startup"; });
  CHECK(eight->what.find("/home/u/.zshrc") != std::string::npos);
}

TEST_CASE("duplicate entries, also after expansion, and entries the parent already has", "[lint]") {
  const pmg::FakeFs fs = sample_fs();
  const auto findings = lint("name: t\ninherits: npm-restrictive\npackage_managers: [npm]\nfilesystem:\n"
                             "  allow_read:\n"
                             "    - ${HOME}/.config/tool\n"   // 6
                             "    - /home/u/.config/tool\n"   // 7: the same path written out
                             "    - /usr\n"                   // 8: inherited
                             "network:\n"
                             "  allow_outbound:\n"
                             "    - example.com:443\n"        // 11
                             "    - example.com:443\n",       // 12
                             fs);
  CHECK(codes_at(findings, 6).empty());
  CHECK(codes_at(findings, 7) == std::vector<std::string>{"duplicate"});
  CHECK(codes_at(findings, 8) == std::vector<std::string>{"inherited-duplicate"});
  CHECK(codes_at(findings, 11).empty());
  CHECK(codes_at(findings, 12) == std::vector<std::string>{"duplicate"});
  const auto seven = std::find_if(findings.begin(), findings.end(), [](const auto& f) { return f.at.line == 7; });
  CHECK(seven->what.find("repeats the entry at line 6") != std::string::npos);
}

TEST_CASE("a glob over the coarse-grained threshold in this CWD is reported", "[lint]") {
  pmg::FakeFs fs = sample_fs();
  for (int i = 0; i < 150; ++i) fs.add_file("/work/proj/data/f" + std::to_string(i) + ".csv");
  for (int i = 0; i < 20; ++i) fs.add_file("/work/proj/few/f" + std::to_string(i) + ".csv");
  const auto findings = lint(header +
                                 "  deny_read:\n"
                                 "    - ${CWD}/data/*.csv\n"   // 5: 150 matches
                                 "    - ${CWD}/few/*.csv\n"    // 6: 20
                                 "    - ${CWD}/data/**\n",     // 7: the whole tree: expressed as the directory
                             fs);
  REQUIRE(codes_at(findings, 5) == std::vector<std::string>{"coarse-glob"});
  CHECK(codes_at(findings, 6).empty());
  CHECK(codes_at(findings, 7).empty());
  CHECK(findings[0].why.find("/work/proj/data") != std::string::npos);
}

TEST_CASE("a profile the loader rejects is one error at its position", "[lint]") {
  const pmg::FakeFs fs = sample_fs();
  const std::string file = std::string(PMG_SOURCE_DIR) + "/tests/operator/fixtures/lint/invalid.yml";
  const pmg::ProfileRegistry registry = pmg::ProfileRegistry::builtin_only();
  const pmg::LintContext lc{work_project_context(), fs, {}, {}};
  const pmg::LintReport report = pmg::lint_profile(registry, file, lc);
  REQUIRE(report.findings.size() == 1);
  const pmg::LintFinding& f = report.findings[0];
  CHECK(f.severity == pmg::LintSeverity::error);
  CHECK(f.code == "invalid");
  CHECK(f.location() == file + ":7:3");
  CHECK(f.what.find("did you mean 'allow_write'?") != std::string::npos);
  CHECK(report.count(pmg::LintSeverity::error) == 1);
}

TEST_CASE("inheritance problems are errors too", "[lint]") {
  const pmg::FakeFs fs = sample_fs();
  const std::string file = std::string(PMG_SOURCE_DIR) + "/tests/operator/fixtures/lint/bad_parent.yml";
  const pmg::LintReport report =
      pmg::lint_profile(pmg::ProfileRegistry::builtin_only(), file, pmg::LintContext{work_project_context(), fs, {}, {}});
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].what.find("did you mean 'npm-restrictive'?") != std::string::npos);
}

TEST_CASE("the built-in profiles have no findings", "[lint]") {
  pmg::FakeFs fs = sample_fs();
  const pmg::ProfileRegistry registry = pmg::ProfileRegistry::builtin_only();
  const pmg::LintContext lc{work_project_context(), fs, {"/usr/local/bin", "/usr/bin", "/bin"}, pmg::builtin_path_entries(registry)};
  for (const std::string& name : registry.builtin_names()) {
    INFO(name);
    const pmg::LintReport report = pmg::lint_profile(registry, name, lc);
    for (const auto& f : report.findings) UNSCOPED_INFO(f.location() << " " << f.code << " " << f.what);
    CHECK(report.findings.empty());
  }
}
