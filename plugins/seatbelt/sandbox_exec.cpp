#include "sandbox_exec.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "pmg/error.hpp"
#include "pmg/path.hpp"
#include "pmg/process.hpp"

namespace pmg::seatbelt {

Availability seatbelt_availability(bool on_macos, const std::string& sandbox_exec) {
  if (!on_macos) return {false, "Seatbelt runs only on macOS", "use the bubblewrap backend on Linux"};
  if (::access(sandbox_exec.c_str(), X_OK) != 0)
    return {false, sandbox_exec + " is missing or not executable (" + std::strerror(errno) + ")",
            "sandbox-exec ships with macOS; restore it (it may have been removed by a system tool) "
            "or use a macOS version that has it"};
  return {true, "", ""};
}

ProfileFile::ProfileFile(const std::string& directory, std::string_view text) {
  std::string name = join_path(directory, "pmg-seatbelt-XXXXXX");
  const int fd = ::mkstemp(name.data());  // creates the file with mode 0600
  if (fd < 0)
    throw Error("cannot create the Seatbelt profile file in " + directory + ": " + std::strerror(errno) +
                "; check that TMPDIR is a writable directory");
  path_ = name;
  const auto fail = [&](const char* what) {
    const int err = errno;
    ::close(fd);
    ::unlink(path_.c_str());
    throw Error(std::string(what) + " " + path_ + ": " + std::strerror(err));
  };
  // mkstemp promises 0600 on current systems; make it explicit rather than trust every libc.
  if (::fchmod(fd, S_IRUSR | S_IWUSR) != 0) fail("cannot restrict the permissions of");
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write the Seatbelt profile to");
    written += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(path_.c_str());
    throw Error("cannot write the Seatbelt profile to " + path_ + ": " + std::strerror(err));
  }
}

ProfileFile::~ProfileFile() { ::unlink(path_.c_str()); }

std::string random_log_tag() {
  static constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device device;
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::string tag;
  for (int i = 0; i < 16; ++i) tag += alphabet[pick(device)];
  return tag;
}

int run_with_profile(const std::string& sandbox_exec, std::string_view profile, const std::string& temp_dir,
                     const std::vector<std::string>& command, const std::vector<std::string>& environment) {
  if (command.empty()) throw Error("internal: Seatbelt launch without a command");
  const ProfileFile file(temp_dir, profile);
  ProcessSpec spec;
  spec.argv = {sandbox_exec, "-f", file.path()};
  spec.argv.insert(spec.argv.end(), command.begin(), command.end());
  spec.environment = environment;
  return run_process(spec);
}

}  // namespace pmg::seatbelt
