#pragma once
// Translation of a pmg policy into a Seatbelt profile (SBPL), the text `sandbox-exec -f` reads.
// Pure: the output depends only on the arguments (the filesystem view is read, never written),
// so it is golden-tested on any platform.
//
// Shape of every profile, top to bottom. Seatbelt lets the last matching rule decide, so every
// allow comes before every deny, and the mandatory denies come last of all:
//   (version 1), (deny default (with message "PMG_SBX_<tag>"))
//   essential permissions (sbpl_essentials.hpp)
//   allows: filesystem read/write, Unix sockets, programs, PTY, network
//   denies: the policy's filesystem, program and network denies
//   mandatory denies (pmg/mandatory.hpp): credentials read+write, .git/hooks and .git/config write
//   no unlinking of the directories above any denied path (so `mv .git x` cannot move a deny away)
// Every deny carries the tag message too, so `log show` finds all of the run's denials.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pmg/context.hpp"
#include "pmg/fs_view.hpp"
#include "pmg/policy.hpp"

namespace pmg::seatbelt {

struct SbplOptions {
  // The run's random tag. Denials are logged with the message "PMG_SBX_<tag>" (log_message).
  std::string tag;
  // When set, pmg's filtering proxy listens on 127.0.0.1:<port> and enforces allow_outbound /
  // deny_outbound per host; the profile then allows outbound connections to that port only.
  std::optional<std::uint16_t> proxy_port;
};

struct SbplProfile {
  std::string text;
  // Policy entries Seatbelt cannot enforce as written (e.g. a deny_outbound host without the
  // proxy); also written at the top of `text` as comments.
  std::vector<std::string> warnings;
};

// "PMG_SBX_" + tag. Throws Error unless the tag is 1-64 letters and digits.
std::string log_message(const std::string& tag);

// The forms of an expanded path or glob that Seatbelt must be told about: the pattern as written
// and, when its literal leading directories pass through a symlink, the same pattern under their
// resolved location. Seatbelt compares the fully resolved path a process reaches, so a rule for
// /tmp/x alone would never match on macOS, where /tmp is a symlink to /private/tmp (as are /var
// and /etc); the same holds for any symlinked directory a policy names.
std::vector<std::string> path_forms(const std::string& pattern, const FsView& fs);

// The profile for `policy` (as resolved, variables not yet expanded) in `context`. Throws Error
// when the policy cannot be expanded or expressed (the message names the entry).
SbplProfile translate_to_sbpl(const Policy& policy, const Context& context, const FsView& fs,
                              const SbplOptions& options);

}  // namespace pmg::seatbelt
