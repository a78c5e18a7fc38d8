#include "seatbelt_backend.hpp"

#include <optional>

#include "pmg/error.hpp"
#include "pmg/fs_view.hpp"
#include "pmg/log.hpp"
#include "pmg/network_proxy.hpp"
#include "pmg/proxy_environment.hpp"
#include "sandbox_exec.hpp"
#include "sbpl_profile.hpp"

namespace pmg::seatbelt {

Availability SeatbeltBackend::probe() const { return seatbelt_availability(running_on_macos, sandbox_exec_path); }

std::string SeatbeltBackend::render(const Policy& policy, const Context& context) const {
  return translate_to_sbpl(policy, context, RealFs{}, SbplOptions{render_tag, std::nullopt}).text;
}

int SeatbeltBackend::launch(const LaunchRequest& request) const {
  const Availability availability = probe();
  if (!availability.available)
    throw Error("the Seatbelt backend cannot run here: " + availability.reason + " (fix: " + availability.fix +
                "); pmg will not run the command unsandboxed");
  return launch_with(request, sandbox_exec_path);
}

int launch_with(const LaunchRequest& request, const std::string& sandbox_exec) {
  const std::string tag = random_log_tag();
  log_debug("Seatbelt log tag: {}", log_message(tag));
  SbplOptions options{tag, std::nullopt};
  std::vector<std::string> environment = request.environment;

  // Seatbelt cannot filter by host name, so allowed hosts are enforced by the proxy, as on
  // Linux; the sandbox reaches nothing but the proxy's port. Stopped when this returns.
  std::optional<NetworkProxy> proxy;
  if (!request.policy.network.allow_outbound.empty()) {
    NetworkProxyOptions proxy_options = run_proxy_options(request);
    proxy_options.listen_loopback_tcp = true;
    proxy.emplace(std::move(proxy_options));
    proxy->start();
    options.proxy_port = proxy->tcp_port();
    apply_proxy_environment(environment, ProxyEnvironmentOptions{proxy->tcp_port(), true});
  }

  const SbplProfile profile = translate_to_sbpl(request.policy, request.context, RealFs{}, options);
  for (const std::string& warning : profile.warnings) log_warn("seatbelt: {}", warning);
  log_debug("Seatbelt profile:\n{}", profile.text);
  return run_with_profile(sandbox_exec, profile.text, request.context.tmpdir, request.command, environment);
}

}  // namespace pmg::seatbelt
