#include "bubblewrap_backend.hpp"

#include <unistd.h>

#include <cstdlib>
#include <mutex>

#include "availability.hpp"
#include "launcher.hpp"
#include "mount_plan.hpp"
#include "pmg/error.hpp"
#include "pmg/fs_view.hpp"

namespace pmg::bubblewrap {
namespace {

std::string path_env() {
  const char* path = std::getenv("PATH");
  return path != nullptr && *path != '\0' ? path : "/usr/local/bin:/usr/bin:/bin";
}

}  // namespace

Availability BubblewrapBackend::probe() const {
  static std::once_flag once;
  static Availability cached;
  std::call_once(once, [] { cached = probe_bubblewrap(path_env(), ::geteuid() == 0); });
  return cached;
}

std::string BubblewrapBackend::render(const Policy& policy, const Context& context) const {
  std::string out;
  for (const std::string& arg : render_arguments(plan_mounts(policy, context, RealFs{}))) {
    out += arg;
    out += '\n';
  }
  return out;
}

int BubblewrapBackend::launch(const LaunchRequest& request) const {
  const Availability availability = probe();
  if (!availability.available)
    throw Error("the bubblewrap sandbox is unavailable: " + availability.reason + " (fix: " + availability.fix +
                "); the command was not run");
  const std::optional<std::string> bwrap = find_bwrap(path_env());
  if (!bwrap) throw Error("bwrap disappeared from PATH; the command was not run");
  const MountPlan plan = plan_mounts(request.policy, request.context, RealFs{});
  return run_in_sandbox(*bwrap, plan, request.command, request.environment);
}

}  // namespace pmg::bubblewrap
