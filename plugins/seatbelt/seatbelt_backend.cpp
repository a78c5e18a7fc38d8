#include "seatbelt_backend.hpp"

#include "pmg/error.hpp"
#include "pmg/fs_view.hpp"
#include "pmg/log.hpp"
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
  const std::string tag = random_log_tag();
  log_debug("Seatbelt log tag: {}", log_message(tag));
  const SbplProfile profile = translate_to_sbpl(request.policy, request.context, RealFs{}, SbplOptions{tag, std::nullopt});
  for (const std::string& warning : profile.warnings) log_warn("seatbelt: {}", warning);
  log_debug("Seatbelt profile:\n{}", profile.text);
  return run_with_profile(sandbox_exec_path, profile.text, request.context.tmpdir, request.command,
                          request.environment);
}

}  // namespace pmg::seatbelt
