// The host end to end: `pmg` as a user types it, with real bwrap, npm and pip, once as root and
// once as an unprivileged user. Each attack is also run without pmg to prove the test can fail.
#include <catch2/catch.hpp>
#include <boost/property_tree/json_parser.hpp>

#include "e2e/host_world.hpp"

namespace {

using namespace pmg::test_support;

// A package whose postinstall tries four attacks and records each outcome in node_modules/.report.
fs::path make_evil_npm_package(const World& w) {
  const fs::path src = w.home.tmp / "evil-src/package";
  write_file(src / "package.json",
             R"({"name": "evil", "version": "1.0.0", "scripts": {"postinstall": "node attack.js"}})");
  write_file(src / "attack.js", R"JS(
const fs = require('fs'), os = require('os');
const project = process.env.INIT_CWD, home = os.homedir(), report = {};
function attempt(name, f) { try { f(); report[name] = 'OK'; } catch (e) { report[name] = 'FAIL ' + e.code; } }
attempt('read_ssh_key', () => fs.readFileSync(home + '/.ssh/id_rsa'));
attempt('read_dotenv', () => fs.readFileSync(project + '/.env'));
attempt('write_git_hook', () => { fs.mkdirSync(project + '/.git/hooks', {recursive: true});
                                  fs.writeFileSync(project + '/.git/hooks/pre-commit', '#!/bin/sh\necho pwned\n'); });
attempt('write_bashrc', () => fs.appendFileSync(home + '/.bashrc', 'echo pwned\n'));
fs.writeFileSync(project + '/node_modules/.report', JSON.stringify(report));
)JS");
  const fs::path tgz = w.home.project / "evil-1.0.0.tgz";
  REQUIRE(run_captured({"/bin/tar", "-czf", tgz.string(), "-C", src.parent_path().string(), "package"}).status == 0);
  w.give(tgz);
  return tgz;
}

void check_report(const std::string& report, bool expect_success) {
  INFO("report: " << report);
  for (const char* attack : {"read_ssh_key", "read_dotenv", "write_git_hook", "write_bashrc"}) {
    INFO(attack);
    const std::string ok = std::string("\"") + attack + "\":\"OK\"";
    CHECK((report.find(ok) != std::string::npos) == expect_success);
  }
}

void npm_install_from_registry(bool unprivileged) {
  World w(user_for(unprivileged));
  const RunResult r = w.pmg({"npm", "install", "is-number@7.0.0"});
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(fs::exists(w.home.project / "node_modules/is-number/package.json"));
  const auto events = w.events();
  REQUIRE(!events.empty());
  const auto& run = events.back();
  CHECK(run.get<std::string>("type") == "run");
  CHECK(run.get<std::string>("pm") == "npm");
  CHECK(run.get<std::string>("profile") == "npm-restrictive");
  CHECK(run.get<std::string>("backend") == "bubblewrap");
  CHECK(run.get<int>("exit_status") == 0);
  CHECK(run.get_child("packages").front().second.data() == "is-number@7.0.0");
}

void npm_postinstall_attacks_fail(bool unprivileged) {
  World w(user_for(unprivileged));
  make_evil_npm_package(w);
  const std::string bashrc_before = read(w.home.home / ".bashrc");
  const RunResult r = w.pmg({"npm", "install", "./evil-1.0.0.tgz"});
  INFO(r.output);
  REQUIRE(r.status == 0);
  check_report(read(w.home.project / "node_modules/.report"), false);
  CHECK_FALSE(fs::exists(w.home.project / ".git/hooks/pre-commit"));
  CHECK(read(w.home.home / ".bashrc") == bashrc_before);
  CHECK(r.output.find(secret_marker) == std::string::npos);

  // The same install without pmg: every attack succeeds, so the assertions above can fail.
  fs::remove_all(w.home.project / "node_modules");
  const RunResult direct = w.run({"/usr/bin/npm", "install", "./evil-1.0.0.tgz"});
  INFO(direct.output);
  REQUIRE(direct.status == 0);
  check_report(read(w.home.project / "node_modules/.report"), true);
  CHECK(fs::exists(w.home.project / ".git/hooks/pre-commit"));
}

// A local sdist whose setup.py attacks while pip builds it (PyPI is unreachable: all local).
void pip_setup_py_attacks_fail(bool unprivileged) {
  World w(user_for(unprivileged));
  // pip builds a local directory in place (evil.egg-info next to setup.py): the source lives in
  // TMPDIR, which the profile lets the build write, as an unpacked sdist would.
  const fs::path src = w.home.tmp / "evil";
  write_file(src / "setup.py", R"PY(
import json, os
from setuptools import setup
home, project, report = os.path.expanduser('~'), os.environ['EVIL_PROJECT'], {}
def attempt(name, f):
    try:
        f(); report[name] = 'OK'
    except Exception as e:
        report[name] = 'FAIL ' + type(e).__name__
attempt('read_ssh_key', lambda: open(home + '/.ssh/id_rsa').read())
attempt('read_dotenv', lambda: open(project + '/.env').read())
def hook():
    os.makedirs(project + '/.git/hooks', exist_ok=True)
    open(project + '/.git/hooks/pre-commit', 'w').write('#!/bin/sh\necho pwned\n')
attempt('write_git_hook', hook)
attempt('write_bashrc', lambda: open(home + '/.bashrc', 'a').write('echo pwned\n'))
open(os.environ['EVIL_REPORT'], 'w').write(json.dumps(report).replace(' ', ''))
setup(name='evil', version='1.0.0', py_modules=[])
)PY");
  w.give(src);
  const RunResult venv = w.run({"/usr/bin/python3", "-m", "venv", "--system-site-packages", ".venv"});
  REQUIRE(venv.status == 0);
  const std::string path = (w.home.project / ".venv/bin").string() + ":/usr/bin:/bin";
  // TMPDIR is writable under the profile; the project root is not.
  const std::string report = (w.home.tmp / "report-pip").string();
  const std::vector<std::string> env{"EVIL_PROJECT=" + w.home.project.string(), "EVIL_REPORT=" + report,
                                     "PIP_DISABLE_PIP_VERSION_CHECK=1"};
  const std::string bashrc_before = read(w.home.home / ".bashrc");

  const RunResult r = w.pmg({"pip", "install", "--no-index", "--no-build-isolation", src.string()}, env, path);
  INFO(r.output);
  REQUIRE(r.status == 0);
  check_report(read(report), false);
  CHECK_FALSE(fs::exists(w.home.project / ".git/hooks/pre-commit"));
  CHECK(read(w.home.home / ".bashrc") == bashrc_before);
  CHECK(w.run({(w.home.project / ".venv/bin/pip").string(), "show", "evil"}, {}, path).status == 0);

  const RunResult direct = w.run({(w.home.project / ".venv/bin/pip").string(), "install", "--no-index",
                                  "--no-build-isolation", "--force-reinstall", src.string()},
                                 env, path);
  INFO(direct.output);
  REQUIRE(direct.status == 0);
  check_report(read(report), true);
}

void exit_status_and_signals(bool unprivileged) {
  World w(user_for(unprivileged));
  const std::vector<std::string> exec{"sandbox", "exec", "--sandbox-profile=npm-restrictive", "--"};
  auto with = [&](std::vector<std::string> cmd) {
    std::vector<std::string> args = exec;
    args.insert(args.end(), cmd.begin(), cmd.end());
    return w.pmg(args);
  };
  CHECK(with({"/bin/sh", "-c", "exit 3"}).status == 3);
  CHECK(with({"/bin/sh", "-c", "kill -TERM $$"}).status == 143);
  CHECK(with({"true"}).status == 0);
}

void fail_closed(bool unprivileged) {
  World w(user_for(unprivileged));
  // No bwrap on PATH: node and npm are there, the sandbox is not; npm must never start.
  const fs::path bin = w.home.tmp / "bin-without-bwrap";
  fs::create_directories(bin);
  for (const char* tool : {"node", "npm", "sh"}) fs::create_symlink(fs::path("/usr/bin") / tool, bin / tool);
  w.give(bin);
  const RunResult no_bwrap = w.pmg({"npm", "install", "is-number@7.0.0"}, {}, bin.string());
  INFO(no_bwrap.output);
  CHECK(no_bwrap.status == 1);
  CHECK_THAT(no_bwrap.output, Catch::Contains("bubblewrap") && Catch::Contains("unsandboxed"));
  CHECK_FALSE(fs::exists(w.home.project / "node_modules"));

  // A profile that does not exist: refused, nothing runs.
  const RunResult missing = w.pmg({"--sandbox-profile=no-such-profile", "npm", "install", "is-number@7.0.0"});
  CHECK(missing.status == 1);
  CHECK_THAT(missing.output, Catch::Contains("no-such-profile"));
  CHECK_FALSE(fs::exists(w.home.project / "node_modules"));

  // A profile for another package manager: refused.
  const RunResult wrong = w.pmg({"--sandbox-profile=pypi-restrictive", "npm", "install", "is-number@7.0.0"});
  CHECK(wrong.status == 1);
  CHECK_THAT(wrong.output, Catch::Contains("package_managers"));

  // policies.npm.enabled: false runs npm unsandboxed, and says so.
  write_file(w.config / "config.yml", "sandbox:\n  policies:\n    npm:\n      enabled: false\n");
  w.give(w.config);
  const RunResult disabled = w.pmg({"npm", "--version"});
  CHECK(disabled.status == 0);
  CHECK_THAT(disabled.output, Catch::Contains("UNSANDBOXED"));
}

void overrides(bool unprivileged) {
  World w(user_for(unprivileged));
  const RunResult write = w.pmg({"sandbox", "exec", "--sandbox-profile=npm-restrictive", "--sandbox-allow",
                                 "write=./.gitignore", "--", "/bin/sh", "-c",
                                 "echo allowed > .gitignore; echo denied > other.txt; exit 0"});
  INFO(write.output);
  CHECK(write.status == 0);
  CHECK(read(w.home.project / ".gitignore") == "allowed\n");
  CHECK_FALSE(fs::exists(w.home.project / "other.txt"));
  const auto events = w.events();
  bool logged = false;
  for (const auto& e : events)
    logged = logged || (e.get<std::string>("type") == "override" && e.get<std::string>("raw") == "write=./.gitignore");
  CHECK(logged);

  const RunResult tilde = w.pmg({"--sandbox-allow", "read=~/.ssh/id_rsa", "npm", "install"});
  CHECK(tilde.status == 2);
  CHECK_THAT(tilde.output, Catch::Contains("read=~/.ssh/id_rsa") && Catch::Contains("$HOME"));

  const std::string key = (w.home.home / ".ssh/id_rsa").string();
  const RunResult mandatory = w.pmg({"sandbox", "exec", "--sandbox-profile=npm-restrictive", "--sandbox-allow",
                                     "read=" + key, "--", "/bin/cat", key});
  CHECK(mandatory.status != 0);
  CHECK(mandatory.output.find(secret_marker) == std::string::npos);
}

void usage_errors(bool unprivileged) {
  World w(user_for(unprivileged));
  struct Row {
    std::vector<std::string> args;
    const char* message;
  };
  const std::vector<Row> rows = {
      {{"--bogus", "npm", "install"}, "unknown option '--bogus'"},
      {{}, "missing <pm>"},
      {{"--sandbox"}, "missing <pm>"},
      {{"frobnicator", "install"}, "unknown package manager 'frobnicator'"},
      {{"--sandbox-allow", "teleport=/x", "npm", "install"}, "teleport=/x"},
      {{"--sandbox-allow", "exec=/usr/bin/*", "npm", "install"}, "exec=/usr/bin/*"},
      {{"--sandbox-allow", "net-connect=example.com", "npm", "install"}, "net-connect=example.com"},
      {{"--sandbox-profile"}, "--sandbox-profile needs a value"},
      {{"sandbox", "exec", "--", "true"}, "--sandbox-profile"},
      {{"sandbox", "frob"}, "unknown command"},
  };
  for (const auto& row : rows) {
    const RunResult r = w.pmg(row.args);
    INFO(Catch::Detail::stringify(row.args) << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains(row.message));
  }
  CHECK_FALSE(fs::exists(w.home.project / "node_modules"));
}

}  // namespace

#define PMG_E2E(name, function)                                               \
  TEST_CASE("host e2e: " name " (root)", "[e2e][host]") { function(false); } \
  TEST_CASE("host e2e: " name " (unprivileged)", "[e2e][host]") { function(true); }

PMG_E2E("npm install from the registry works and is logged", npm_install_from_registry)
PMG_E2E("npm postinstall attacks fail under pmg and succeed without it", npm_postinstall_attacks_fail)
PMG_E2E("pip setup.py attacks fail under pmg and succeed without it", pip_setup_py_attacks_fail)
PMG_E2E("exit status and signals propagate", exit_status_and_signals)
PMG_E2E("pmg fails closed", fail_closed)
PMG_E2E("runtime overrides open exactly what they name", overrides)
PMG_E2E("usage errors exit 2 and name the problem", usage_errors)
