#pragma once
// What the sandbox's network is. Bubblewrap can only share the host's network namespace or give
// the sandbox its own, empty one (loopback only), so the spec's rule is all-or-nothing: any
// allow_outbound entry shares the host network, none means no network at all.
//
// This is the seam for host filtering (issue 6): the filtering proxy will set `proxy_socket`,
// and then the plan keeps its own namespace (--unshare-net) and binds that socket in, whatever
// allow_outbound says.
#include <string>

#include "pmg/policy.hpp"

namespace pmg::bubblewrap {

struct NetworkPlan {
  bool share_host_network = false;
  std::string reason;  // for the plan's notes and the debug log
};

inline NetworkPlan plan_network(const NetworkRules& rules) {
  if (rules.allow_outbound.empty())
    return {false, "no allow_outbound entries: the sandbox gets its own network namespace (loopback only)"};
  std::string reason = "allow_outbound has " + std::to_string(rules.allow_outbound.size()) +
                       " entries: the host network is shared; bubblewrap cannot filter by host or port";
  if (!rules.deny_outbound.empty()) reason += ", so deny_outbound is not enforced";
  return {true, std::move(reason)};
}

}  // namespace pmg::bubblewrap
