#include "host_changes.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iterator>
#include <string_view>
#include <cstring>

#include "pmg/error.hpp"
#include "pmg/log.hpp"

namespace pmg::bubblewrap {
namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// What a created file holds: JSON tools reject an empty file (npm fails on an empty
// package.json), and an empty object is the neutral JSON document; anything else starts empty.
std::string_view placeholder_content(const std::string& file) { return file.ends_with(".json") ? "{}\n" : ""; }

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

void HostChanges::create_files(const std::vector<std::string>& files) {
  for (const std::string& file : files) {
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd >= 0) {
      const std::string_view content = placeholder_content(file);
      const bool written = ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
      ::close(fd);
      created_files_.push_back(file);
      if (!written) throw Error("cannot write " + file + " for the sandbox: " + std::strerror(errno));
    } else if (errno != EEXIST) {
      throw Error("cannot create " + file + " for the sandbox: " + std::strerror(errno) +
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
  for (const std::string& file : created_files_) {
    struct stat st {};
    if (::lstat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    std::ifstream in(file, std::ios::binary);
    const std::string content((std::istreambuf_iterator<char>(in)), {});
    if (content == placeholder_content(file)) ::unlink(file.c_str());  // the run did not write it
  }
  created_files_.clear();
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) ::rmdir(it->c_str());  // kept if filled
  created_.clear();
  return left;
}

}  // namespace pmg::bubblewrap
