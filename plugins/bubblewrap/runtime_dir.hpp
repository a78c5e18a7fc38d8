#pragma once
// The user's private directory for pmg's run-time files: the journal of host changes
// (host_changes.hpp) and each run's proxy socket directory.
#include <string>

namespace pmg::bubblewrap {

// $XDG_RUNTIME_DIR/pmg, or /tmp/pmg-UID without a runtime dir of this user's own; created 0700
// when missing. Throws Error naming the directory and the fix when it cannot be created or is
// not a private directory of this user (someone else could plant sockets or edit the journal).
std::string user_runtime_dir();

// Writes `content` to a new file `path` (mode 0600, not following a symlink). Throws Error naming it.
void write_private_file(const std::string& path, const std::string& content);

// A fresh private directory inside `parent` for one run; removed (with what is left in it) by
// the destructor.
class RunDirectory {
 public:
  RunDirectory(const std::string& parent, const std::string& prefix);
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;
  ~RunDirectory();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace pmg::bubblewrap
