#pragma once
// What a process in the sandbox can do with a path under a plan, by bwrap's semantics: mounts
// apply in order, and the last one on the path or an ancestor decides, because every bind is
// recursive from the HOST tree (a later bind of a parent uncovers anything mounted below it).
// Lets property tests state the guarantees independently of the golden argument lists.
#include <string_view>

#include "mount_plan.hpp"
#include "pmg/path.hpp"

namespace pmg::bubblewrap::testing {

enum class Seen { absent, hidden, read_only, writable, kernel };

inline Seen effective_access(const MountPlan& plan, std::string_view path) {
  const MountOp* last = nullptr;
  for (const MountOp& m : plan.mounts)
    if (m.kind != MountKind::symlink && m.kind != MountKind::remount_read_only && path_is_within(path, m.dest))
      last = &m;
  if (last == nullptr) return Seen::absent;
  switch (last->kind) {
    case MountKind::read_only_bind: return Seen::read_only;
    case MountKind::bind: return Seen::writable;
    case MountKind::read_only_dir: return path == last->dest ? Seen::read_only : Seen::absent;
    case MountKind::hidden_dir:
    case MountKind::hidden_file: return Seen::hidden;
    case MountKind::proc:
    case MountKind::dev: return Seen::kernel;
    case MountKind::symlink:
    case MountKind::remount_read_only: break;
  }
  return Seen::absent;
}

inline bool readable(Seen s) { return s == Seen::read_only || s == Seen::writable; }

}  // namespace pmg::bubblewrap::testing
