#pragma once
// pmg sandbox violations | explain: the denials recorded in the event log (violation_record.hpp)
// and, for the latest ones, the rule and the flag that allows each. Printing only.
#include <boost/property_tree/json_parser.hpp>
#include <charconv>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "command_line.hpp"
#include "pmg/policy_ptree.hpp"
#include "pmg/sandbox_setup.hpp"
#include "pmg/violation_record.hpp"

namespace pmg::host {

inline constexpr const char* violations_help = R"(usage: pmg sandbox violations [--last N] [--json]

Lists the operations the sandbox refused, oldest first (the latest 20 unless --last N), from the
event log. With bubblewrap they are read from the sandboxed command's error messages (EACCES,
EROFS, EPERM, ENOENT on a path; failed name resolution or connections): what a program does not
report is not seen. `pmg sandbox explain` tells why each was refused and how to allow it.
)";

inline constexpr const char* explain_help = R"(usage: pmg sandbox explain [--last]

Explains the denials of the most recent sandboxed run that had any (--last: only the latest
denial): the operation, the rule of the profile that refused it, why that rule exists, and the
exact --sandbox-allow flag that allows it, or why no flag can (mandatory denies). Exit status 1
when nothing has been recorded.
)";

namespace detail {

inline std::size_t parse_count(const std::string& text) {
  std::size_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n == 0)
    throw UsageError("--last needs a positive number, e.g. --last 5, not \"" + text + "\"");
  return n;
}

inline std::string run_label(const RunDescription& run) {
  std::string label = run.exec ? "pmg sandbox exec -- " + shell_join(run.args)
                               : "pmg " + shell_join([&] {
                                   std::vector<std::string> words{run.tool};
                                   words.insert(words.end(), run.args.begin(), run.args.end());
                                   return words;
                                 }());
  return label + " (profile " + run.profile + ", " + run.backend + ")";
}

inline boost::property_tree::ptree violation_json(const ViolationRecord& r) {
  boost::property_tree::ptree p;
  p.put("time", r.time);
  p.put("run_id", r.run.id);
  p.put("observed_by", r.run.observed_by);
  p.put("profile", r.run.profile);
  p.put("backend", r.run.backend);
  p.put("pm", r.run.tool);
  p.put("exec", r.run.exec);
  if (!r.run.args.empty()) p.add_child("args", string_array(r.run.args));
  p.put("cwd", r.run.cwd);
  p.put("operation", std::string(to_string(r.violation.operation)));
  p.put("target", r.violation.target);
  p.put("rule", std::string(to_string(r.violation.rule)));
  p.put("rule_entry", r.violation.rule_entry);
  p.put("why", r.violation.why);
  p.put("allow", r.violation.allow);
  p.put("allow_flag", r.violation.allow_flag());
  p.put("note", r.violation.note);
  p.put("error", r.violation.error);
  p.put("evidence", r.violation.evidence);
  return p;
}

}  // namespace detail

inline int sandbox_violations(ArgCursor& args) {
  std::size_t last = 20;
  bool json = false;
  while (!args.done()) {
    if (args.flag("--help") || args.flag("-h")) return fmt::print("{}", violations_help), 0;
    if (args.flag("--json")) {
      json = true;
    } else if (auto n = args.value("--last")) {
      last = detail::parse_count(*n);
    } else {
      if (args.at_option()) args.unknown_option();
      throw UsageError("unexpected argument '" + args.peek() + "' for pmg sandbox violations");
    }
  }
  const SandboxSetup setup = SandboxSetup::from_process();
  const std::vector<ViolationRecord> all = read_violations(setup.events.file());
  const std::size_t skip = all.size() > last ? all.size() - last : 0;
  if (json) {
    boost::property_tree::ptree tree, list;
    for (std::size_t i = skip; i < all.size(); ++i) list.push_back({"", detail::violation_json(all[i])});
    tree.put("event_log", setup.events.file().string());
    tree.put("total", all.size());
    tree.add_child("violations", list);
    boost::property_tree::write_json(std::cout, tree, true);
    return 0;
  }
  if (all.empty()) {
    fmt::print("no violations recorded in {}\n", setup.events.file().string());
    return 0;
  }
  for (std::size_t i = skip; i < all.size(); ++i) {
    const ViolationRecord& r = all[i];
    fmt::print("{}  {} {}  [{}]  {}\n", r.time, to_string(r.violation.operation), r.violation.target,
               to_string(r.violation.rule), detail::run_label(r.run));
    fmt::print("    {}\n", r.violation.allow.empty() ? "cannot be allowed with --sandbox-allow"
                                                     : "allow with " + r.violation.allow_flag());
  }
  if (skip > 0) fmt::print("({} older violations not shown; --last N shows more)\n", skip);
  fmt::print("`pmg sandbox explain` explains the latest run's; event log: {}\n", setup.events.file().string());
  return 0;
}

inline void print_explanation(const ViolationRecord& r) {
  const Violation& v = r.violation;
  fmt::print("denied: {} {}\n", to_string(v.operation), v.target);
  fmt::print("  seen:  {}{}\n", v.evidence.empty() ? "(no message)" : v.evidence,
             r.run.observed_by == "stderr" ? "  (the command's error output)" : "");
  fmt::print("  rule:  {}{}\n", to_string(v.rule), v.rule_entry.empty() ? "" : " \"" + v.rule_entry + "\"");
  fmt::print("  why:   {}\n", v.why);
  if (v.rule == RuleKind::network && r.run.backend == "bubblewrap")
    fmt::print("         (bubblewrap cannot filter by host: any allowed host gives the sandbox the whole network)\n");
  if (v.allow.empty()) {
    fmt::print("  allow: {}\n", v.note);
    return;
  }
  fmt::print("  allow: {}\n", v.allow_flag());
  if (!v.note.empty()) fmt::print("         {}\n", v.note);
  fmt::print("  run:   {}\n", rerun_command(r.run, v.allow));
}

inline int sandbox_explain(ArgCursor& args) {
  bool only_last = false;
  while (!args.done()) {
    if (args.flag("--help") || args.flag("-h")) return fmt::print("{}", explain_help), 0;
    if (args.flag("--last")) {
      only_last = true;
      continue;
    }
    if (args.at_option()) args.unknown_option();
    throw UsageError("unexpected argument '" + args.peek() + "' for pmg sandbox explain");
  }
  const SandboxSetup setup = SandboxSetup::from_process();
  const std::vector<ViolationRecord> all = read_violations(setup.events.file());
  if (all.empty()) {
    fmt::print("nothing to explain: no violations recorded in {}\n", setup.events.file().string());
    return 1;
  }
  const ViolationRecord& latest = all.back();
  std::vector<const ViolationRecord*> shown;
  for (const ViolationRecord& r : all)
    if (only_last ? &r == &latest : r.run.id == latest.run.id) shown.push_back(&r);
  fmt::print("{} at {}{}:\n", detail::run_label(latest.run), latest.time,
             shown.size() > 1 ? fmt::format(", {} denials", shown.size()) : std::string());
  for (const ViolationRecord* r : shown) {
    fmt::print("\n");
    print_explanation(*r);
  }
  if (latest.run.observed_by == "stderr")
    fmt::print("\nbubblewrap reports no denials itself: these were read from the command's error messages, "
               "so a denial the command did not report is not listed.\n");
  return 0;
}

}  // namespace pmg::host
