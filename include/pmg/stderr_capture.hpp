#pragma once
// Reading what a sandboxed command writes to stderr while it still reaches the user unchanged:
// the only way pmg learns about denials on backends that cannot observe the kernel (bubblewrap).
//
// The host wraps the backend's launch in a StderrCapture. For the duration, fd 2 (and fd 1 when it
// is the very same file, `>log 2>&1`) points at a channel that a relay thread copies, byte for
// byte and as soon as it arrives, to the original destination, keeping the lines a filter selects.
// Backends need no change: the child inherits fds 1 and 2 from the host as always.
//
// What the command sees stays what it would see without pmg:
//   - stderr a terminal: the channel is a new pseudo-terminal in raw mode (no output processing,
//     the real terminal does that) with the real terminal's window size, so isatty(2), colours
//     and progress bars behave the same. stdout is left on the terminal, untouched: curses-style
//     programs change terminal modes through stdout, which must stay the real terminal.
//   - stderr a pipe or file and stdout the same one: both go through ONE pipe, so their relative
//     order is exactly the command's (CI logs).
//   - otherwise: stderr alone goes through a pipe; stdout is untouched (`pmg npm ls --json > f`).
// Between stdout and a separately relayed stderr on a terminal, the relay adds one read and one
// write of latency (microseconds), the only observable difference.
// If no channel can be made (no /dev/ptmx in a container, fd limit), nothing is captured and the
// run proceeds as without capture: capture is diagnostics, never a reason to fail a run.
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include "pmg/log.hpp"

namespace pmg {

struct CaptureLimits {
  std::size_t max_lines = 1000;        // kept lines; later ones are relayed but not kept
  std::size_t max_line_bytes = 8192;   // a longer line is kept cut at this length
  std::chrono::milliseconds drain{2000};  // after finish(): how long a straggler that still holds
                                          // the channel open (a daemonised grandchild) is waited for
};

enum class CaptureMode { off, pipe, pty };

class StderrCapture {
 public:
  using LineFilter = std::function<bool(std::string_view line)>;

  // Starts capturing now; `keep` runs on the relay thread and must not touch shared state.
  explicit StderrCapture(LineFilter keep, CaptureLimits limits = {}) : keep_(std::move(keep)), limits_(limits) {
    start();
  }
  ~StderrCapture() { finish(); }
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;

  CaptureMode mode() const { return mode_; }
  bool includes_stdout() const { return merged_; }

  // Puts fds 1 and 2 back, waits for the relay to copy what is left, and returns the kept lines
  // (without line terminators). Later calls return nothing.
  std::vector<std::string> finish() {
    if (mode_ == CaptureMode::off) return {};
    std::fflush(stdout);
    std::fflush(stderr);
    ::dup2(saved_stderr_, STDERR_FILENO);
    if (merged_) ::dup2(saved_stdout_, STDOUT_FILENO);
    stop_requested_.store(true);
    if (relay_.joinable()) relay_.join();
    for (int* fd : {&saved_stderr_, &saved_stdout_, &read_fd_}) {
      if (*fd >= 0) ::close(*fd);
      *fd = -1;
    }
    mode_ = CaptureMode::off;
    return std::move(lines_);
  }

 private:
  void start() {
    struct stat err_stat {}, out_stat {};
    if (::fstat(STDERR_FILENO, &err_stat) != 0) return;  // no stderr: nothing to see
    const bool terminal = ::isatty(STDERR_FILENO) != 0;
    merged_ = !terminal && ::fstat(STDOUT_FILENO, &out_stat) == 0 && out_stat.st_dev == err_stat.st_dev &&
              out_stat.st_ino == err_stat.st_ino;
    int write_fd = -1;
    if (!(terminal ? open_pty(write_fd) : open_pipe(write_fd))) return;

    saved_stderr_ = ::fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (merged_) saved_stdout_ = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (saved_stderr_ < 0 || (merged_ && saved_stdout_ < 0) || !start_relay()) {
      log_debug("stderr capture is off: {}", std::strerror(errno));
      for (int fd : {write_fd, read_fd_, saved_stderr_, saved_stdout_})
        if (fd >= 0) ::close(fd);
      read_fd_ = saved_stderr_ = saved_stdout_ = -1;
      return;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    ::dup2(write_fd, STDERR_FILENO);  // dup2 leaves the new descriptor inheritable
    if (merged_) ::dup2(write_fd, STDOUT_FILENO);
    ::close(write_fd);
    mode_ = terminal ? CaptureMode::pty : CaptureMode::pipe;
  }

  bool open_pipe(int& write_fd) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      log_debug("stderr capture is off: pipe: {}", std::strerror(errno));
      return false;
    }
    read_fd_ = fds[0];
    write_fd = fds[1];
    return true;
  }

  bool open_pty(int& write_fd) {
    const int master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    char name[128];
    if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0 || ::ptsname_r(master, name, sizeof name) != 0) {
      log_debug("stderr capture is off: no pseudo-terminal: {}", std::strerror(errno));
      if (master >= 0) ::close(master);
      return false;
    }
    const int slave = ::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    termios modes{};
    if (slave < 0 || ::tcgetattr(slave, &modes) != 0) {
      log_debug("stderr capture is off: cannot open {}: {}", name, std::strerror(errno));
      if (slave >= 0) ::close(slave);
      ::close(master);
      return false;
    }
    ::cfmakeraw(&modes);
    ::tcsetattr(slave, TCSANOW, &modes);
    read_fd_ = master;
    write_fd = slave;
    is_pty_.store(true);
    sync_window_size();
    return true;
  }

  // The relay thread starts with every signal blocked: signals stay with the main thread (which
  // forwards them to the child), and a write to a closed pipe gives it EPIPE, not SIGPIPE.
  bool start_relay() {
    sigset_t all, previous;
    sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &previous);
    bool started = true;
    try {
      relay_ = std::thread([this] { relay(); });
    } catch (const std::system_error&) {
      started = false;
    }
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return started;
  }

  void sync_window_size() {
    winsize size{};
    if (::ioctl(saved_stderr_ >= 0 ? saved_stderr_ : STDERR_FILENO, TIOCGWINSZ, &size) != 0) return;
    if (size.ws_row == window_.ws_row && size.ws_col == window_.ws_col) return;
    window_ = size;
    ::ioctl(read_fd_, TIOCSWINSZ, &size);
  }

  void relay() {
    char buffer[65536];
    std::chrono::steady_clock::time_point deadline{};
    for (;;) {
      if (stop_requested_.load() && deadline == std::chrono::steady_clock::time_point{})
        deadline = std::chrono::steady_clock::now() + limits_.drain;
      pollfd p{read_fd_, POLLIN, 0};
      const int ready = ::poll(&p, 1, 100);
      if (mode_pty()) sync_window_size();
      if (ready == 0) {
        if (deadline != std::chrono::steady_clock::time_point{} && std::chrono::steady_clock::now() >= deadline) break;
        continue;
      }
      if (ready < 0) {
        if (errno == EINTR) continue;
        break;
      }
      const ssize_t n = ::read(read_fd_, buffer, sizeof buffer);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) break;  // end of file; EIO: the last holder of the pseudo-terminal closed it
      forward(buffer, static_cast<std::size_t>(n));
      scan(std::string_view(buffer, static_cast<std::size_t>(n)));
    }
    if (!partial_.empty()) keep_line();
  }

  bool mode_pty() const { return is_pty_.load(); }

  void forward(const char* data, std::size_t size) {
    while (size > 0 && !output_broken_) {
      const ssize_t n = ::write(saved_stderr_, data, size);
      if (n > 0) {
        data += n;
        size -= static_cast<std::size_t>(n);
      } else if (n < 0 && errno == EAGAIN) {
        pollfd p{saved_stderr_, POLLOUT, 0};
        ::poll(&p, 1, 100);
      } else if (n < 0 && errno != EINTR) {
        output_broken_ = true;  // the reader went away: keep draining so the command never blocks
      }
    }
  }

  void scan(std::string_view data) {
    while (!data.empty()) {
      const std::size_t newline = data.find('\n');
      const std::string_view piece = data.substr(0, newline);
      if (partial_.size() < limits_.max_line_bytes)
        partial_.append(piece.substr(0, limits_.max_line_bytes - partial_.size()));
      if (newline == std::string_view::npos) return;
      keep_line();
      data.remove_prefix(newline + 1);
    }
  }

  void keep_line() {
    if (!partial_.empty() && partial_.back() == '\r') partial_.pop_back();
    if (lines_.size() < limits_.max_lines && keep_(partial_)) lines_.push_back(partial_);
    partial_.clear();
  }

  LineFilter keep_;
  CaptureLimits limits_;
  CaptureMode mode_ = CaptureMode::off;
  bool merged_ = false;
  int read_fd_ = -1;
  int saved_stderr_ = -1;
  int saved_stdout_ = -1;
  winsize window_{};
  std::thread relay_;
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> is_pty_{false};
  bool output_broken_ = false;
  std::string partial_;
  std::vector<std::string> lines_;
};

}  // namespace pmg
