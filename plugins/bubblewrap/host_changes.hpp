#pragma once
// The directories a run adds to the host, and their removal afterwards, so the host is left as it
// was: mount points bwrap creates inside writable binds (a deny target that does not exist yet),
// and directories created before the run for a writable DIR/** rule (node_modules).
#include <string>
#include <vector>

namespace pmg::bubblewrap {

class HostChanges {
 public:
  HostChanges() = default;
  HostChanges(const HostChanges&) = delete;
  HostChanges& operator=(const HostChanges&) = delete;
  ~HostChanges();

  // Creates each missing directory (parents first, as listed) and remembers it. Throws Error
  // naming the directory when one cannot be created.
  void create_directories(const std::vector<std::string>& dirs);

  // Creates each listed file that does not exist (empty; "{}" for a .json file, which JSON tools
  // need to parse) and remembers the ones it created.
  void create_files(const std::vector<std::string>& files);

  // Remembers the listed paths that do not exist now: bwrap is about to create them.
  void expect_mount_points(const std::vector<std::string>& paths);

  // Removes what was remembered, deepest first, if it is still an empty directory; returns the
  // mount points that could not be removed (something was put in them). A created directory
  // the command filled (node_modules) stays: that is the run's intended output. A created file
  // is removed if it still holds only its placeholder content.
  std::vector<std::string> undo();

 private:
  std::vector<std::string> created_;       // by create_directories
  std::vector<std::string> created_files_;  // by create_files
  std::vector<std::string> mount_points_;  // by bwrap
};

}  // namespace pmg::bubblewrap
