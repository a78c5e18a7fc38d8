#pragma once
// Translation of a policy into what bubblewrap does: an ordered plan of namespace options and
// mount operations, each with the reason it is there, and the bwrap arguments for that plan.
//
// Both functions are pure: the inputs are the policy, the Context and a filesystem view (tests
// pass a FakeFs), and nothing is created, mounted or logged. Launch code (launcher.hpp) carries
// out the plan's side effects: the directories to create before the run and the mount points to
// remove after it.
//
// The order of the plan is what makes it hold (bwrap applies mounts in order, a later mount
// covers an earlier one, and every bind is recursive from the HOST tree, so it also uncovers
// whatever the sandbox had mounted below its destination):
//   1. options: namespaces, capabilities, session, network;
//   2. read-only binds: system paths and allow_read, parents before children, each skipped when
//      a bind already covers it; symlinks among them are recreated as symlinks;
//   3. writable binds: allow_write and TMPDIR, after every read-only bind so that a path allowed
//      for writing is writable wherever a read rule also names it (union of the allow lists);
//      then, when allow_outbound has entries, the proxy's socket directory and pmg-netbridge
//      (network_plan.hpp) at fixed paths of the sandbox's own root; then each existing socket
//      allow_unix_sockets names, read-only (a socket under a hidden path stays hidden);
//   4. --proc /proc and --dev /dev, then /dev/pts hidden unless allow_pty;
//   5. deny protection: every directory between a writable mount and a deny target is bound
//      onto itself, so rename(2) and rmdir(2) on it fail with EBUSY (`mv .git x` cannot move a
//      protected path out from under its mount). A deny target that does not exist but could be
//      created gets an empty read-only placeholder directory at its first missing ancestor;
//   6. read-only re-binds: deny_write, then the mandatory write denies (.git/hooks,
//      .git/config);
//   7. hiding: deny_read, deny_exec, root-only system secrets, then the mandatory read/write
//      denies (credentials). Hiding comes last because a later bind would uncover it;
//   8. the sandbox's own root (bwrap's tmpfs) remounted read-only, so nothing outside the
//      allowed paths is writable, not even scratch space that would vanish with the sandbox.
// Within each step user rules come before mandatory ones; no step after 5 makes anything more
// accessible, so no user rule can weaken a mandatory deny.
#include <string>
#include <vector>

#include "network_plan.hpp"
#include "pmg/context.hpp"
#include "pmg/fs_view.hpp"
#include "pmg/policy.hpp"

namespace pmg::bubblewrap {

enum class MountKind {
  read_only_bind,  // --ro-bind SRC DEST
  bind,            // --bind SRC DEST
  symlink,         // --symlink SRC DEST (SRC is the link's target)
  read_only_dir,   // --tmpfs DEST --remount-ro DEST: an empty directory nothing can be created in
  hidden_dir,      // --perms 0000 --tmpfs DEST --remount-ro DEST: cannot be listed or entered
  hidden_file,     // --ro-bind /dev/null DEST: bwrap binds are nodev, so open() fails with EACCES
  proc,            // --proc DEST
  dev,             // --dev DEST
  remount_read_only,  // --remount-ro DEST (not recursive): the sandbox's own root, last
};

struct MountOp {
  MountKind kind;
  std::string source;  // bind source or symlink target; empty otherwise
  std::string dest;
  std::string reason;  // which rule put it here, for notes and tests

  bool operator==(const MountOp&) const = default;
};

struct MountPlan {
  std::vector<std::string> options;  // namespace and process options, rendered first
  std::vector<MountOp> mounts;       // in the order bwrap must apply them
  std::string chdir;                 // working directory in the sandbox; empty: not visible
  NetworkPlan network;
  // No allow_unix_sockets entry: the command may not create Unix sockets (socket_filter.hpp).
  // Launch installs the filter: through pmg-netbridge when the network is filtered, else bwrap.
  bool block_unix_sockets = true;
  // Directories launch creates on the host before the run, parents first: a writable
  // `DIR/**` rule whose DIR does not exist yet (node_modules). Removed after the run if empty.
  std::vector<std::string> create_before_run;
  // Empty files launch creates before the run: a writable literal path that does not exist yet
  // (package.json, package-lock.json in a new project), so that exactly that file can be written
  // and nothing else beside it. Removed after the run if still empty.
  std::vector<std::string> create_files_before_run;
  // Directories bwrap itself creates on the host as mount points: the placeholder that keeps a
  // missing deny target (or its first missing ancestor) from being created inside a writable
  // bind. Launch removes them after the run so the host is left as it was.
  std::vector<std::string> created_mount_points;
  // What was skipped and why ("does not exist", "macOS-only"); launch logs them at debug level.
  std::vector<std::string> notes;
  // Where the plan is coarser than the policy (a glob over the spec's 100-match threshold bound
  // or hidden as its whole base directory); launch logs them as warnings.
  std::vector<std::string> warnings;
};

// The plan for running under `policy` (unexpanded: variables are expanded here against `ctx`),
// reaching the filtering proxy at `proxy` when the policy allows outbound connections.
// Throws Error for a policy that cannot be expanded (bad variable, malformed glob).
MountPlan plan_mounts(const Policy& policy, const Context& ctx, const FsView& fs, const ProxyEndpoint& proxy = {});

// The bwrap options that carry out `plan`, without the program and without `--`.
std::vector<std::string> render_arguments(const MountPlan& plan);

}  // namespace pmg::bubblewrap
