// The launch contract through real bwrap runs: exit status and signals pass through, signals to
// pmg reach the sandbox, an unavailable bwrap fails closed without running anything, the probe
// explains itself, and the built plugin loads through the core's loader.
#include <catch2/catch.hpp>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "availability.hpp"
#include "bubblewrap_backend.hpp"
#include "pmg/plugin_loader.hpp"
#include "pmg/profile_registry.hpp"
#include "support/sandbox_fixture.hpp"

namespace {

namespace fs = std::filesystem;
using namespace pmg::test_support;

struct Driver {
  StagingDir stage{"bwrap-launch"};
  FakeHome home = FakeHome::create(stage.path(), std::nullopt);
  std::string policy = "npm-restrictive";

  std::vector<std::string> argv(const std::vector<std::string>& command) const {
    std::vector<std::string> out{PMG_BWRAP_RUN,         "--policy", policy, "--home", home.home.string(),
                                 "--cwd",               home.project.string(), "--tmpdir", home.tmp.string(), "--"};
    out.insert(out.end(), command.begin(), command.end());
    return out;
  }
};

}  // namespace

TEST_CASE("launch returns the command's exit status, 128 + signal when it was killed", "[e2e]") {
  const Driver d;
  CHECK(run_captured(d.argv({"/bin/sh", "-c", "exit 7"})).status == 7);
  CHECK(run_captured(d.argv({"/bin/sh", "-c", "kill -KILL $$"})).status == 128 + SIGKILL);
}

TEST_CASE("a signal to pmg reaches the sandbox and pmg returns 128 + signal", "[e2e]") {
  const Driver d;
  const fs::path started = d.home.tmp / "started";
  std::vector<std::string> args = d.argv({"/bin/sh", "-c", "touch " + started.string() + " && exec sleep 30"});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  REQUIRE(::posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) == 0);
  // Signal only once the command runs inside the sandbox (pmg forwards from then on).
  for (int i = 0; i < 400 && !fs::exists(started); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(fs::exists(started));
  const auto start = std::chrono::steady_clock::now();
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 128 + SIGTERM);
}

TEST_CASE("without bwrap the launch fails closed and names the fix", "[e2e]") {
  const Driver d;
  const fs::path marker = d.home.tmp / "ran";
  const RunResult r =
      run_captured(d.argv({"/bin/sh", "-c", "touch " + marker.string()}), std::nullopt, {"PATH=/nonexistent"});
  CHECK(r.status == 125);
  CHECK(r.output.find("bwrap (bubblewrap) was not found on PATH") != std::string::npos);
  CHECK(r.output.find("apt-get install bubblewrap") != std::string::npos);
  CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("a sandbox bwrap cannot set up is an error, not an exit status", "[e2e]") {
  Driver d;
  // Without allow_outbound bwrap starts the command itself.
  d.policy = (d.stage.path() / "offline.yml").string();
  write_file(d.policy, "name: offline\npackage_managers: [npm]\nfilesystem:\n  allow_read: [\"${CWD}\"]\n");
  const RunResult r = run_captured(d.argv({"/nonexistent/program"}));
  CHECK(r.status == 125);
  CHECK(r.output.find("could not set up the sandbox or start /nonexistent/program") != std::string::npos);
}

TEST_CASE("behind the network bridge, a command that cannot start is 127 with a message naming it", "[e2e]") {
  const Driver d;  // npm-restrictive: allow_outbound, so pmg-netbridge starts the command
  const RunResult r = run_captured(d.argv({"/nonexistent/program"}));
  CHECK(r.status == 127);
  CHECK(r.output.find("pmg-netbridge: cannot execute /nonexistent/program: No such file or directory") !=
        std::string::npos);
}

TEST_CASE("the probe: available here, and a PATH without bwrap says what to install", "[e2e]") {
  const char* path = std::getenv("PATH");
  const pmg::Availability here = pmg::bubblewrap::probe_bubblewrap(path ? path : "/usr/bin:/bin", ::geteuid() == 0);
  INFO(here.reason);
  CHECK(here.available);
  const pmg::Availability none = pmg::bubblewrap::probe_bubblewrap("/nonexistent", false);
  CHECK_FALSE(none.available);
  CHECK(none.fix.find("pacman -S bubblewrap") != std::string::npos);
}

TEST_CASE("the built plugin loads through the core's loader and renders one argument per line", "[e2e]") {
  const pmg::PluginSet plugins = pmg::PluginSet::load({PMG_PLUGIN_DIR});
  const pmg::LoadedBackend* backend = plugins.find_backend("bubblewrap");
  REQUIRE(backend != nullptr);
  const Driver d;
  const pmg::Context ctx{d.home.home.string(), d.home.project.string(), d.home.tmp.string(), ::getuid(), ::getgid()};
  const pmg::Policy policy = pmg::ProfileRegistry::builtin_only().resolve("npm-restrictive");
  const std::string rendered = backend->backend->render(policy, ctx);
  CHECK(rendered == pmg::bubblewrap::BubblewrapBackend{}.render(policy, ctx));
  CHECK(rendered.find("--cap-drop\nALL\n") != std::string::npos);
  CHECK(rendered.find("--chdir\n" + d.home.project.string() + "\n") != std::string::npos);
}
