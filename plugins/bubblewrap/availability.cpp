#include "availability.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "pmg/executable.hpp"

extern char** environ;

namespace pmg::bubblewrap {
namespace {

constexpr const char* install_fix =
    "install bubblewrap: `apt-get install bubblewrap` (Debian, Ubuntu), `pacman -S bubblewrap` (Arch), "
    "`dnf install bubblewrap` (Fedora)";

// The integer in a /proc/sys file; none when the file does not exist (the kernel lacks the knob).
std::optional<long> read_sysctl(const char* file) {
  std::ifstream in(file);
  long value = 0;
  if (in >> value) return value;
  return std::nullopt;
}

struct Captured {
  int status = -1;  // exit status, 128 + signal, or -1 when it could not start
  std::string err;  // its standard error
};

// Runs argv with stdin and stdout on /dev/null and collects stderr; for the probe only, which
// must stay silent on the user's terminal.
Captured run_capturing_stderr(const std::vector<std::string>& argv) {
  Captured out;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    out.err = std::string("pipe: ") + std::strerror(errno);
    return out;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (rc != 0) {
    ::close(pipe_fds[0]);
    out.err = "cannot start " + argv[0] + ": " + std::strerror(rc);
    return out;
  }
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (n > 0) {
      if (out.err.size() < 64 * 1024) out.err.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return line.empty() ? std::string("no message") : line;
}

}  // namespace

std::optional<std::string> find_bwrap(std::string_view path_env) {
  if (auto found = find_executable("bwrap", path_env, {})) return found->string();
  return std::nullopt;
}

Availability probe_bubblewrap(std::string_view path_env, bool as_root) {
  const std::optional<std::string> bwrap = find_bwrap(path_env);
  if (!bwrap) return {false, "bwrap (bubblewrap) was not found on PATH", install_fix};

  if (read_sysctl("/proc/sys/user/max_user_namespaces") == 0L)
    return {false, "user namespaces are disabled (sysctl user.max_user_namespaces = 0)",
            "sysctl -w user.max_user_namespaces=15000 (and persist it in /etc/sysctl.d/)"};
  if (!as_root && read_sysctl("/proc/sys/kernel/unprivileged_userns_clone") == 0L)
    return {false, "unprivileged user namespaces are disabled (sysctl kernel.unprivileged_userns_clone = 0)",
            "sysctl -w kernel.unprivileged_userns_clone=1 (and persist it in /etc/sysctl.d/)"};

  std::vector<std::string> trial{*bwrap, "--ro-bind", "/", "/", "--die-with-parent"};
  if (as_root) trial.push_back("--unshare-user");
  for (const char* o : {"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
                        "--unshare-net", "--cap-drop", "ALL", "--proc", "/proc", "--dev", "/dev", "--"})
    trial.emplace_back(o);
  trial.push_back(find_executable("true", path_env, {}).value_or("/bin/true").string());
  const Captured run = run_capturing_stderr(trial);
  if (run.status == 0) return {true, "", ""};

  std::string fix =
      "check `sysctl user.max_user_namespaces kernel.unprivileged_userns_clone`; inside a container, allow "
      "unshare(2) and mount(2) (e.g. docker run --security-opt seccomp=unconfined --cap-add SYS_ADMIN)";
  if (read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1L)
    fix = "AppArmor restricts user namespaces (sysctl kernel.apparmor_restrict_unprivileged_userns = 1): "
          "install an AppArmor profile for bwrap or set that sysctl to 0";
  return {false, "bwrap cannot create a sandbox here: " + first_line(run.err), fix};
}

}  // namespace pmg::bubblewrap
