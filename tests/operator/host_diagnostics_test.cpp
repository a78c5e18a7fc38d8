// host_diagnostics.hpp: the doctor's verdicts on Linux host facts, with the fix for each failure,
// compared with a golden file.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "operator_support.hpp"
#include "pmg/host_diagnostics.hpp"

namespace {

pmg::LinuxHostFacts healthy() {
  pmg::LinuxHostFacts f;
  f.kernel = "6.1.0-18-amd64";
  f.bwrap = "/usr/bin/bwrap";
  f.bwrap_version = "0.8.0";
  f.max_user_namespaces = 63000;
  f.unprivileged_userns_clone = 1;
  f.seccomp_mode = 0;
  f.tmpdir = "/tmp";
  f.probe = pmg::Availability{true, "", ""};
  return f;
}

std::string render(const std::string& title, const pmg::LinuxHostFacts& facts) {
  std::string out = "== " + title + "\n";
  for (const pmg::Check& c : pmg::linux_host_checks(facts)) {
    out += std::string(pmg::to_string(c.status)) + " | " + c.name + " | " + c.detail + "\n";
    if (!c.fix.empty()) out += "    fix: " + c.fix + "\n";
  }
  return out;
}

bool any_failed(const pmg::LinuxHostFacts& facts) {
  for (const pmg::Check& c : pmg::linux_host_checks(facts))
    if (c.status == pmg::CheckStatus::failed) return true;
  return false;
}

}  // namespace

TEST_CASE("each Linux host problem is a failed check with the command that fixes it", "[doctor]") {
  std::string out = render("healthy, unprivileged", healthy());
  CHECK_FALSE(any_failed(healthy()));

  pmg::LinuxHostFacts f = healthy();
  f.bwrap.reset();
  f.bwrap_version.clear();
  out += render("no bwrap", f);
  CHECK(any_failed(f));

  f = healthy();
  f.bwrap_version = "0.4.1";
  out += render("bwrap too old", f);
  CHECK(any_failed(f));

  f = healthy();
  f.max_user_namespaces = 0;
  out += render("user namespaces disabled", f);
  CHECK(any_failed(f));

  f = healthy();
  f.unprivileged_userns_clone = 0;
  out += render("unprivileged user namespaces disabled", f);
  CHECK(any_failed(f));
  f.root = true;
  out += render("unprivileged user namespaces disabled, running as root", f);
  CHECK_FALSE(any_failed(f));
  f.root = false;
  f.bwrap_setuid = true;
  out += render("unprivileged user namespaces disabled, setuid bwrap", f);
  CHECK_FALSE(any_failed(f));

  f = healthy();
  f.apparmor_restrict_unprivileged_userns = 1;
  out += render("AppArmor restriction (Ubuntu 24.04)", f);
  CHECK(any_failed(f));

  f = healthy();
  f.seccomp_mode = 2;
  out += render("seccomp filter, bubblewrap works", f);
  CHECK_FALSE(any_failed(f));
  f.in_container = true;
  f.probe = pmg::Availability{false, "bwrap cannot create a sandbox here: bwrap: No permissions to create new namespace", ""};
  out += render("seccomp filter in a container, bubblewrap fails", f);
  CHECK(any_failed(f));

  f = healthy();
  f.tmpdir_noexec = true;
  out += render("TMPDIR noexec", f);
  CHECK_FALSE(any_failed(f));
  f.tmpdir_writable = false;
  out += render("TMPDIR not writable", f);
  CHECK(any_failed(f));

  operator_test::check_golden("host_checks.txt", out);
}

TEST_CASE("bubblewrap versions compare numerically", "[doctor]") {
  CHECK(pmg::detail::version_at_least("0.8.0", "0.5.0"));
  CHECK(pmg::detail::version_at_least("0.10.0", "0.5.0"));
  CHECK(pmg::detail::version_at_least("0.5", "0.5.0"));
  CHECK_FALSE(pmg::detail::version_at_least("0.4.99", "0.5.0"));
  CHECK(pmg::detail::version_of("bubblewrap 0.8.0\n") == "0.8.0");
  CHECK(pmg::detail::version_of("garbage").empty());
}

TEST_CASE("facts gathered from this machine are consistent", "[doctor]") {
  const pmg::Context ctx = pmg::Context::from_process();
  const pmg::LinuxHostFacts f = pmg::gather_linux_host_facts(ctx, "/usr/bin:/bin");
  CHECK_FALSE(f.kernel.empty());
  CHECK(f.root == (ctx.uid == 0));
  if (f.bwrap) CHECK_FALSE(f.bwrap_version.empty());
  CHECK(f.tmpdir == ctx.tmpdir);
  const pmg::LinuxHostFacts none = pmg::gather_linux_host_facts(ctx, "/nonexistent");
  CHECK_FALSE(none.bwrap.has_value());
}
