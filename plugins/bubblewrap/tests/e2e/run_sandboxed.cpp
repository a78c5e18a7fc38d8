// pmg_bwrap_run: runs one command under the bubblewrap backend, for end-to-end tests (the host's
// `pmg sandbox exec` is the user-facing way).
//   pmg_bwrap_run --policy NAME|FILE --home DIR --cwd DIR --tmpdir DIR -- COMMAND [ARG...]
// Exits with the command's status; 125 when the sandbox could not be set up (message on stderr).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bubblewrap_backend.hpp"
#include "pmg/error.hpp"
#include "pmg/profile_registry.hpp"

int main(int argc, char** argv) {
  std::string policy_name, home, cwd, tmpdir;
  std::vector<std::string> command;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      command.assign(argv + i + 1, argv + argc);
      break;
    }
    if (i + 1 >= argc) break;
    if (arg == "--policy") policy_name = argv[++i];
    else if (arg == "--home") home = argv[++i];
    else if (arg == "--cwd") cwd = argv[++i];
    else if (arg == "--tmpdir") tmpdir = argv[++i];
  }
  if (policy_name.empty() || home.empty() || cwd.empty() || tmpdir.empty() || command.empty()) {
    std::fprintf(stderr, "usage: %s --policy NAME|FILE --home DIR --cwd DIR --tmpdir DIR -- COMMAND [ARG...]\n",
                 argv[0]);
    return 2;
  }
  try {
    pmg::LaunchRequest request;
    request.policy = pmg::ProfileRegistry::builtin_only().resolve(policy_name);
    request.context = pmg::Context{home, cwd, tmpdir, ::getuid(), ::getgid()};
    request.command = command;
    request.environment = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "TMPDIR=" + tmpdir, "LANG=C.UTF-8"};
    if (const char* port = std::getenv("PMG_E2E_HOST_PORT")) request.environment.push_back(std::string("PMG_E2E_HOST_PORT=") + port);
    return pmg::bubblewrap::BubblewrapBackend{}.launch(request);
  } catch (const pmg::Error& e) {
    std::fprintf(stderr, "pmg_bwrap_run: %s\n", e.what());
    return 125;
  }
}
