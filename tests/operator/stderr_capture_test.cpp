// stderr_capture.hpp: every byte still reaches its destination, in order; a terminal stays a
// terminal (with its size); the filter's lines are kept; fds are restored; a straggler that holds
// the channel open does not hang the host.
#include <fcntl.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "pmg/process.hpp"
#include "pmg/stderr_capture.hpp"

namespace {

// Points fd 1 and fd 2 somewhere for the test's duration, and back afterwards whatever happens.
class Redirect {
 public:
  Redirect(int out, int err) : saved_out_(::dup(1)), saved_err_(::dup(2)) {
    // Catch's own output (ctest's "Filters: ..." line) may still sit in the stdio buffer; it
    // belongs to the real stdout, not to the pipe under test.
    std::cout.flush();
    std::fflush(nullptr);
    ::dup2(out, 1);
    ::dup2(err, 2);
  }
  ~Redirect() {
    ::dup2(saved_out_, 1);
    ::dup2(saved_err_, 2);
    ::close(saved_out_);
    ::close(saved_err_);
  }

 private:
  int saved_out_, saved_err_;
};

struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
    read = fds[0];
    write = fds[1];
  }
  ~Pipe() {
    close_write();
    if (read >= 0) ::close(read);
  }
  void close_write() {
    if (write >= 0) ::close(write);
    write = -1;
  }
  std::string drain() {
    close_write();
    std::string out;
    char buffer[4096];
    ssize_t n;
    while ((n = ::read(read, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<std::size_t>(n));
    return out;
  }
};

int sh(const std::string& script) {
  return pmg::run_process({{"/bin/sh", "-c", script}, {"PATH=/usr/bin:/bin"}, {}});
}

bool has_erofs(std::string_view line) { return line.find("EROFS") != std::string_view::npos; }

ino_t inode_of(int fd) {
  struct stat st {};
  ::fstat(fd, &st);
  return st.st_ino;
}

}  // namespace

TEST_CASE("stderr through a pipe: relayed unchanged, matching lines kept, stdout untouched", "[capture]") {
  Pipe out, err;
  std::vector<std::string> kept;
  {
    Redirect redirect(out.write, err.write);
    pmg::StderrCapture capture(has_erofs);
    CHECK(capture.mode() == pmg::CaptureMode::pipe);
    CHECK_FALSE(capture.includes_stdout());
    CHECK(sh("echo out1; echo err1 >&2; echo 'x EROFS y' >&2; printf 'partial EROFS' >&2; exit 3") == 3);
    kept = capture.finish();
    CHECK(inode_of(2) == inode_of(err.write));
  }
  CHECK(err.drain() == "err1\nx EROFS y\npartial EROFS");
  CHECK(out.drain() == "out1\n");
  CHECK(kept == std::vector<std::string>{"x EROFS y", "partial EROFS"});
}

TEST_CASE("stdout and stderr into the same pipe keep their exact order", "[capture]") {
  Pipe both;
  std::vector<std::string> kept;
  {
    Redirect redirect(both.write, both.write);
    pmg::StderrCapture capture(has_erofs);
    CHECK(capture.includes_stdout());
    sh("i=1; while [ $i -le 300 ]; do echo o$i; echo e$i EROFS >&2; i=$((i+1)); done");
    kept = capture.finish();
  }
  std::string expected;
  for (int i = 1; i <= 300; ++i) expected += "o" + std::to_string(i) + "\ne" + std::to_string(i) + " EROFS\n";
  CHECK(both.drain() == expected);
  CHECK(kept.size() == 300);
}

TEST_CASE("a terminal on stderr stays a terminal of the same size", "[capture]") {
  int master = -1, slave = -1;
  winsize size{};
  size.ws_row = 42;
  size.ws_col = 117;
  REQUIRE(::openpty(&master, &slave, nullptr, nullptr, &size) == 0);
  Pipe out;
  std::vector<std::string> kept;
  {
    Redirect redirect(out.write, slave);
    pmg::StderrCapture capture(has_erofs);
    CHECK(capture.mode() == pmg::CaptureMode::pty);
    CHECK_FALSE(capture.includes_stdout());
    sh("[ -t 2 ] && echo stderr-is-a-terminal >&2; [ -t 1 ] || echo stdout-is-a-pipe; stty size <&2; "
       "echo 'EROFS: read-only file system' >&2");
    kept = capture.finish();
  }
  ::close(slave);
  std::string relayed;
  char buffer[4096];
  for (ssize_t n; (n = ::read(master, buffer, sizeof buffer)) > 0;) relayed.append(buffer, static_cast<std::size_t>(n));
  ::close(master);
  CHECK(relayed.find("stderr-is-a-terminal") != std::string::npos);
  CHECK(out.drain() == "stdout-is-a-pipe\n42 117\n");
  CHECK(kept == std::vector<std::string>{"EROFS: read-only file system"});
}

TEST_CASE("a background process holding stderr open does not hang the host", "[capture]") {
  Pipe out, err;
  const auto start = std::chrono::steady_clock::now();
  {
    Redirect redirect(out.write, err.write);
    pmg::CaptureLimits limits;
    limits.drain = std::chrono::milliseconds(300);
    pmg::StderrCapture capture(has_erofs, limits);
    sh("sleep 3 & echo 'done EROFS' >&2");
    CHECK(capture.finish() == std::vector<std::string>{"done EROFS"});
  }
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(2500));
}

TEST_CASE("kept lines are bounded in number and length", "[capture]") {
  Pipe out, err;
  std::vector<std::string> kept;
  {
    Redirect redirect(out.write, err.write);
    pmg::CaptureLimits limits;
    limits.max_lines = 2;
    limits.max_line_bytes = 10;
    pmg::StderrCapture capture(has_erofs, limits);
    sh("for i in 1 2 3 4; do echo 'EROFS and then a long tail' >&2; done");
    kept = capture.finish();
  }
  CHECK(kept == std::vector<std::string>{"EROFS and ", "EROFS and "});
  CHECK(err.drain().size() == 4 * 27);
}
