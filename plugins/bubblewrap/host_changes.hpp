#pragma once
// The paths a run adds to the host, and their removal afterwards, so the host is left as it was:
// mount points bwrap creates inside writable binds (a deny target that does not exist yet),
// directories created before the run for a writable DIR/** rule (node_modules), and placeholder
// files for literal allow_write rules.
//
// Runs of one user share these paths (two runs in one project both mount over `.git/hooks`), and
// removing a path another run has mounted would detach that run's mount, deny included. So every
// change is written to a journal shared by the user's runs, each run holds a shared lock while it
// runs, and only a run that finds itself the last one (exclusive lock granted) undoes the journal:
// its own changes, those of runs still going when it started, and those of runs that were killed.
#include <string>
#include <vector>

namespace pmg::bubblewrap {

class HostChanges {
 public:
  // Opens (creating) the journal in `dir` (user_runtime_dir()) and joins the runs in progress
  // (shared lock). Throws Error naming the file when it cannot be opened.
  explicit HostChanges(const std::string& dir);
  HostChanges(const HostChanges&) = delete;
  HostChanges& operator=(const HostChanges&) = delete;
  // Leaves the runs in progress; the last one out undoes the journal.
  ~HostChanges();

  // Creates each missing directory (parents first, as listed) and journals it. Throws Error
  // naming the directory when one cannot be created.
  void create_directories(const std::vector<std::string>& dirs);

  // Creates each listed file that does not exist (empty; "{}" for a .json file, which JSON tools
  // need to parse) and journals the ones it created.
  void create_files(const std::vector<std::string>& files);

  // Journals the listed paths that do not exist now: bwrap is about to create them.
  void expect_mount_points(const std::vector<std::string>& paths);

 private:
  void journal(char kind, const std::string& path);
  void undo_journal();

  int lock_fd_ = -1;
  int journal_fd_ = -1;
};

}  // namespace pmg::bubblewrap
