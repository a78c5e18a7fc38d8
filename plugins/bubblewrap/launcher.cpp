#include "launcher.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

#include "pmg/error.hpp"
#include "pmg/log.hpp"
#include "pmg/process.hpp"
#include "shell_quote.hpp"
#include "socket_filter.hpp"

namespace pmg::bubblewrap {
namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

Fd memory_file(const char* name) {
  const int fd = ::memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) throw Error(std::string("memfd_create: ") + std::strerror(errno));
  return Fd(fd);
}

void write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(std::string("writing bwrap's arguments: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  ::lseek(fd, 0, SEEK_SET);
}

std::string read_all(int fd) {
  std::string out;
  char buffer[4096];
  ::lseek(fd, 0, SEEK_SET);
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return out;
    out.append(buffer, static_cast<std::size_t>(n));
  }
}

// A program that leaves the terminal in raw mode when it is killed would leave the user's shell
// unusable; put back the modes it had, when pmg owns the terminal.
class TerminalModes {
 public:
  TerminalModes() {
    if (::isatty(STDIN_FILENO) && ::tcgetpgrp(STDIN_FILENO) == ::getpgrp() &&
        ::tcgetattr(STDIN_FILENO, &saved_) == 0)
      active_ = true;
  }
  TerminalModes(const TerminalModes&) = delete;
  TerminalModes& operator=(const TerminalModes&) = delete;
  ~TerminalModes() {
    if (active_ && ::tcgetpgrp(STDIN_FILENO) == ::getpgrp()) ::tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  }

 private:
  termios saved_{};
  bool active_ = false;
};

}  // namespace

int run_in_sandbox(const std::string& bwrap, const MountPlan& plan, const std::vector<std::string>& command,
                   const std::vector<std::string>& environment, HostChanges& host) {
  if (command.empty() || command[0].empty() || command[0].front() != '/')
    throw Error("internal: the sandboxed command must start with an absolute path");
  for (const std::string& note : plan.notes) log_debug("bubblewrap plan: {}", note);
  for (const std::string& warning : plan.warnings) log_warn("sandbox: {}", warning);

  const std::vector<std::string> args = render_arguments(plan);
  log_debug("Bubblewrap arguments: {}", shell_join(args));

  std::string packed;
  for (const std::string& a : args) {
    packed += a;
    packed.push_back('\0');
  }
  const Fd args_fd = memory_file("pmg-bwrap-args");
  write_all(args_fd.get(), packed);
  const Fd status_fd = memory_file("pmg-bwrap-status");

  ProcessSpec spec;
  spec.argv = {bwrap, "--args", std::to_string(args_fd.get()), "--json-status-fd", std::to_string(status_fd.get())};
  spec.inherit_fds = {args_fd.get(), status_fd.get()};
  // Without pmg-netbridge in front (it installs the filter itself, sparing its own socket), bwrap
  // installs the Unix-socket filter on the command.
  std::optional<Fd> filter_fd;
  if (plan.block_unix_sockets && !plan.network.filtered) {
    filter_fd.emplace(memory_file("pmg-socket-filter"));
    write_all(filter_fd->get(), unix_socket_filter_program());
    spec.argv.insert(spec.argv.end(), {"--seccomp", std::to_string(filter_fd->get())});
    spec.inherit_fds.push_back(filter_fd->get());
  }
  spec.argv.push_back("--");
  spec.argv.insert(spec.argv.end(), plan.network.command_prefix.begin(), plan.network.command_prefix.end());
  spec.argv.insert(spec.argv.end(), command.begin(), command.end());
  spec.environment = environment;

  int status;
  {
    host.create_directories(plan.create_before_run);
    host.create_files(plan.create_files_before_run);
    host.expect_mount_points(plan.created_mount_points);
    const TerminalModes terminal;
    status = run_process(spec);
  }  // terminal restored

  // bwrap reports the command's exit in its status; without that report the command never ran
  // (bwrap failed to set up the sandbox or to execute it) unless bwrap itself was killed.
  if (read_all(status_fd.get()).find("\"exit-code\"") == std::string::npos && status < 128)
    throw Error("bubblewrap could not set up the sandbox or start " + command[0] + " (bwrap exited with " +
                std::to_string(status) + "; its message is above). Run with APP_LOG_LEVEL=debug to see the "
                "`Bubblewrap arguments:` line and try it with `bwrap ARGUMENTS -- COMMAND`");
  return status;
}

}  // namespace pmg::bubblewrap
