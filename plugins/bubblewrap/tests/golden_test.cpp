// Golden tests of the bwrap argument list: the four built-in profiles and policies that exercise
// globs, missing paths, symlinks, root and the network, on a fixed fake machine.
// PMG_UPDATE_GOLDEN=1 rewrites the files under golden/ instead of comparing; review the diff.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fake_machine.hpp"
#include "mount_plan.hpp"
#include "pmg/policy_yaml.hpp"
#include "pmg/profile_registry.hpp"

namespace {

using namespace pmg;
using namespace pmg::bubblewrap;
using namespace pmg::bubblewrap::testing;

const std::filesystem::path golden_dir = std::filesystem::path(PMG_SOURCE_DIR) / "plugins/bubblewrap/tests/golden";

std::string lines(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) out += a + "\n";
  return out;
}

void check_golden(const std::string& name, const MountPlan& plan) {
  const std::string actual = lines(render_arguments(plan));
  const std::filesystem::path file = golden_dir / (name + ".args");
  const char* update = std::getenv("PMG_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(file) << actual;
    WARN("updated " << file.string());
    return;
  }
  std::ifstream in(file);
  if (!in.good()) FAIL("missing golden file " << file.string() << "; run with PMG_UPDATE_GOLDEN=1 to create it");
  std::stringstream expected;
  expected << in.rdbuf();
  // Compare line by line so a failure names the first difference.
  std::istringstream e(expected.str()), a(actual);
  std::string el, al;
  for (int line = 1;; ++line) {
    const bool more_e = static_cast<bool>(std::getline(e, el));
    const bool more_a = static_cast<bool>(std::getline(a, al));
    if (!more_e && !more_a) break;
    INFO(file.string() << ":" << line << " (PMG_UPDATE_GOLDEN=1 regenerates after review)");
    REQUIRE(al == el);
  }
}

Policy builtin(const char* name) { return ProfileRegistry::builtin_only().resolve(name); }


}  // namespace

TEST_CASE("golden: built-in npm-restrictive as a user", "[golden]") {
  check_golden("npm-restrictive", plan_mounts(builtin("npm-restrictive"), user_context(), fake_machine()));
}

TEST_CASE("golden: built-in npm-restrictive as root", "[golden]") {
  check_golden("npm-restrictive-root", plan_mounts(builtin("npm-restrictive"), root_context(), fake_machine()));
}

TEST_CASE("golden: built-in npx (project writable, PTY)", "[golden]") {
  check_golden("npx", plan_mounts(builtin("npx"), user_context(), fake_machine()));
}

TEST_CASE("golden: built-in pnpm-restrictive", "[golden]") {
  check_golden("pnpm-restrictive", plan_mounts(builtin("pnpm-restrictive"), user_context(), fake_machine()));
}

TEST_CASE("golden: built-in pypi-restrictive", "[golden]") {
  FakeFs fs = fake_machine();
  fs.add_file("/etc/python3.11/sitecustomize.py");
  fs.add_file("/home/user/.cache/pip/http/x");
  check_golden("pypi-restrictive", plan_mounts(builtin("pypi-restrictive"), user_context(), fs));
}

TEST_CASE("golden: globs under the threshold are bound one by one", "[golden]") {
  FakeFs fs = fake_machine();
  for (int i = 0; i < 5; ++i) fs.add_file("/home/user/project/data/item" + std::to_string(i) + ".json");
  fs.add_file("/home/user/project/data/secret-a.json");
  fs.add_file("/home/user/project/data/secret-b.json");
  fs.add_file("/usr/bin/python3-config");
  check_golden("globs-under-threshold", plan_mounts(policy(R"(
name: globs-under
package_managers: [npm]
filesystem:
  allow_read: ["${CWD}/data/*.json", "${CWD}/src"]
  deny_read: ["${CWD}/data/secret-*.json"]
process:
  deny_exec: ["/usr/bin/python*"]
)"),
                                                    user_context(), fs));
}

TEST_CASE("golden: globs over the threshold fall back to their base directory", "[golden]") {
  FakeFs fs = fake_machine();
  for (int i = 0; i < 150; ++i) fs.add_file("/home/user/project/data/item" + std::to_string(i) + ".json");
  for (int i = 0; i < 120; ++i) fs.add_file("/home/user/project/logs/run" + std::to_string(i) + ".log");
  check_golden("globs-over-threshold", plan_mounts(policy(R"(
name: globs-over
package_managers: [npm]
filesystem:
  allow_read: ["${CWD}"]
  allow_write: ["${CWD}/data/*.json"]
  deny_read: ["${CWD}/logs/*.log"]
)"),
                                                   user_context(), fs));
}

TEST_CASE("golden: more than 100 .env files hide the whole project", "[golden]") {
  FakeFs fs = fake_machine();
  for (int i = 0; i < 101; ++i) fs.add_file("/home/user/project/packages/p" + std::to_string(i) + "/.env");
  check_golden("env-over-threshold", plan_mounts(builtin("npm-restrictive"), user_context(), fs));
}

TEST_CASE("golden: paths that do not exist yet", "[golden]") {
  FakeFs fs = fake_machine();
  fs.add_file("/home/user/fresh/package.json");  // no .git at all
  Context ctx = user_context();
  ctx.cwd = "/home/user/fresh";
  check_golden("nonexistent", plan_mounts(policy(R"(
name: nonexistent
package_managers: [npm]
filesystem:
  allow_read: ["${HOME}/.config/newtool"]
  allow_write: ["${CWD}", "${HOME}/.cache/newtool/**", "${HOME}/.local/bin/tool"]
  deny_write: ["${CWD}/dist/**", "${CWD}/locked/deep/file.txt"]
)"),
                                          ctx, fs));
}

TEST_CASE("golden: symlinks are resolved, mirrored, and never expose a denied target", "[golden]") {
  FakeFs fs = fake_machine();
  // HOME itself is a symlink, as on systems with /home on another disk.
  fs.add_symlink("/home/link", "/data/link");
  fs.add_file("/data/link/.npmrc");
  fs.add_file("/data/link/.ssh/id_rsa");
  fs.add_file("/data/link/project/package.json");
  fs.add_symlink("/data/link/project/key", "../.ssh/id_rsa");
  // Planted by an earlier run in the writable project: must not widen the node_modules rule.
  fs.add_symlink("/data/link/project/node_modules", "/data/link/Documents");
  fs.add_file("/data/link/Documents/tax.pdf");
  Context ctx{"/home/link", "/home/link/project", "/tmp", 1000, 1000};
  check_golden("symlinks", plan_mounts(policy(R"(
name: symlinks
package_managers: [npm]
filesystem:
  allow_read: ["${HOME}/.npmrc", "${CWD}/key"]
  allow_write: ["${CWD}", "${CWD}/node_modules/**"]
)"),
                                       ctx, fs));
}

TEST_CASE("golden: no allow_outbound means no network; allow_pty keeps /dev/pts", "[golden]") {
  check_golden("network-none-pty", plan_mounts(policy(R"(
name: offline
package_managers: [npm]
allow_pty: true
filesystem:
  allow_read: ["${CWD}"]
network:
  deny_outbound: ["*:*"]
)"),
                                               user_context(), fake_machine()));
}
