// Properties of the mount plan that must hold for every policy, checked through the plan
// simulator rather than by reading argument lists.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "fake_machine.hpp"
#include "mount_plan.hpp"
#include "plan_simulator.hpp"
#include "pmg/error.hpp"
#include "pmg/policy_yaml.hpp"
#include "pmg/profile_registry.hpp"
#include "shell_quote.hpp"

namespace {

using namespace pmg;
using namespace pmg::bubblewrap;
using namespace pmg::bubblewrap::testing;

Policy builtin(const std::string& name) { return ProfileRegistry::builtin_only().resolve(name); }

bool has_option(const MountPlan& plan, std::string_view option) {
  return std::find(plan.options.begin(), plan.options.end(), option) != plan.options.end();
}

bool has_op(const MountPlan& plan, MountKind kind, std::string_view dest) {
  return std::any_of(plan.mounts.begin(), plan.mounts.end(),
                     [&](const MountOp& m) { return m.kind == kind && m.dest == dest; });
}

const std::vector<std::string> credentials = {
    "/home/user/.ssh/id_rsa",        "/home/user/.ssh",           "/home/user/.aws/credentials",
    "/home/user/.kube/config",       "/home/user/.docker/config.json", "/home/user/.gnupg/pubring.kbx",
    "/home/user/.config/gh/hosts.yml", "/home/user/project/.env",   "/home/user/project/.env.production",
    "/home/user/project/src/config/.env"};

// A policy that opens far more than any profile: HOME readable, the project writable.
const char* wide_open = R"(
name: wide-open
package_managers: [npm]
filesystem:
  allow_read: ["${HOME}", "${HOME}/.ssh", "${CWD}/.env"]
  allow_write: ["${CWD}", "${CWD}/.env.production", "${HOME}/.aws/**"]
)";

// Lists every directory it is asked to list, to prove what a walk did not enter.
class CountingFs final : public FsView {
 public:
  explicit CountingFs(const FsView& inner) : inner_(inner) {}
  FileType type(const std::string& p) const override { return inner_.type(p); }
  std::optional<std::string> read_link(const std::string& p) const override { return inner_.read_link(p); }
  std::vector<DirEntry> list(const std::string& dir) const override {
    listed.insert(dir);
    return inner_.list(dir);
  }
  mutable std::set<std::string> listed;

 private:
  const FsView& inner_;
};

}  // namespace

TEST_CASE("every built-in profile hides credentials and keeps the system read-only, as user and as root") {
  const FakeFs fs = fake_machine();
  for (const std::string name : {"npm-restrictive", "npx", "pnpm-restrictive", "pypi-restrictive"}) {
    for (const Context& ctx : {user_context(), root_context()}) {
      INFO(name << " uid " << ctx.uid);
      const MountPlan plan = plan_mounts(builtin(name), ctx, fs);
      for (const std::string& secret : credentials) {
        INFO(secret);
        CHECK_FALSE(readable(effective_access(plan, secret)));
      }
      CHECK(effective_access(plan, "/usr/bin/node") == Seen::read_only);
      CHECK(effective_access(plan, "/etc/passwd") == Seen::read_only);
      CHECK(effective_access(plan, "/home/user/project/src/index.js") != Seen::absent);
      CHECK(effective_access(plan, "/tmp/build/x") == Seen::writable);
      CHECK(effective_access(plan, "/home/user/project/.git/hooks/pre-commit") != Seen::writable);
      CHECK(effective_access(plan, "/home/user/project/.git/config") != Seen::writable);
      CHECK(has_option(plan, "--cap-drop"));
      CHECK(has_option(plan, "--unshare-user") == (ctx.uid == 0));
      for (const char* o : {"--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                            "--unshare-cgroup-try"})
        CHECK(has_option(plan, o));
      CHECK(plan.chdir == ctx.cwd);
    }
  }
}

TEST_CASE("mandatory denies hold against a policy that allows the credentials explicitly") {
  const MountPlan plan = plan_mounts(policy(wide_open), user_context(), fake_machine());
  for (const std::string& secret : credentials) {
    INFO(secret);
    CHECK(effective_access(plan, secret) == Seen::hidden);
  }
  CHECK(effective_access(plan, "/home/user/.bashrc") == Seen::read_only);
  CHECK(effective_access(plan, "/home/user/project/src/index.js") == Seen::writable);
}

TEST_CASE("deny mounts come after every allow, and mandatory ones after the user's") {
  Policy p = policy(wide_open);
  p.filesystem.deny_read.push_back("${CWD}/src/index.js");
  p.filesystem.deny_write.push_back("${CWD}/package.json");
  const MountPlan plan = plan_mounts(p, user_context(), fake_machine());
  const auto first = [&](auto pred) {
    return std::find_if(plan.mounts.begin(), plan.mounts.end(), pred) - plan.mounts.begin();
  };
  const auto last = [&](auto pred) {
    return std::find_if(plan.mounts.rbegin(), plan.mounts.rend(), pred).base() - plan.mounts.begin() - 1;
  };
  const auto starts = [](const MountOp& m, std::string_view prefix) { return m.reason.starts_with(prefix); };
  const auto is_allow = [&](const MountOp& m) {
    return starts(m, "allow_") || starts(m, "system path") || starts(m, "TMPDIR");
  };
  const auto is_deny = [&](const MountOp& m) {
    return starts(m, "deny_") || starts(m, "mandatory") || starts(m, "a mount point");
  };
  const auto is_hide = [](const MountOp& m) {
    return m.kind == MountKind::hidden_dir || m.kind == MountKind::hidden_file;
  };
  CHECK(last(is_allow) < first(is_deny));
  // Nothing after a hiding mount uncovers it: no later mount on the same path or an ancestor.
  for (std::size_t i = 0; i < plan.mounts.size(); ++i) {
    if (!is_hide(plan.mounts[i])) continue;
    for (std::size_t j = i + 1; j < plan.mounts.size(); ++j) {
      if (plan.mounts[j].kind == MountKind::remount_read_only) continue;
      INFO(plan.mounts[i].dest << " then " << plan.mounts[j].dest);
      CHECK_FALSE(path_is_within(plan.mounts[i].dest, plan.mounts[j].dest));
    }
  }
  CHECK(last([&](const MountOp& m) { return is_hide(m) && starts(m, "deny_read"); }) <
        first([&](const MountOp& m) { return is_hide(m) && starts(m, "mandatory"); }));
  CHECK(effective_access(plan, "/home/user/project/src/index.js") == Seen::hidden);
  CHECK(effective_access(plan, "/home/user/project/package.json") == Seen::read_only);
}

TEST_CASE("root-only system secrets are hidden from root; other users cannot read them anyway") {
  const MountPlan root = plan_mounts(builtin("npm-restrictive"), root_context(), fake_machine());
  CHECK(effective_access(root, "/etc/shadow") == Seen::hidden);
  CHECK(effective_access(root, "/etc/gshadow") == Seen::hidden);
  CHECK(effective_access(root, "/etc/ssh/ssh_host_ed25519_key") == Seen::hidden);
  CHECK(effective_access(root, "/etc/ssl/private/host.key") == Seen::hidden);
  CHECK(effective_access(root, "/etc/ssh/ssh_host_ed25519_key.pub") == Seen::read_only);
  const MountPlan user = plan_mounts(builtin("npm-restrictive"), user_context(), fake_machine());
  CHECK(effective_access(user, "/etc/shadow") == Seen::read_only);
}

TEST_CASE("a symlink to a credential is never bound, and the credential stays hidden") {
  FakeFs fs = fake_machine();
  fs.add_symlink("/home/user/project/key", "../.ssh/id_rsa");
  fs.add_symlink("/home/user/project/keys", "/home/user/.ssh");
  const MountPlan plan = plan_mounts(policy(R"(
name: links
package_managers: [npm]
filesystem:
  allow_read: ["${CWD}", "${CWD}/key", "${CWD}/keys"]
)"),
                                     user_context(), fs);
  for (const MountOp& m : plan.mounts) CHECK_FALSE(path_is_within(m.source, "/home/user/.ssh"));
  CHECK_FALSE(readable(effective_access(plan, "/home/user/.ssh/id_rsa")));
  CHECK(std::count_if(plan.notes.begin(), plan.notes.end(),
                      [](const std::string& n) { return n.find("which is denied") != std::string::npos; }) == 2);
}

TEST_CASE("a writable project keeps .git/hooks uncreatable and .git unrenamable") {
  const MountPlan plan = plan_mounts(builtin("npx"), user_context(), fake_machine());
  CHECK(has_op(plan, MountKind::bind, "/home/user/project/.git"));  // a mount point: rename gets EBUSY
  CHECK(has_op(plan, MountKind::read_only_dir, "/home/user/project/.git/hooks"));
  CHECK(plan.created_mount_points == std::vector<std::string>{"/home/user/project/.git/hooks"});
  CHECK(effective_access(plan, "/home/user/project/.git/config") == Seen::read_only);
  CHECK(effective_access(plan, "/home/user/project/.git/HEAD") == Seen::writable);

  Policy allowed = builtin("npx");
  allowed.allow_git_config = true;
  const MountPlan with_config = plan_mounts(allowed, user_context(), fake_machine());
  CHECK(effective_access(with_config, "/home/user/project/.git/config") == Seen::writable);
  CHECK(effective_access(with_config, "/home/user/project/.git/hooks/pre-commit") != Seen::writable);
}

TEST_CASE("without .git the first missing directory becomes the placeholder") {
  FakeFs fs = fake_machine();
  fs.add_file("/home/user/fresh/package.json");
  Context ctx = user_context();
  ctx.cwd = "/home/user/fresh";
  const MountPlan plan = plan_mounts(builtin("npx"), ctx, fs);
  CHECK(has_op(plan, MountKind::read_only_dir, "/home/user/fresh/.git"));
  CHECK(plan.created_mount_points == std::vector<std::string>{"/home/user/fresh/.git"});
}

TEST_CASE("missing deny targets get a placeholder only where the sandbox could create them") {
  const char* yaml = R"(
name: missing
package_managers: [npm]
filesystem:
  allow_read: ["${CWD}"]
  allow_write: ["${CWD}/out/**"]
  deny_write: ["${CWD}/nope", "${CWD}/out/keep/me"]
)";
  const MountPlan plan = plan_mounts(policy(yaml), user_context(), fake_machine());
  CHECK_FALSE(has_op(plan, MountKind::read_only_dir, "/home/user/project/nope"));  // read-only parent
  CHECK(has_op(plan, MountKind::read_only_dir, "/home/user/project/out/keep"));
  CHECK(plan.create_before_run == std::vector<std::string>{"/home/user/project/out"});
  CHECK(plan.created_mount_points == std::vector<std::string>{"/home/user/project/out/keep"});
}

TEST_CASE("every **/.env in the project is hidden and its ancestors become mount points") {
  FakeFs fs = fake_machine();
  fs.add_file("/home/user/project/a/b/c/d/e/.env");
  const MountPlan plan = plan_mounts(builtin("npx"), user_context(), fs);
  CHECK(effective_access(plan, "/home/user/project/a/b/c/d/e/.env") == Seen::hidden);
  for (const char* dir : {"/home/user/project/a", "/home/user/project/a/b", "/home/user/project/a/b/c",
                          "/home/user/project/a/b/c/d", "/home/user/project/a/b/c/d/e"})
    CHECK(has_op(plan, MountKind::bind, dir));
}

TEST_CASE("the deny walk enters only directories the sandbox can see") {
  FakeFs fs = fake_machine();
  for (int i = 0; i < 50; ++i) fs.add_file("/home/user/Videos/v" + std::to_string(i) + "/clip.mp4");
  fs.add_file("/home/user/.npm/_cacache/content/.env");
  CountingFs counting(fs);
  const MountPlan plan = plan_mounts(builtin("npm-restrictive"), user_context(), counting);
  CHECK(counting.listed.count("/home/user/project/src/config") == 1);
  CHECK(counting.listed.count("/home/user/.npm/_cacache") == 1);
  for (const std::string& dir : counting.listed) CHECK_FALSE(path_is_within(dir, "/home/user/Videos"));
  CHECK(effective_access(plan, "/home/user/.npm/_cacache/content/.env") == Seen::hidden);
}

TEST_CASE("deny_exec hides every match of its glob, through symlinks") {
  const MountPlan plan = plan_mounts(policy(R"(
name: exec
package_managers: [npm]
filesystem:
  allow_read: ["${CWD}"]
process:
  deny_exec: ["/usr/bin/python*", "/usr/bin/curl"]
)"),
                                     user_context(), fake_machine());
  CHECK(has_op(plan, MountKind::hidden_file, "/usr/bin/python3.11"));  // python3 -> python3.11
  CHECK(has_op(plan, MountKind::hidden_file, "/usr/bin/curl"));
  CHECK(effective_access(plan, "/usr/bin/node") == Seen::read_only);
}

TEST_CASE("a path both allowed and denied for writing is read-only") {
  Policy p = policy(wide_open);
  p.filesystem.allow_write.push_back("${CWD}/package.json");
  p.filesystem.deny_write.push_back("${CWD}/package.json");
  const MountPlan plan = plan_mounts(p, user_context(), fake_machine());
  CHECK(effective_access(plan, "/home/user/project/package.json") == Seen::read_only);
}

TEST_CASE("writable DIR/** rules create missing directories before the run, never macOS ones") {
  const MountPlan plan = plan_mounts(builtin("npm-restrictive"), user_context(), fake_machine());
  const auto& created = plan.create_before_run;
  CHECK(std::count(created.begin(), created.end(), "/home/user/project/node_modules") == 1);
  for (const std::string& dir : created) CHECK_FALSE(path_is_within(dir, "/home/user/Library"));
  CHECK(effective_access(plan, "/home/user/project/node_modules/x/index.js") == Seen::writable);
  CHECK(effective_access(plan, "/home/user/project/src/index.js") == Seen::read_only);
}

TEST_CASE("network: always an own namespace; allow_outbound is reached only through the proxy") {
  Policy p = policy("name: n\npackage_managers: [npm]\nfilesystem:\n  allow_read: [\"${CWD}\"]\n");
  const MountPlan closed = plan_mounts(p, user_context(), fake_machine());
  CHECK(has_option(closed, "--unshare-net"));
  CHECK_FALSE(closed.network.filtered);
  CHECK(closed.network.command_prefix.empty());
  CHECK_FALSE(has_op(closed, MountKind::read_only_bind, sandbox_proxy_dir));

  p.network.allow_outbound = {"registry.npmjs.org:443"};
  const ProxyEndpoint endpoint{"/run/user/1000/pmg/net.abc", "/opt/pmg/bin/pmg-netbridge"};
  const MountPlan filtered = plan_mounts(p, user_context(), fake_machine(), endpoint);
  CHECK(has_option(filtered, "--unshare-net"));
  CHECK(filtered.network.filtered);
  CHECK(std::count(filtered.mounts.begin(), filtered.mounts.end(),
                   MountOp{MountKind::read_only_bind, endpoint.host_dir, sandbox_proxy_dir,
                           "the filtering proxy's socket (allow_outbound)"}) == 1);
  CHECK(has_op(filtered, MountKind::read_only_bind, sandbox_netbridge));
  CHECK(filtered.network.command_prefix ==
        std::vector<std::string>{sandbox_netbridge, "--listen", "127.0.0.1:3128", "--socket",
                                 std::string(sandbox_proxy_dir) + "/proxy.sock", "--"});
}

TEST_CASE("unix sockets: refused unless allow_unix_sockets names one; a named socket is bound") {
  Policy p = policy("name: n\npackage_managers: [npm]\nfilesystem:\n  allow_read: [\"${CWD}\"]\n");
  CHECK(plan_mounts(p, user_context(), fake_machine()).block_unix_sockets);
  p.network.allow_outbound = {"registry.npmjs.org:443"};
  const MountPlan filtered = plan_mounts(p, user_context(), fake_machine());
  // Behind the proxy the bridge installs the filter, sparing its own socket to the proxy.
  const auto& prefix = filtered.network.command_prefix;
  CHECK(std::find(prefix.begin(), prefix.end(), std::string(sandbox_proxy_dir) + "/" + socket_filter_name) !=
        prefix.end());

  FakeFs machine = fake_machine();
  machine.add_file("/tmp/agent.sock");
  p.filesystem.allow_unix_sockets = {"/tmp/agent.sock", "/run/missing.sock"};
  const MountPlan named = plan_mounts(p, user_context(), machine);
  CHECK_FALSE(named.block_unix_sockets);
  CHECK(std::find(named.network.command_prefix.begin(), named.network.command_prefix.end(), "--seccomp") ==
        named.network.command_prefix.end());
  CHECK(has_op(named, MountKind::read_only_bind, "/tmp/agent.sock"));
  CHECK_FALSE(has_op(named, MountKind::read_only_bind, "/run/missing.sock"));
}

TEST_CASE("allow_pty keeps /dev/pts; without it new terminals cannot be opened") {
  Policy p = policy("name: n\npackage_managers: [npm]\nfilesystem:\n  allow_read: [\"${CWD}\", /dev/null, /proc/self]\n");
  const MountPlan without = plan_mounts(p, user_context(), fake_machine());
  CHECK(has_op(without, MountKind::hidden_dir, "/dev/pts"));
  CHECK_FALSE(has_op(without, MountKind::read_only_bind, "/dev/null"));  // bwrap's --dev provides it
  p.allow_pty = true;
  CHECK_FALSE(has_op(plan_mounts(p, user_context(), fake_machine()), MountKind::hidden_dir, "/dev/pts"));
}

TEST_CASE("the working directory is left out when the policy does not expose it") {
  const MountPlan plan =
      plan_mounts(policy("name: n\npackage_managers: [npm]\nfilesystem:\n  allow_read: [/srv]\n"), user_context(),
                  fake_machine());
  CHECK(plan.chdir.empty());
}

TEST_CASE("translation is a pure function of its inputs") {
  const FakeFs fs = fake_machine();
  const MountPlan a = plan_mounts(builtin("npx"), user_context(), fs);
  const MountPlan b = plan_mounts(builtin("npx"), user_context(), fs);
  CHECK(a.mounts == b.mounts);
  CHECK(render_arguments(a) == render_arguments(b));
}

TEST_CASE("a policy that cannot be expanded is an error naming the entry") {
  Policy p = policy("name: n\npackage_managers: [npm]\nfilesystem:\n  allow_read: [\"${CWD}\"]\n");
  p.filesystem.allow_read.push_back("${PROJECT}/x");
  REQUIRE_THROWS_WITH(plan_mounts(p, user_context(), fake_machine()), Catch::Contains("${PROJECT}"));
}

TEST_CASE("each mount kind renders to its bwrap options") {
  MountPlan plan;
  plan.options = {"--unshare-pid"};
  plan.mounts = {{MountKind::read_only_bind, "/a", "/a", ""}, {MountKind::bind, "/b", "/b", ""},
                 {MountKind::symlink, "usr/lib", "/lib", ""},  {MountKind::read_only_dir, "", "/c", ""},
                 {MountKind::hidden_dir, "", "/d", ""},        {MountKind::hidden_file, "", "/e", ""},
                 {MountKind::proc, "", "/proc", ""},           {MountKind::dev, "", "/dev", ""},
                 {MountKind::remount_read_only, "", "/", ""}};
  plan.chdir = "/b";
  CHECK(render_arguments(plan) ==
        std::vector<std::string>{"--unshare-pid", "--ro-bind", "/a", "/a", "--bind", "/b", "/b", "--symlink",
                                 "usr/lib", "/lib", "--tmpfs", "/c", "--remount-ro", "/c", "--perms", "0000",
                                 "--tmpfs", "/d", "--remount-ro", "/d", "--ro-bind", "/dev/null", "/e", "--proc",
                                 "/proc", "--dev", "/dev", "--remount-ro", "/", "--chdir", "/b"});
}

TEST_CASE("shell quoting round-trips through a POSIX shell's rules") {
  CHECK(shell_quote("--ro-bind") == "--ro-bind");
  CHECK(shell_quote("/home/user/My Files") == "'/home/user/My Files'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("") == "''");
  CHECK(shell_quote("$HOME") == "'$HOME'");
  CHECK(shell_join({"--bind", "/a b", "/a b"}) == "--bind '/a b' '/a b'");
}

TEST_CASE("a glob over the threshold is applied to its base directory, with a warning") {
  FakeFs fs = fake_machine();
  for (int i = 0; i < 101; ++i) fs.add_file("/home/user/project/logs/run" + std::to_string(i) + ".log");
  const MountPlan plan = plan_mounts(policy(R"(
name: many
package_managers: [npm]
filesystem:
  allow_read: ["${CWD}"]
  deny_read: ["${CWD}/logs/*.log"]
)"),
                                     user_context(), fs);
  CHECK(has_op(plan, MountKind::hidden_dir, "/home/user/project/logs"));
  REQUIRE(plan.warnings.size() == 1);
  CHECK(plan.warnings[0].find("more than 100 matches") != std::string::npos);
}

TEST_CASE("a writable literal file that does not exist is created before the run, only beside existing files") {
  FakeFs fs = fake_machine();
  const MountPlan plan = plan_mounts(policy(R"(
name: files
package_managers: [npm]
filesystem:
  allow_read: ["${CWD}"]
  allow_write: ["${CWD}/package-lock.json", "${CWD}/package.json", "${CWD}/missing-dir/out.json",
                "${HOME}/Library/Preferences/x.plist"]
)"),
                                     user_context(), fs);
  CHECK(plan.create_files_before_run == std::vector<std::string>{"/home/user/project/package-lock.json"});
  CHECK(effective_access(plan, "/home/user/project/package-lock.json") == Seen::writable);
  CHECK(effective_access(plan, "/home/user/project/package.json") == Seen::writable);
  CHECK(effective_access(plan, "/home/user/project/missing-dir/out.json") == Seen::read_only);
}
