#pragma once
// Running a command under /usr/bin/sandbox-exec: the plugin's only side effects. Compiled on
// every platform (so it is built and tested on Linux); only *available* on macOS.
#include <string>
#include <string_view>
#include <vector>

#include "pmg/plugin.hpp"

namespace pmg::seatbelt {

inline constexpr const char* sandbox_exec_path = "/usr/bin/sandbox-exec";

#ifdef __APPLE__
inline constexpr bool running_on_macos = true;
#else
inline constexpr bool running_on_macos = false;
#endif

// Whether Seatbelt can run here: on macOS with an executable `sandbox_exec`.
Availability seatbelt_availability(bool on_macos, const std::string& sandbox_exec);

// A profile in a temporary file only its owner can read or write (mkstemp, mode 0600), removed
// when the object is destroyed - after the run, and also when starting the run failed.
class ProfileFile {
 public:
  ProfileFile(const std::string& directory, std::string_view text);
  ~ProfileFile();
  ProfileFile(const ProfileFile&) = delete;
  ProfileFile& operator=(const ProfileFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A random tag for one run's deny message (letters and digits).
std::string random_log_tag();

// Writes `profile` to a ProfileFile in `temp_dir`, runs `sandbox_exec -f <file> command...` with
// `environment` through run_process, and returns the command's exit status. The file is gone
// when this returns or throws.
int run_with_profile(const std::string& sandbox_exec, std::string_view profile, const std::string& temp_dir,
                     const std::vector<std::string>& command, const std::vector<std::string>& environment);

}  // namespace pmg::seatbelt
