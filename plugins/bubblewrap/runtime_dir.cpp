#include "runtime_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "pmg/error.hpp"

namespace pmg::bubblewrap {
namespace {

bool owned_directory(const std::string& path, struct stat& st) {
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid();
}

}  // namespace

std::string user_runtime_dir() {
  struct stat st {};
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  // A runtime dir inherited from another user (su without a login) is not ours to use.
  const std::string dir = runtime != nullptr && runtime[0] == '/' && owned_directory(runtime, st)
                              ? std::string(runtime) + "/pmg"
                              : "/tmp/pmg-" + std::to_string(::geteuid());
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    throw Error("cannot create " + dir + " (pmg's run-time directory): " + std::strerror(errno));
  // Another user could have created it first (/tmp is shared).
  if (!owned_directory(dir, st) || (st.st_mode & 077) != 0)
    throw Error(dir + " is not a private directory of this user (pmg keeps its run-time files there); "
                "remove it and run again");
  return dir;
}

void write_private_file(const std::string& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  const bool written = fd >= 0 && ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
  const int err = errno;
  if (fd >= 0) ::close(fd);
  if (!written) throw Error("cannot write " + path + ": " + std::strerror(err));
}

RunDirectory::RunDirectory(const std::string& parent, const std::string& prefix) {
  std::string templ = parent + "/" + prefix + ".XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr)
    throw Error("cannot create a directory in " + parent + ": " + std::strerror(errno));
  path_ = std::move(templ);
}

RunDirectory::~RunDirectory() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace pmg::bubblewrap
