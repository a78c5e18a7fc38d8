#pragma once
// Whether bubblewrap can sandbox anything on this machine, and if not, why and how to fix it.
#include <optional>
#include <string>
#include <string_view>

#include "pmg/plugin.hpp"

namespace pmg::bubblewrap {

// The bwrap executable on `path_env` (a PATH value), if any.
std::optional<std::string> find_bwrap(std::string_view path_env);

// Checks, in order: bwrap on PATH; the user-namespace sysctls (user.max_user_namespaces,
// and for a non-root user kernel.unprivileged_userns_clone); then runs
// `bwrap --ro-bind / / ... true` once with the namespace options a real run uses, so anything
// else that stops bwrap (a container's seccomp profile, AppArmor) is reported with bwrap's own
// message. Not cached: BubblewrapBackend caches it per process.
Availability probe_bubblewrap(std::string_view path_env, bool as_root);

}  // namespace pmg::bubblewrap
