// End-to-end tests: real bwrap runs, once as root and once as an unprivileged user, with a fake
// HOME and project full of secrets. One sandbox run checks many attacks through checks.sh, which
// reports each outcome; the test then requires every outcome, that no secret reached the output,
// and that the host tree is exactly as before (apart from what the allowed checks wrote).
#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/sandbox_fixture.hpp"

namespace {

namespace fs = std::filesystem;
using namespace pmg::test_support;

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string checks_script = read_text(fs::path(PMG_SOURCE_DIR) / "plugins/bubblewrap/tests/e2e/checks.sh");

// The policies of the attack runs: HOME readable and the project writable, far more than any
// built-in profile opens, so the mandatory denies are what stops each attack.
std::string attack_policy(bool allow_git_config) {
  return std::string(R"(
name: e2e-attacks
package_managers: [npm]
allow_pty: true
)") + (allow_git_config ? "allow_git_config: true\n" : "") +
         R"(filesystem:
  allow_read: ["${HOME}"]
  allow_write: ["${CWD}", "${CWD}/node_modules/**", "${CWD}/locked.txt"]
  deny_write: ["${CWD}/locked.txt"]
process:
  deny_exec: ["/usr/bin/perl*"]
network:
  deny_outbound: ["*:*"]
)";
}

struct Scenario {
  const StagingDir& stage;
  std::optional<TestUser> user;
  fs::path driver;
};

// Runs checks.sh under `policy` in `home`'s project and requires each expected outcome.
RunResult run_checks(const Scenario& s, const std::string& policy, const FakeHome& home,
                     const std::map<std::string, std::string>& expected, const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv{s.driver.string(), "--policy",     policy, "--home", home.home.string(), "--cwd",
                                home.project.string(), "--tmpdir", home.tmp.string(), "--",  "/bin/bash",
                                "-c",                  checks_script, "checks"};
  for (const auto& [name, outcome] : expected) argv.push_back(name + "=" + outcome);
  RunResult r = run_captured(argv, s.user, env);
  INFO(r.output);
  REQUIRE(r.status == 0);
  for (const auto& [name, outcome] : expected) {
    INFO("check " << name << " should " << outcome);
    CHECK(("\n" + r.output).find("\n" + name + " ok\n") != std::string::npos);
  }
  CHECK(r.output.find(secret_marker) == std::string::npos);
  return r;
}

void write_policy(const fs::path& file, const std::string& text) { write_file(file, text); }

bool is_any_of(const fs::path& rel, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (rel == n) return true;
  return false;
}

// The driver, with pmg-netbridge next to it as in an install (policies with allow_outbound).
fs::path stage_driver(const StagingDir& stage) {
  stage.add_executable(PMG_BINARY_DIR "/bin/pmg-netbridge");
  return stage.add_executable(PMG_BWRAP_RUN);
}

void attacks_fail_and_installs_work(const std::optional<TestUser>& user) {
  const StagingDir stage(user ? "bwrap-e2e-user" : "bwrap-e2e-root");
  const Scenario s{stage, user, stage_driver(stage)};
  const LoopbackListener listener;
  const std::string port_env = "PMG_E2E_HOST_PORT=" + std::to_string(listener.port());

  const fs::path deny_policy = stage.path() / "attacks.yml";
  const fs::path config_policy = stage.path() / "attacks-git-config.yml";
  write_policy(deny_policy, attack_policy(false));
  write_policy(config_policy, attack_policy(true));

  SECTION("a project with .git but no hooks, allow_git_config unset") {
    const FakeHome home = FakeHome::create(stage.path() / "a", user);
    write_file(home.project / "locked.txt", "locked\n");
    chown_tree(home.project / "locked.txt", user);
    const auto unchanged = [](const fs::path& rel) {
      return is_any_of(rel, {"home/project/node_modules", "home/project/src/new.js", "tmp"});
    };
    const std::string before = snapshot_tree(stage.path() / "a", unchanged);
    const fs::path log = home.tmp / "pmg-debug.log";  // writable by the user the driver runs as
    run_checks(s, deny_policy.string(), home,
               {{"read_ssh_key", "deny"},      {"list_ssh", "deny"},         {"read_aws", "deny"},
                {"read_kube", "deny"},         {"read_docker", "deny"},      {"read_gnupg", "deny"},
                {"read_env", "deny"},          {"read_env_production", "deny"}, {"read_deep_env", "deny"},
                {"read_key_link", "deny"},     {"write_env", "deny"},        {"write_hook", "deny"},
                {"rename_git", "deny"},        {"write_git_config", "deny"}, {"write_etc", "deny"},
                {"write_usr", "deny"},         {"write_usr_bin", "deny"},    {"write_outside", "deny"},
                {"write_home", "deny"},        {"write_locked", "deny"},     {"exec_denied", "deny"},
                {"umount_env", "deny"},        {"umount_ssh", "deny"},       {"net_out", "deny"},
                {"net_host_loopback", "deny"}, {"no_capabilities", "allow"}, {"read_project", "allow"},
                {"write_project", "allow"},    {"write_node_modules", "allow"}, {"write_tmpdir", "allow"},
                {"run_node", "allow"},         {"run_python", "allow"},      {"pty", "allow"}},
               {port_env, "APP_LOG_LEVEL=debug", "APP_LOG_FILE=" + log.string()});
    // The host is exactly as it was: no hooks directory, no placeholder, .git not renamed.
    CHECK(snapshot_tree(stage.path() / "a", unchanged) == before);
    CHECK_FALSE(fs::exists(home.project / ".git/hooks"));
    CHECK(fs::exists(home.project / "node_modules/left-pad/index.js"));

    // The debug log has one pasteable `Bubblewrap arguments:` line; pasted into a shell it runs.
    const std::string text = read_text(log);
    const std::string marker = "Bubblewrap arguments: ";
    REQUIRE(text.find(marker) != std::string::npos);
    CHECK(text.find(marker, text.find(marker) + 1) == std::string::npos);
    const std::size_t at = text.find(marker) + marker.size();
    const std::string pasted = text.substr(at, text.find('\n', at) - at);
    const RunResult again = run_captured({"/bin/sh", "-c", "bwrap " + pasted + " -- /bin/true"}, user);
    INFO(again.output);
    CHECK(again.status == 0);
  }

  SECTION("a project with .git/hooks, allow_git_config: true") {
    const FakeHome home = FakeHome::create(stage.path() / "b", user, /*with_hooks_dir=*/true);
    const auto unchanged = [](const fs::path& rel) { return is_any_of(rel, {"home/project/.git/config", "tmp"}); };
    const std::string before = snapshot_tree(stage.path() / "b", unchanged);
    run_checks(s, config_policy.string(), home,
               {{"write_git_config", "allow"}, {"write_hook", "deny"}, {"rename_git", "deny"},
                {"rename_hooks", "deny"},      {"read_env", "deny"}});
    CHECK(snapshot_tree(stage.path() / "b", unchanged) == before);
    CHECK(read_text(home.project / ".git/config").find("hooksPath") != std::string::npos);
  }

  SECTION("the built-in npm-restrictive profile") {
    const FakeHome home = FakeHome::create(stage.path() / "c", user);
    const auto unchanged = [](const fs::path& rel) {
      return is_any_of(rel, {"home/project/node_modules", "home/project/package-lock.json", "tmp"});
    };
    const std::string before = snapshot_tree(stage.path() / "c", unchanged);
    run_checks(s, "npm-restrictive", home,
               {{"read_project", "allow"},  {"write_node_modules", "allow"}, {"write_tmpdir", "allow"},
                {"write_lockfile", "allow"},
                {"run_node", "allow"},      {"run_python", "allow"},         {"write_project", "deny"},
                {"pty", "deny"},            {"read_ssh_key", "deny"},        {"read_env", "deny"},
                {"read_deep_env", "deny"},  {"exec_curl", "deny"},           {"write_home", "deny"},
                {"no_capabilities", "allow"}});
    // Placeholders the run did not write (yarn.lock, bun.lock, ...) are gone; the lock file stays.
    CHECK(snapshot_tree(stage.path() / "c", unchanged) == before);
    CHECK(read_text(home.project / "package-lock.json") == "{\"lockfileVersion\": 3}\n");
  }
}

}  // namespace

TEST_CASE("e2e as root: attacks fail, installs work, the host is unchanged", "[e2e]") {
  if (::getuid() != 0) {
    WARN("skipped: needs root (CI runs as root)");
    return;
  }
  attacks_fail_and_installs_work(std::nullopt);
}

TEST_CASE("e2e as an unprivileged user: attacks fail, installs work, the host is unchanged", "[e2e]") {
  if (::getuid() == 0) attacks_fail_and_installs_work(ensure_unprivileged_user());
  else attacks_fail_and_installs_work(std::nullopt);  // already unprivileged
}

TEST_CASE("e2e: arguments beyond ARG_MAX reach bwrap through --args", "[e2e]") {
  const StagingDir stage("bwrap-e2e-argmax");
  const fs::path driver = stage_driver(stage);
  const FakeHome home = FakeHome::create(stage.path(), std::nullopt);
  // Each allowed path goes through its own symlink, deep in a ~3.8 kB directory chain, whose
  // target is ~3.9 kB ("real/./././..."): the plan recreates every link with a --symlink that
  // carries both, megabytes of arguments for a single bind mount. Mounts are what takes bwrap
  // time, not arguments.
  write_file(stage.path() / "real/file", "through the links\n");
  fs::path links = stage.path() / "links";
  while (links.string().size() < 3800) links /= std::string(200, 'l');
  fs::create_directories(links);
  std::string target = (stage.path() / "real").string();
  while (target.size() < 3900) target += "/.";
  const long per_link = static_cast<long>(links.string().size() + target.size());
  const long arg_max = ::sysconf(_SC_ARG_MAX);
  const long count = arg_max / per_link + 20;
  std::string policy = "name: argmax\npackage_managers: [npm]\nfilesystem:\n  allow_read:\n";
  for (long i = 0; i < count; ++i) {
    fs::create_symlink(target, links / std::to_string(i));
    policy += "    - ${CWD}/" + std::to_string(i) + "/file\n";  // CWD is the long chain: a short file
  }
  write_file(stage.path() / "argmax.yml", policy);
  const RunResult r = run_captured({driver.string(), "--policy", (stage.path() / "argmax.yml").string(), "--home",
                                    home.home.string(), "--cwd", links.string(), "--tmpdir", home.tmp.string(),
                                    "--", "/bin/cat", (links / "7/file").string()});
  INFO(r.output.substr(0, 2000));
  CHECK(r.status == 0);
  CHECK(r.output == "through the links\n");
  CHECK(count * per_link > arg_max);
}
