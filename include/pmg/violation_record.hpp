#pragma once
// Violations in the event log: one "violation" record per denied operation, written by whatever
// observed it (the host's stderr capture for bubblewrap; a backend or the network proxy may write
// the same record), and read back by `pmg sandbox violations` and `pmg sandbox explain`. The record
// carries enough of the run to print the exact command that re-runs it with the fix.
#include <unistd.h>

#include <boost/property_tree/json_parser.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "pmg/denial_explainer.hpp"
#include "pmg/error.hpp"
#include "pmg/event_log.hpp"
#include "pmg/shell_quote.hpp"

namespace pmg {

// The run a violation happened in.
struct RunDescription {
  std::string id;              // shared by the violations of one run
  std::string observed_by;     // "stderr" (heuristic, bubblewrap), "system-log" (seatbelt), "proxy"
  std::string profile;         // as selected: a name or a path
  std::string profile_source;  // builtin:NAME or the file
  std::string backend;
  bool exec = false;              // `pmg sandbox exec`; false: a package manager run
  std::string tool;               // the package manager (also `sandbox exec --pm`); may be empty for exec
  std::vector<std::string> args;  // the package manager's arguments, or the command for exec
  std::vector<std::string> overrides;  // the run's --sandbox-allow values
  std::string cwd;

  bool operator==(const RunDescription&) const = default;
};

struct ViolationRecord {
  std::string time;
  RunDescription run;
  Violation violation;

  bool operator==(const ViolationRecord&) const = default;
};

// A run id unique on this machine: start time and process id.
inline std::string new_run_id() {
  const auto now = std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now());
  return fmt::format("{:%Y%m%dT%H%M%S}-{}", now, ::getpid());
}

inline EventRecord make_violation_event(const RunDescription& run, const Violation& v) {
  EventRecord e = make_event("violation");
  e.put("run_id", run.id);
  e.put("observed_by", run.observed_by);
  e.put("profile", run.profile);
  e.put("profile_source", run.profile_source);
  e.put("backend", run.backend);
  e.put("exec", run.exec);
  e.put("pm", run.tool);
  put_list(e, "args", run.args);
  put_list(e, "overrides", run.overrides);
  e.put("cwd", run.cwd);
  e.put("operation", std::string(to_string(v.operation)));
  e.put("target", v.target);
  e.put("rule", std::string(to_string(v.rule)));
  e.put("rule_entry", v.rule_entry);
  e.put("why", v.why);
  e.put("allow", v.allow);
  e.put("note", v.note);
  e.put("error", v.error);
  e.put("evidence", v.evidence);
  return e;
}

namespace detail {

inline std::vector<std::string> get_list(const EventRecord& e, const std::string& key) {
  std::vector<std::string> out;
  if (const auto list = e.get_child_optional(key))
    for (const auto& item : *list) out.push_back(item.second.get_value<std::string>());
  return out;
}

}  // namespace detail

// The violation a record describes; nullopt for other records and for records too damaged to use.
inline std::optional<ViolationRecord> violation_from_event(const EventRecord& e) {
  if (e.get<std::string>("type", "") != "violation") return std::nullopt;
  const auto operation = operation_from_string(e.get<std::string>("operation", ""));
  const auto rule = rule_kind_from_string(e.get<std::string>("rule", ""));
  if (!operation || !rule || e.get<std::string>("target", "").empty()) return std::nullopt;
  ViolationRecord r;
  r.time = e.get<std::string>("time", "");
  r.run = {e.get<std::string>("run_id", ""),       e.get<std::string>("observed_by", ""),
           e.get<std::string>("profile", ""),      e.get<std::string>("profile_source", ""),
           e.get<std::string>("backend", ""),      e.get<bool>("exec", false),
           e.get<std::string>("pm", ""),           detail::get_list(e, "args"),
           detail::get_list(e, "overrides"),       e.get<std::string>("cwd", "")};
  r.violation = {*operation,
                 e.get<std::string>("target"),
                 *rule,
                 e.get<std::string>("rule_entry", ""),
                 e.get<std::string>("why", ""),
                 e.get<std::string>("allow", ""),
                 e.get<std::string>("note", ""),
                 e.get<std::string>("error", ""),
                 e.get<std::string>("evidence", "")};
  return r;
}

// Every violation in the event log `file`, oldest first. A log that does not exist yet has none;
// lines that are not JSON (a log edited by hand) are skipped.
inline std::vector<ViolationRecord> read_violations(const std::filesystem::path& file) {
  std::vector<ViolationRecord> out;
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return out;
  std::ifstream in(file);
  if (!in) throw Error("cannot read the event log " + file.string() + ": " + std::strerror(errno));
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("\"violation\"") == std::string::npos) continue;  // cheap: most lines are runs
    EventRecord e;
    try {
      std::istringstream text(line);
      boost::property_tree::read_json(text, e);
    } catch (const boost::property_tree::json_parser_error&) {
      continue;
    }
    if (auto r = violation_from_event(e)) out.push_back(std::move(*r));
  }
  return out;
}

// The command that repeats `run` with `allow` added to its --sandbox-allow flags, ready to paste.
inline std::string rerun_command(const RunDescription& run, const std::string& allow) {
  std::vector<std::string> words{"pmg"};
  if (run.exec) words.insert(words.end(), {"sandbox", "exec"});
  if (!run.profile.empty()) words.push_back("--sandbox-profile=" + run.profile);
  for (const std::string& o : run.overrides) words.insert(words.end(), {"--sandbox-allow", o});
  words.insert(words.end(), {"--sandbox-allow", allow});
  if (run.exec) {
    if (!run.tool.empty()) words.push_back("--pm=" + run.tool);
    words.push_back("--");
  } else {
    words.push_back(run.tool);
  }
  words.insert(words.end(), run.args.begin(), run.args.end());
  return shell_join(words);
}

}  // namespace pmg
