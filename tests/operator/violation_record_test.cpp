// violation_record.hpp: violations survive the event log, other records and damaged lines are
// skipped, and the re-run command is one a shell reads back exactly.
#include <catch2/catch.hpp>

#include "operator_support.hpp"
#include "pmg/violation_record.hpp"

namespace {

pmg::RunDescription npm_run() {
  pmg::RunDescription run;
  run.id = "20240101T000000-42";
  run.observed_by = "stderr";
  run.profile = "npm-restrictive";
  run.profile_source = "builtin:npm-restrictive";
  run.backend = "bubblewrap";
  run.tool = "npm";
  run.args = {"install", "left pad"};
  run.overrides = {"read=/opt/x"};
  run.cwd = "/work/proj";
  return run;
}

pmg::Violation sample() {
  return {pmg::Operation::write, "/work/proj/out.txt", pmg::RuleKind::not_in_allow_write, "",
          "no filesystem.allow_write entry of profile npm-restrictive covers it", "write=/work/proj", "a note", "EROFS",
          "sh: 1: cannot create /work/proj/out.txt: Read-only file system"};
}

}  // namespace

TEST_CASE("violations are written to and read back from the event log", "[violations]") {
  operator_test::Layout layout;
  const pmg::EventLog log(layout.cfg() / "events.jsonl");
  CHECK(pmg::read_violations(log.file()).empty());  // no log yet
  pmg::EventRecord run = pmg::make_event("run");
  run.put("pm", "npm");
  log.append(run);
  log.append(pmg::make_violation_event(npm_run(), sample()));
  pmg::Violation mandatory = sample();
  mandatory.operation = pmg::Operation::read;
  mandatory.rule = pmg::RuleKind::mandatory;
  mandatory.rule_entry = "/work/proj/.env";
  mandatory.allow.clear();
  pmg::RunDescription exec_run = npm_run();
  exec_run.exec = true;
  exec_run.tool.clear();
  log.append(pmg::make_violation_event(exec_run, mandatory));
  std::ofstream(log.file(), std::ios::app) << "{not json \"violation\"\n";

  const auto records = pmg::read_violations(log.file());
  REQUIRE(records.size() == 2);
  CHECK(records[0].run == npm_run());
  CHECK(records[0].violation == sample());
  CHECK(records[1].run == exec_run);
  CHECK(records[1].violation == mandatory);
  CHECK(records[0].time.size() == 20);
}

TEST_CASE("the re-run command adds the flag where pmg reads it", "[violations]") {
  CHECK(pmg::rerun_command(npm_run(), "write=/work/my dir") ==
        "pmg --sandbox-profile=npm-restrictive --sandbox-allow read=/opt/x --sandbox-allow 'write=/work/my dir' npm "
        "install 'left pad'");
  pmg::RunDescription exec = npm_run();
  exec.exec = true;
  exec.tool.clear();
  exec.args = {"sh", "-c", "echo 'hi' > out"};
  CHECK(pmg::rerun_command(exec, "write=/work/proj") ==
        "pmg sandbox exec --sandbox-profile=npm-restrictive --sandbox-allow read=/opt/x --sandbox-allow "
        "write=/work/proj -- sh -c 'echo '\\''hi'\\'' > out'");
}
