#pragma once
// The Seatbelt backend (macOS): translates a policy into SBPL (sbpl_profile.hpp) and runs the
// command under sandbox-exec (sandbox_exec.hpp). Satisfies pmg::Backend.
#include <string>
#include <string_view>

#include "pmg/plugin.hpp"

namespace pmg::seatbelt {

struct SeatbeltBackend {
  static constexpr std::string_view name = "seatbelt";

  // The tag `render` uses: a rendered profile is for reading, each launch makes its own tag.
  static constexpr const char* render_tag = "TRANSLATE";

  Availability probe() const;
  // The profile for `policy` against the real filesystem, for `pmg sandbox translate`. Works on
  // every platform. Outbound rules are shown as without the proxy (a launch starts one).
  std::string render(const Policy& policy, const Context& context) const;
  // Refuses (Error) when Seatbelt is unavailable: never runs the command unsandboxed.
  int launch(const LaunchRequest& request) const;
};

static_assert(Backend<SeatbeltBackend>);

// The launch after the availability check, with the sandbox-exec to use (tests substitute one):
// a fresh log tag; when the policy allows outbound traffic, pmg's filtering proxy on
// 127.0.0.1:<ephemeral port> for the duration of the run, the proxy variables in the
// environment and a profile that lets the sandbox reach that port only; then sandbox-exec.
int launch_with(const LaunchRequest& request, const std::string& sandbox_exec);

}  // namespace pmg::seatbelt
