#include "bubblewrap_backend.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>

#include "availability.hpp"
#include "launcher.hpp"
#include "mount_plan.hpp"
#include "pmg/error.hpp"
#include "pmg/fs_view.hpp"
#include "pmg/network_proxy.hpp"
#include "pmg/proxy_environment.hpp"
#include "runtime_dir.hpp"
#include "socket_filter.hpp"

namespace pmg::bubblewrap {
namespace {

std::string path_env() {
  const char* path = std::getenv("PATH");
  return path != nullptr && *path != '\0' ? path : "/usr/local/bin:/usr/bin:/bin";
}

// pmg-netbridge is installed next to the program that loaded this plugin (bin/ of the build tree
// or of the install prefix).
std::string netbridge_path() {
  std::error_code ec;
  const std::filesystem::path bridge = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path() / "pmg-netbridge";
  if (::access(bridge.c_str(), X_OK) != 0)
    throw Error("the policy allows outbound connections, which the sandbox makes through pmg-netbridge, but " +
                bridge.string() + " is missing or not executable; reinstall pmg (it ships next to the pmg "
                "program), or remove the policy's allow_outbound entries to run without network. The command "
                "was not run");
  return bridge.string();
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
  const std::string runtime = user_runtime_dir();
  // Joined before planning: the plan binds what exists now, and no other run may undo its
  // changes (remove a directory this plan binds) until this one is over.
  HostChanges host(runtime);

  // With allow_outbound entries the sandbox's only way out is the filtering proxy, which runs on
  // this side for as long as the sandbox does (destroyed after it, in reverse order).
  std::optional<RunDirectory> proxy_dir;
  std::optional<NetworkProxy> proxy;
  ProxyEndpoint endpoint;
  std::vector<std::string> environment = request.environment;
  if (!request.policy.network.allow_outbound.empty()) {
    endpoint.netbridge = netbridge_path();
    proxy_dir.emplace(runtime, "net");
    endpoint.host_dir = proxy_dir->path();
  }
  const MountPlan plan = plan_mounts(request.policy, request.context, RealFs{}, endpoint);
  if (plan.network.filtered) {
    NetworkProxyOptions options = run_proxy_options(request);
    options.socket_path = endpoint.host_dir + "/" + proxy_socket_name;
    proxy.emplace(std::move(options));
    proxy->start();
    if (plan.block_unix_sockets) write_private_file(endpoint.host_dir + "/" + socket_filter_name, unix_socket_filter_program());
    apply_proxy_environment(environment, ProxyEnvironmentOptions{default_netbridge_port, true});
  }
  return run_in_sandbox(*bwrap, plan, request.command, environment, host);
}

}  // namespace pmg::bubblewrap
