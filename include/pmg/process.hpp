#pragma once
// Running a child process the way a wrapper must: forward SIGINT/SIGTERM/SIGHUP/SIGQUIT to it,
// wait for it, and return its status as a shell would (128 + signal when killed). Used by every
// backend's launch and by the host's unsandboxed runs, so all of them behave the same.
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "pmg/error.hpp"

namespace pmg {

struct ProcessSpec {
  std::vector<std::string> argv;         // argv[0] is the executable's absolute path
  std::vector<std::string> environment;  // "NAME=value"
  std::vector<int> inherit_fds;          // descriptors the child keeps (e.g. bwrap --args FD)
};

namespace detail {

inline volatile sig_atomic_t forwarded_child_pid = 0;

inline void forward_signal(int sig) {
  pid_t pid = forwarded_child_pid;
  if (pid > 0) ::kill(pid, sig);
}

inline constexpr int forwarded_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

inline std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace detail

// Returns the child's exit status, or 128 + signal number when it was killed. Throws Error when
// the program cannot be started at all (the message names it). A non-empty `seccomp_filter` is
// installed in the child (with no_new_privs) just before exec.
inline int run_process(const ProcessSpec& spec, const std::vector<sock_filter>& seccomp_filter = {}) {
  if (spec.argv.empty()) throw Error("internal: run_process without a command");
  std::vector<char*> argv = detail::c_strings(spec.argv);
  std::vector<char*> envp = detail::c_strings(spec.environment);

  // The child reports a failed exec (or seccomp install) through this close-on-exec pipe.
  struct ChildFailure {
    int err;
    bool seccomp;
  };
  const sock_fprog filter{static_cast<unsigned short>(seccomp_filter.size()),
                          const_cast<sock_filter*>(seccomp_filter.data())};
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));

  struct sigaction forward {};
  forward.sa_handler = detail::forward_signal;
  sigemptyset(&forward.sa_mask);
  forward.sa_flags = SA_RESTART;
  struct sigaction previous[std::size(detail::forwarded_signals)];

  // Block the forwarded signals across fork so none arrives before the pid is known.
  sigset_t block, old_mask;
  sigemptyset(&block);
  for (int sig : detail::forwarded_signals) sigaddset(&block, sig);
  ::sigprocmask(SIG_BLOCK, &block, &old_mask);

  pid_t pid = ::fork();
  if (pid < 0) {
    int err = errno;
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    ::close(report[0]);
    ::close(report[1]);
    throw Error(std::string("fork: ") + std::strerror(err));
  }
  if (pid == 0) {
    ::close(report[0]);
    for (int fd : spec.inherit_fds) {
      int flags = ::fcntl(fd, F_GETFD);
      if (flags >= 0) ::fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
    }
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    ChildFailure failure{0, false};
    if (!seccomp_filter.empty() && (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
                                         ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter) != 0)) {
      failure = {errno, true};
    } else {
      ::execve(argv[0], argv.data(), envp.data());
      failure = {errno, false};
    }
    [[maybe_unused]] auto n = ::write(report[1], &failure, sizeof failure);
    ::_exit(127);
  }

  detail::forwarded_child_pid = pid;
  for (std::size_t i = 0; i < std::size(detail::forwarded_signals); ++i)
    ::sigaction(detail::forwarded_signals[i], &forward, &previous[i]);
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  ::close(report[1]);

  ChildFailure failure{};
  ssize_t got;
  do {
    got = ::read(report[0], &failure, sizeof failure);
  } while (got < 0 && errno == EINTR);
  ::close(report[0]);

  int status = 0;
  pid_t waited;
  do {
    waited = ::waitpid(pid, &status, 0);
  } while (waited < 0 && errno == EINTR);

  detail::forwarded_child_pid = 0;
  for (std::size_t i = 0; i < std::size(detail::forwarded_signals); ++i)
    ::sigaction(detail::forwarded_signals[i], &previous[i], nullptr);

  if (got == static_cast<ssize_t>(sizeof failure) && failure.seccomp)
    throw Error("cannot install the seccomp filter for " + spec.argv[0] + ": " + std::strerror(failure.err));
  if (got == static_cast<ssize_t>(sizeof failure))
    throw Error("cannot execute " + spec.argv[0] + ": " + std::strerror(failure.err));
  if (waited < 0) throw Error(std::string("waitpid: ") + std::strerror(errno));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace pmg
