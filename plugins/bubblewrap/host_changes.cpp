#include "host_changes.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "pmg/error.hpp"
#include "pmg/log.hpp"

namespace pmg::bubblewrap {
namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

}  // namespace

HostChanges::~HostChanges() { undo(); }

void HostChanges::create_directories(const std::vector<std::string>& dirs) {
  for (const std::string& dir : dirs) {
    if (::mkdir(dir.c_str(), 0777) == 0) {
      created_.push_back(dir);
    } else if (errno != EEXIST) {
      throw Error("cannot create " + dir + " for the sandbox: " + std::strerror(errno) +
                  "; create it yourself or remove the allow_write rule that names it");
    }
  }
}

void HostChanges::expect_mount_points(const std::vector<std::string>& paths) {
  for (const std::string& path : paths)
    if (!exists(path)) mount_points_.push_back(path);
}

std::vector<std::string> HostChanges::undo() {
  std::vector<std::string> left;
  for (auto it = mount_points_.rbegin(); it != mount_points_.rend(); ++it) {
    if (::rmdir(it->c_str()) != 0 && errno != ENOENT) {
      log_warn("could not remove the sandbox's mount point {}: {}", *it, std::strerror(errno));
      left.push_back(*it);
    }
  }
  mount_points_.clear();
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) ::rmdir(it->c_str());  // kept if filled
  created_.clear();
  return left;
}

}  // namespace pmg::bubblewrap
