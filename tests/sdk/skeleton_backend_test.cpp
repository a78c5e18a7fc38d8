// The backend skeleton (examples/backend-skeleton): its translation tested against a fake
// filesystem, and attack tests that show what "does not sandbox" means, next to a backend that
// does (bubblewrap, loaded from this build tree's plugin directory).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "pmg/fs_view.hpp"
#include "pmg/plugin_loader.hpp"
#include "pmg/profile_registry.hpp"
#include "skeleton_backend.hpp"

// guide:begin fakefs-test
TEST_CASE("skeleton: a rule about a symlink names its target and mandatory denies come last", "[sdk][skeleton]") {
  // The filesystem translation sees: a project whose "cache" is a link into ~/.ssh.
  pmg::FakeFs fs;
  fs.add_dir("/home/dev/project/src");
  fs.add_dir("/home/dev/.ssh");
  fs.add_symlink("/home/dev/project/cache", "../.ssh");
  const pmg::Context context{.home = "/home/dev", .cwd = "/home/dev/project", .tmpdir = "/tmp", .uid = 1000,
                             .gid = 1000};
  pmg::Policy policy;
  policy.name = "demo";
  policy.filesystem.allow_read = {"${CWD}"};
  policy.filesystem.allow_write = {"${CWD}/cache", "${CWD}/target/**"};

  const std::string plan = skeleton::plan(policy, context, fs);

  CHECK_THAT(plan, Catch::StartsWith("allow-read /home/dev/project\n"
                                     "allow-write /home/dev/.ssh\n"
                                     "allow-write /home/dev/project/target/**\n"));
  // The deny that protects ~/.ssh follows the allow that reached it through the link: deny wins.
  const auto deny = plan.find("deny-read-write /home/dev/.ssh\n");
  REQUIRE(deny != std::string::npos);
  CHECK(plan.find("allow-write /home/dev/.ssh\n") < deny);
}
// guide:end fakefs-test

namespace {

namespace fs = std::filesystem;

// A scratch HOME with a private key and a project with git hooks, removed afterwards.
struct Scratch {
  fs::path root = fs::temp_directory_path() / ("pmg-sdk-attack-" + std::to_string(::getpid()));
  pmg::Context context{.home = (root / "home").string(), .cwd = (root / "home/project").string(),
                       .tmpdir = (root / "tmp").string(), .uid = ::getuid(), .gid = ::getgid()};
  Scratch() {
    fs::create_directories(root / "home/.ssh");
    fs::create_directories(root / "home/project/.git/hooks");
    fs::create_directories(root / "tmp");
    std::ofstream(root / "home/.ssh/id_ed25519") << "PRIVATE KEY\n";
  }
  ~Scratch() { fs::remove_all(root); }
};

// guide:begin attack-test
// An attack test runs, under the backend, what a malicious install script would run, and checks
// that the attack failed while the legitimate work of an install still succeeds.
int run_script(const pmg::BackendInterface& backend, const pmg::Policy& policy, const pmg::Context& context,
               const std::string& script) {
  const pmg::LaunchRequest request{.policy = policy,
                                   .context = context,
                                   .command = {"/bin/sh", "-c", script},
                                   .environment = {"PATH=/usr/bin:/bin", "HOME=" + context.home},
                                   .tool = "npm",
                                   .event_log = {}};
  return backend.launch(request);
}

void attack_npm_restrictive(const pmg::BackendInterface& backend, bool expect_blocked) {
  Scratch scratch;
  const pmg::Policy policy = pmg::ProfileRegistry::builtin_only().resolve("npm-restrictive");
  const std::string home = scratch.context.home, project = scratch.context.cwd;

  CHECK((run_script(backend, policy, scratch.context, "cat " + home + "/.ssh/id_ed25519 >/dev/null") != 0) == expect_blocked);
  CHECK((run_script(backend, policy, scratch.context, "echo evil > " + project + "/.git/hooks/pre-commit") != 0) ==
        expect_blocked);
  CHECK(fs::exists(project + "/.git/hooks/pre-commit") != expect_blocked);
  // What an install does must keep working under the same policy.
  CHECK(run_script(backend, policy, scratch.context, "mkdir -p " + project + "/node_modules/x") == 0);
}
// guide:end attack-test

}  // namespace

TEST_CASE("bubblewrap passes the attack tests the guide shows", "[sdk][attack]") {
  const auto plugins = pmg::PluginSet::load({std::filesystem::path(PMG_BINARY_DIR) / "lib/pmg/plugins"});
  const pmg::LoadedBackend* bubblewrap = plugins.find_backend("bubblewrap");
  REQUIRE(bubblewrap != nullptr);
  const pmg::Availability availability = bubblewrap->backend->probe();
  INFO(availability.reason << " (fix: " << availability.fix << ")");
  REQUIRE(availability.available);
  attack_npm_restrictive(*bubblewrap->backend, true);
}

TEST_CASE("the skeleton fails every attack test: it is not a sandbox", "[sdk][attack][skeleton]") {
  const pmg::BackendModel<skeleton::SkeletonBackend> backend;
  attack_npm_restrictive(backend, false);
}
