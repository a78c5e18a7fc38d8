#pragma once
// What `pmg sandbox doctor` checks about a Linux host before bubblewrap can sandbox anything:
// bwrap itself, the kernel's user-namespace switches (sysctl, AppArmor), a seccomp filter around
// pmg, and a TMPDIR that cannot run programs. Facts are gathered once (gather_linux_host_facts,
// the only function here with side effects); judging them is pure (linux_host_checks), so every
// verdict and every fix command is tested against fixture facts.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/context.hpp"
#include "pmg/executable.hpp"
#include "pmg/plugin.hpp"

namespace pmg {

enum class CheckStatus { ok, info, warning, failed };

inline std::string_view to_string(CheckStatus status) {
  switch (status) {
    case CheckStatus::ok: return "ok";
    case CheckStatus::info: return "info";
    case CheckStatus::warning: return "warning";
    case CheckStatus::failed: return "failed";
  }
  return "?";
}

// One line of the doctor's report.
struct Check {
  std::string name;    // "bwrap", "user namespaces", ...
  CheckStatus status = CheckStatus::ok;
  std::string detail;  // what was found
  std::string fix;     // the command that fixes it (warnings and failures)

  bool operator==(const Check&) const = default;
};

struct LinuxHostFacts {
  std::string kernel;                          // uname release, "6.1.0-18-amd64"
  bool root = false;                           // pmg runs as uid 0
  bool in_container = false;                   // /.dockerenv, /run/.containerenv or $container
  std::optional<std::string> bwrap;            // its path, when on PATH
  std::string bwrap_version;                   // "0.8.0"; empty when `bwrap --version` said nothing usable
  bool bwrap_setuid = false;                   // a setuid-root bwrap needs no unprivileged user namespaces
  std::optional<long> max_user_namespaces;     // user.max_user_namespaces
  std::optional<long> unprivileged_userns_clone;             // kernel.unprivileged_userns_clone (Debian)
  std::optional<long> apparmor_restrict_unprivileged_userns;  // Ubuntu 23.10 and later
  std::optional<int> seccomp_mode;             // /proc/self/status: 0 none, 1 strict, 2 filter
  std::string tmpdir;
  bool tmpdir_writable = true;
  bool tmpdir_noexec = false;
  std::optional<Availability> probe;  // the bubblewrap backend's own trial run, when it is loaded
};

namespace detail {

inline std::optional<long> read_long_file(const std::string& file) {
  std::ifstream in(file);
  long value = 0;
  if (in >> value) return value;
  return std::nullopt;
}

// The standard output of argv (stdin and stderr on /dev/null), or nullopt when it cannot run.
inline std::optional<std::string> program_output(const std::vector<std::string>& argv) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  char* no_environment[] = {nullptr};
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), no_environment);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  std::string out;
  if (rc == 0) {
    char buffer[1024];
    ssize_t n;
    while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR))
      if (n > 0 && out.size() < 4096) out.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (rc != 0) return std::nullopt;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return out;
}

// "bubblewrap 0.8.0\n" -> "0.8.0".
inline std::string version_of(std::string_view text) {
  const std::size_t digit = text.find_first_of("0123456789");
  if (digit == std::string_view::npos) return {};
  const std::size_t end = text.find_first_not_of("0123456789.", digit);
  return std::string(text.substr(digit, end == std::string_view::npos ? std::string_view::npos : end - digit));
}

// Compares dotted versions numerically: version_at_least("0.10.0", "0.5.0").
inline bool version_at_least(std::string_view version, std::string_view minimum) {
  const auto next = [](std::string_view& v) {
    long n = 0;
    while (!v.empty() && v.front() >= '0' && v.front() <= '9') n = n * 10 + (v.front() - '0'), v.remove_prefix(1);
    if (!v.empty() && v.front() == '.') v.remove_prefix(1);
    return n;
  };
  while (!version.empty() || !minimum.empty()) {
    const long a = next(version), b = next(minimum);
    if (a != b) return a > b;
  }
  return true;
}

}  // namespace detail

// Reads the facts from this machine. `path_env` is the PATH bwrap is looked up on.
inline LinuxHostFacts gather_linux_host_facts(const Context& ctx, std::string_view path_env) {
  LinuxHostFacts f;
  utsname names{};
  if (::uname(&names) == 0) f.kernel = names.release;
  f.root = ctx.uid == 0;
  std::error_code ec;
  f.in_container = std::filesystem::exists("/.dockerenv", ec) || std::filesystem::exists("/run/.containerenv", ec) ||
                   std::getenv("container") != nullptr;
  if (auto bwrap = find_executable("bwrap", path_env, {})) {
    f.bwrap = bwrap->string();
    if (auto out = detail::program_output({*f.bwrap, "--version"})) f.bwrap_version = detail::version_of(*out);
    struct stat st {};
    f.bwrap_setuid = ::stat(f.bwrap->c_str(), &st) == 0 && (st.st_mode & S_ISUID) != 0 && st.st_uid == 0;
  }
  f.max_user_namespaces = detail::read_long_file("/proc/sys/user/max_user_namespaces");
  f.unprivileged_userns_clone = detail::read_long_file("/proc/sys/kernel/unprivileged_userns_clone");
  f.apparmor_restrict_unprivileged_userns = detail::read_long_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("Seccomp:")) f.seccomp_mode = std::atoi(line.c_str() + 8);
  f.tmpdir = ctx.tmpdir;
  f.tmpdir_writable = ::access(ctx.tmpdir.c_str(), W_OK | X_OK) == 0;
  struct statvfs vfs {};
  f.tmpdir_noexec = ::statvfs(ctx.tmpdir.c_str(), &vfs) == 0 && (vfs.f_flag & ST_NOEXEC) != 0;
  return f;
}

// The oldest bubblewrap with every option pmg's plan uses (--perms came in 0.5.0).
inline constexpr std::string_view minimum_bwrap_version = "0.5.0";

// The verdict on each fact, with the command that fixes each warning and failure.
inline std::vector<Check> linux_host_checks(const LinuxHostFacts& f) {
  std::vector<Check> checks;
  const auto persist = [](std::string_view key, std::string_view value) {
    return "sudo sysctl -w " + std::string(key) + "=" + std::string(value) + " && echo '" + std::string(key) + " = " +
           std::string(value) + "' | sudo tee /etc/sysctl.d/60-pmg-userns.conf";
  };
  checks.push_back({"kernel", CheckStatus::info,
                    "Linux " + (f.kernel.empty() ? std::string("(unknown release)") : f.kernel) +
                        (f.in_container ? ", inside a container" : "") + (f.root ? ", pmg runs as root" : ""),
                    ""});

  if (!f.bwrap) {
    checks.push_back({"bwrap", CheckStatus::failed, "bwrap (bubblewrap) is not on PATH",
                      "sudo apt-get install bubblewrap   (Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S "
                      "bubblewrap)"});
  } else if (f.bwrap_version.empty()) {
    checks.push_back({"bwrap", CheckStatus::warning, *f.bwrap + ": `bwrap --version` printed no version",
                      "reinstall it: sudo apt-get install --reinstall bubblewrap"});
  } else if (!detail::version_at_least(f.bwrap_version, minimum_bwrap_version)) {
    checks.push_back({"bwrap", CheckStatus::failed,
                      *f.bwrap + " is bubblewrap " + f.bwrap_version + "; pmg needs " +
                          std::string(minimum_bwrap_version) + " or later (--perms)",
                      "sudo apt-get install --only-upgrade bubblewrap (or install a newer release from "
                      "https://github.com/containers/bubblewrap)"});
  } else {
    checks.push_back({"bwrap", CheckStatus::ok,
                      *f.bwrap + ", bubblewrap " + f.bwrap_version + (f.bwrap_setuid ? " (setuid root)" : ""), ""});
  }

  if (f.max_user_namespaces == 0L)
    checks.push_back({"user namespaces", CheckStatus::failed,
                      "disabled: user.max_user_namespaces = 0", persist("user.max_user_namespaces", "15000")});
  else
    checks.push_back({"user namespaces", CheckStatus::ok,
                      f.max_user_namespaces ? "allowed (user.max_user_namespaces = " +
                                                  std::to_string(*f.max_user_namespaces) + ")"
                                            : "allowed (this kernel has no user.max_user_namespaces limit)",
                      ""});

  // Root creates user namespaces whatever these two switches say; a setuid bwrap needs none.
  const bool needs_unprivileged = !f.root && !f.bwrap_setuid;
  if (f.unprivileged_userns_clone == 0L && needs_unprivileged)
    checks.push_back({"unprivileged user namespaces", CheckStatus::failed,
                      "disabled for users other than root: kernel.unprivileged_userns_clone = 0",
                      persist("kernel.unprivileged_userns_clone", "1")});
  else
    checks.push_back({"unprivileged user namespaces", CheckStatus::ok,
                      f.unprivileged_userns_clone == 0L
                          ? "disabled (kernel.unprivileged_userns_clone = 0), not needed: " +
                                std::string(f.root ? "pmg runs as root" : "bwrap is setuid root")
                          : "allowed",
                      ""});

  if (f.apparmor_restrict_unprivileged_userns == 1L && needs_unprivileged)
    checks.push_back(
        {"AppArmor", CheckStatus::failed,
         "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1)",
         "give bwrap a profile that allows them: printf 'abi <abi/4.0>,\\ninclude <tunables/global>\\nprofile bwrap "
         "/usr/bin/bwrap flags=(unconfined) {\\n  userns,\\n}\\n' | sudo tee /etc/apparmor.d/bwrap && sudo "
         "apparmor_parser -r /etc/apparmor.d/bwrap"});
  else
    checks.push_back({"AppArmor", CheckStatus::ok,
                      f.apparmor_restrict_unprivileged_userns == 1L ? "restricts user namespaces, not needed here"
                                                                     : "does not restrict user namespaces",
                      ""});

  const bool probe_failed = f.probe && !f.probe->available;
  if (f.seccomp_mode == 2 && probe_failed)
    checks.push_back({"seccomp", CheckStatus::failed,
                      "a seccomp filter confines pmg" + std::string(f.in_container ? " (the container's profile)" : "") +
                          " and bubblewrap cannot create a sandbox under it",
                      f.in_container ? "start the container with: --security-opt seccomp=unconfined --security-opt "
                                       "apparmor=unconfined (docker/podman)"
                                     : "run pmg outside the confining service or allow unshare(2) and mount(2) in "
                                       "its seccomp profile"});
  else
    checks.push_back({"seccomp", f.seccomp_mode == 2 ? CheckStatus::info : CheckStatus::ok,
                      f.seccomp_mode == 2 ? "a seccomp filter confines pmg; bubblewrap works under it"
                      : f.seccomp_mode    ? std::string("no filter")
                                          : std::string("unknown (no Seccomp line in /proc/self/status)"),
                      ""});

  if (!f.tmpdir_writable)
    checks.push_back({"TMPDIR", CheckStatus::failed, f.tmpdir + " is not writable; installs unpack and build there",
                      "export TMPDIR=\"$HOME/.cache/pmg-tmp\" && mkdir -p \"$TMPDIR\""});
  else if (f.tmpdir_noexec)
    checks.push_back({"TMPDIR", CheckStatus::warning,
                      f.tmpdir + " is mounted noexec: packages that build native addons or run prebuilt binaries "
                                 "from TMPDIR fail",
                      "export TMPDIR=\"$HOME/.cache/pmg-tmp\" && mkdir -p \"$TMPDIR\"   (or: sudo mount -o "
                      "remount,exec " + f.tmpdir + ")"});
  else
    checks.push_back({"TMPDIR", CheckStatus::ok, f.tmpdir + " is writable and allows running programs", ""});
  return checks;
}

}  // namespace pmg
