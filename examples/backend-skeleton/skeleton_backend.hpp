#pragma once
// =============================================================================================
//   TEACHING EXAMPLE. THIS BACKEND DOES NOT SANDBOX ANYTHING.
//   launch() runs the command with the user's full rights: no filesystem, network or process
//   rule of the policy is enforced. It exists to show the shape of a pmg backend. It declares
//   `enforces = false`, so pmg never picks it as a default backend; it runs only when selected
//   by name (PMG_SANDBOX_BACKEND=skeleton), and then with a warning on every run.
// =============================================================================================
//
// A backend is a plain class satisfying the pmg::Backend concept (pmg/plugin.hpp): a name, an
// availability probe, a pure translation (render) and a launch. skeleton_plugin.cpp exports it
// with PMG_EXPORT_BACKEND. Read this file top to bottom.
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "pmg/fs_view.hpp"
#include "pmg/glob.hpp"
#include "pmg/log.hpp"
#include "pmg/mandatory.hpp"
#include "pmg/plugin.hpp"
#include "pmg/process.hpp"
#include "pmg/variables.hpp"

namespace skeleton {

// guide:begin skeleton-plan
// Step 1, translation: a pure function of (policy, context, filesystem view) to the backend's
// native plan. A real backend builds bwrap arguments or an SBPL profile here; the skeleton
// writes one line per rule it would enforce. Everything it knows comes from its arguments, so
// tests can call it with a pmg::FakeFs and compare the result with an expected text.
inline std::string plan(const pmg::Policy& policy, const pmg::Context& context, const pmg::FsView& fs) {
  // ${HOME}, ${CWD} and ${TMPDIR} become the paths of this run.
  const pmg::Policy expanded = pmg::expand_policy(policy, context);
  std::string out;
  const auto rule = [&](std::string_view what, const std::string& path) {
    // The kernel checks the real path, so a rule about a symlink must name its target: a link
    // ~/project/cache -> ~/.ssh must not turn an allow on the link into an allow on ~/.ssh
    // unnoticed. Globs are matched against real paths by the backend later (pmg::expand_globs).
    out += fmt::format("{} {}\n", what, pmg::has_glob_chars(path) ? path : fs.resolve(path));
  };
  for (const auto& path : expanded.filesystem.allow_read) rule("allow-read", path);
  for (const auto& path : expanded.filesystem.allow_write) rule("allow-write", path);
  for (const auto& path : expanded.filesystem.deny_read) rule("deny-read", path);
  for (const auto& path : expanded.filesystem.deny_write) rule("deny-write", path);
  // The denies no policy can remove come last, after every user rule: deny wins.
  const pmg::MandatoryDenies mandatory = pmg::mandatory_denies(policy, context);
  for (const auto& path : mandatory.deny_read_write) rule("deny-read-write", path);
  for (const auto& path : mandatory.deny_write) rule("deny-write", path);
  for (const auto& host : expanded.network.allow_outbound) out += fmt::format("allow-connect {}\n", host);
  return out;
}
// guide:end skeleton-plan

// guide:begin skeleton-backend
struct SkeletonBackend {
  // The name users select the backend by (PMG_SANDBOX_BACKEND, sandbox.backend in config.yml).
  // It must be initialised from a string literal: the export macro hands it on as a C string.
  static constexpr std::string_view name = "skeleton";

  // This backend applies none of the policy. A real backend leaves this out (it defaults to
  // true); the host never uses a backend that does not enforce unless the user names it.
  static constexpr bool enforces = false;

  // Step 2, probe: can this backend run here? A real one looks for its tool and kernel support
  // (bwrap on PATH, user namespaces) and says why not and what fixes it; the host refuses to run
  // anything when the selected backend is unavailable, it never falls back to no sandbox.
  pmg::Availability probe() const { return {.available = true, .reason = {}, .fix = {}}; }

  // Step 3, render: the translation against the real filesystem, for `pmg sandbox translate`.
  std::string render(const pmg::Policy& policy, const pmg::Context& context) const {
    return plan(policy, context, pmg::RealFs());
  }

  // Step 4, launch: start request.command (argv[0] is absolute) with request.environment,
  // forward signals and return its exit status (128 + signal when killed). A real backend
  // starts the command inside its sandbox and removes what it set up (temporary files, mounts)
  // before returning. This one starts it with no sandbox at all.
  int launch(const pmg::LaunchRequest& request) const {
    pmg::log_warn("the skeleton backend does not sandbox: running {} UNSANDBOXED, policy '{}' is not enforced",
                  request.command.front(), request.policy.name);
    return pmg::run_process({request.command, request.environment, {}});
  }
};

static_assert(pmg::Backend<SkeletonBackend>);
// guide:end skeleton-backend

}  // namespace skeleton
