#include "host_changes.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string_view>

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

int open_in(const std::string& dir, const char* name, int flags) {
  const std::string path = dir + "/" + name;
  const int fd = ::open(path.c_str(), flags | O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) throw Error("cannot open " + path + ": " + std::strerror(errno) + "; remove it, pmg recreates it");
  return fd;
}

std::string read_all(int fd) {
  std::string out;
  char buffer[4096];
  ssize_t n;
  for (off_t at = 0; (n = ::pread(fd, buffer, sizeof buffer, at)) > 0; at += n)
    out.append(buffer, static_cast<std::size_t>(n));
  return out;
}

// Journal records: a kind byte, the path, a NUL (paths may hold any other byte).
constexpr char created_directory = 'd', created_file = 'f', mount_point = 'm';

void undo_one(char kind, const std::string& path) {
  if (kind == mount_point) {
    if (::rmdir(path.c_str()) != 0 && errno != ENOENT && errno != ENOTDIR)
      log_warn("could not remove the sandbox's mount point {}: {}", path, std::strerror(errno));
  } else if (kind == created_file) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
    std::ifstream in(path, std::ios::binary);
    const std::string content((std::istreambuf_iterator<char>(in)), {});
    if (content == placeholder_content(path)) ::unlink(path.c_str());  // no run wrote it
  } else if (kind == created_directory) {
    ::rmdir(path.c_str());  // kept if a run filled it (node_modules is the run's output)
  }
}

}  // namespace

HostChanges::HostChanges(const std::string& dir) {
  lock_fd_ = open_in(dir, "host-changes.lock", 0);
  try {
    journal_fd_ = open_in(dir, "host-changes", O_APPEND);
  } catch (...) {
    ::close(lock_fd_);
    throw;
  }
  // Blocks only while the last run of a batch undoes the journal.
  while (::flock(lock_fd_, LOCK_SH) != 0 && errno == EINTR) {
  }
}

HostChanges::~HostChanges() {
  ::flock(lock_fd_, LOCK_UN);
  // Granted only when no other run holds its shared lock; a run starting now waits for the undo.
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) == 0) undo_journal();
  ::close(journal_fd_);
  ::close(lock_fd_);  // releases the lock
}

void HostChanges::journal(char kind, const std::string& path) {
  std::string record(1, kind);
  record += path;
  record.push_back('\0');
  // One O_APPEND write per record, so records of concurrent runs never interleave.
  if (::write(journal_fd_, record.data(), record.size()) != static_cast<ssize_t>(record.size()))
    log_warn("could not record {} in pmg's journal: {}; remove it yourself after the run", path, std::strerror(errno));
}

void HostChanges::undo_journal() {
  const std::string records = read_all(journal_fd_);
  std::vector<std::string_view> entries;
  for (std::size_t at = 0; at < records.size();) {
    const std::size_t end = records.find('\0', at);
    if (end == std::string::npos) break;  // a record cut by a crash mid-write
    if (end > at + 1) entries.push_back(std::string_view(records).substr(at, end - at));
    at = end + 1;
  }
  // Children before their parents: a path sorts after every path it is inside. (Journal order
  // is not enough: two runs creating nested directories may journal them in either order.)
  std::sort(entries.begin(), entries.end(),
            [](std::string_view a, std::string_view b) { return a.substr(1) > b.substr(1); });
  for (std::string_view entry : entries) undo_one(entry.front(), std::string(entry.substr(1)));
  if (::ftruncate(journal_fd_, 0) != 0) log_warn("could not empty pmg's journal: {}", std::strerror(errno));
}

void HostChanges::create_directories(const std::vector<std::string>& dirs) {
  for (const std::string& dir : dirs) {
    if (::mkdir(dir.c_str(), 0777) == 0) {
      journal(created_directory, dir);
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
      const int write_errno = errno;
      ::close(fd);
      journal(created_file, file);
      if (!written) throw Error("cannot write " + file + " for the sandbox: " + std::strerror(write_errno));
    } else if (errno != EEXIST) {
      throw Error("cannot create " + file + " for the sandbox: " + std::strerror(errno) +
                  "; create it yourself or remove the allow_write rule that names it");
    }
  }
}

void HostChanges::expect_mount_points(const std::vector<std::string>& paths) {
  for (const std::string& path : paths)
    if (!exists(path)) journal(mount_point, path);
}

}  // namespace pmg::bubblewrap
