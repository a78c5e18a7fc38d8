#include "socket_filter.hpp"

#include <seccomp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "pmg/error.hpp"

namespace pmg::bubblewrap {

std::string unix_socket_filter_program() {
  const std::unique_ptr<void, void (*)(scmp_filter_ctx)> filter(seccomp_init(SCMP_ACT_ALLOW), seccomp_release);
  if (!filter) throw Error("cannot set up the seccomp filter for Unix sockets (seccomp_init failed)");
  const auto fail = [](const char* what, int rc) {
    return Error(std::string("cannot set up the seccomp filter for Unix sockets: ") + what + ": " + std::strerror(-rc));
  };
  const scmp_arg_cmp family_is_unix{0, SCMP_CMP_EQ, AF_UNIX, 0};  // argument 0 of socket(2)
  if (const int rc = seccomp_rule_add_array(filter.get(), SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1, &family_is_unix);
      rc != 0)
    throw fail("socket(AF_UNIX)", rc);
  if (const int rc = seccomp_rule_add(filter.get(), SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(io_uring_setup), 0); rc != 0)
    throw fail("io_uring_setup", rc);

  // libseccomp writes the program to a descriptor; a memfd keeps it off the filesystem.
  const int fd = ::memfd_create("pmg-socket-filter", MFD_CLOEXEC);
  if (fd < 0) throw Error(std::string("memfd_create: ") + std::strerror(errno));
  std::string program;
  if (const int rc = seccomp_export_bpf(filter.get(), fd); rc != 0) {
    ::close(fd);
    throw fail("export", rc);
  }
  char buffer[4096];
  ssize_t n;
  for (off_t at = 0; (n = ::pread(fd, buffer, sizeof buffer, at)) > 0; at += n) program.append(buffer, static_cast<std::size_t>(n));
  ::close(fd);
  if (program.empty() || program.size() % 8 != 0) throw Error("the exported seccomp filter is malformed");
  return program;
}

}  // namespace pmg::bubblewrap
