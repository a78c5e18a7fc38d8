#pragma once
// The Linux backend: a policy enforced by bubblewrap (bwrap) namespaces and bind mounts.
#include <string>
#include <string_view>

#include "pmg/plugin.hpp"

namespace pmg::bubblewrap {

class BubblewrapBackend {
 public:
  static constexpr std::string_view name = "bubblewrap";

  // Whether bwrap can sandbox here (see availability.hpp); checked once per process.
  Availability probe() const;
  // The bwrap arguments for `policy` on this machine, one per line: `pmg sandbox translate`.
  std::string render(const Policy& policy, const Context& context) const;
  // Fails closed: throws Error, without running anything, when bwrap is unavailable.
  int launch(const LaunchRequest& request) const;
};

static_assert(Backend<BubblewrapBackend>);

}  // namespace pmg::bubblewrap
