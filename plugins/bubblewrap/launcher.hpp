#pragma once
// Carrying out a MountPlan: the only code of the plugin with side effects.
#include <string>
#include <vector>

#include "host_changes.hpp"
#include "mount_plan.hpp"

namespace pmg::bubblewrap {

// Runs `command` (command[0] absolute) under `bwrap` as `plan` says, with `environment`, and
// returns its exit status (128 + signal when it was killed). The arguments go to bwrap through a
// memfd (--args), so no profile is too large for ARG_MAX; the debug log gets them as one pasteable
// `Bubblewrap arguments: ...` line. Directories the plan creates on the host are removed again
// through `host` (see host_changes.hpp: it must have joined the runs in progress before the plan
// looked at the host), and the terminal's modes are restored. The plan's network prefix
// (pmg-netbridge) goes before the command. Throws Error when bwrap could not set up the sandbox or
// start the command: then the command never ran.
int run_in_sandbox(const std::string& bwrap, const MountPlan& plan, const std::vector<std::string>& command,
                   const std::vector<std::string>& environment, HostChanges& host);

}  // namespace pmg::bubblewrap
