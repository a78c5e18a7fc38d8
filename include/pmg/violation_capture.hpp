#pragma once
// The host's one call around a backend's launch: capture the command's stderr (stderr_capture.hpp),
// explain each denial it reports (denial_explainer.hpp) and append a "violation" record per denial
// to the event log (violation_record.hpp), then tell the user where to look.
//
//   const int status = launch_recording_violations(
//       [&] { return backend.backend->launch(request); }, policy, setup.context, run, setup.events);
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "pmg/access_risks.hpp"
#include "pmg/context.hpp"
#include "pmg/denial_explainer.hpp"
#include "pmg/event_log.hpp"
#include "pmg/fs_view.hpp"
#include "pmg/log.hpp"
#include "pmg/policy.hpp"
#include "pmg/stderr_capture.hpp"
#include "pmg/violation_record.hpp"

namespace pmg {

// Runs `launch` (the backend's launch of the sandboxed command) with its stderr captured and
// returns its status unchanged. `policy` is the policy the run enforced (resolved, overrides
// applied). `run` describes the run for the records; an empty id gets a fresh one. Recording
// problems are logged as warnings and never change the status: the command has already run.
inline int launch_recording_violations(const std::function<int()>& launch, const Policy& policy, const Context& ctx,
                                       RunDescription run, const EventLog& events) {
  std::vector<std::string> lines;
  int status = 0;
  {
    StderrCapture capture(may_report_denial);
    status = launch();
    lines = capture.finish();
  }
  if (lines.empty()) return status;
  try {
    if (run.id.empty()) run.id = new_run_id();
    if (run.observed_by.empty()) run.observed_by = "stderr";
    const RealFs fs;
    const char* path = std::getenv("PATH");
    const ExplainContext ec{ctx, fs, path_directories(path != nullptr ? path : "")};
    const std::vector<Violation> violations = violations_in_output(lines, policy, ec);
    for (const Violation& v : violations) events.append(make_violation_event(run, v));
    if (!violations.empty())
      log_warn("the sandbox refused {} operation{} (first: {} {}, {}); `pmg sandbox explain` shows why and how "
               "to allow {}",
               violations.size(), violations.size() == 1 ? "" : "s", to_string(violations[0].operation),
               violations[0].target, to_string(violations[0].rule), violations.size() == 1 ? "it" : "them");
  } catch (const std::exception& e) {
    log_warn("could not record the sandbox's denials in {}: {}", events.file().string(), e.what());
  }
  return status;
}

}  // namespace pmg
