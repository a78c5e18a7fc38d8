#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "support/unit_helpers.hpp"
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pmg/error.hpp"
#include "sandbox_exec.hpp"
#include "seatbelt_backend.hpp"
#include "seatbelt_test_support.hpp"

using namespace pmg::seatbelt;
namespace fs = std::filesystem;

namespace {

using pmg::test_support::TempDir;
using pmg::test_support::read_file;
using pmg::seatbelt::test::write_fake_sandbox_exec;

}  // namespace

TEST_CASE("Seatbelt is available only on macOS with sandbox-exec", "[seatbelt][launch]") {
  const pmg::Availability linux_like = seatbelt_availability(false, "/bin/sh");
  CHECK_FALSE(linux_like.available);
  CHECK(linux_like.reason == "Seatbelt runs only on macOS");
  CHECK(linux_like.fix == "use the bubblewrap backend on Linux");

  const pmg::Availability missing = seatbelt_availability(true, "/nonexistent/sandbox-exec");
  CHECK_FALSE(missing.available);
  CHECK_THAT(missing.reason, Catch::Contains("/nonexistent/sandbox-exec"));
  CHECK_FALSE(missing.fix.empty());

  CHECK(seatbelt_availability(true, "/bin/sh").available);
}

TEST_CASE("probe() on this platform", "[seatbelt][launch]") {
  const pmg::Availability a = SeatbeltBackend{}.probe();
  if (running_on_macos) {
    CHECK(a.available == (::access(sandbox_exec_path, X_OK) == 0));
  } else {
    CHECK_FALSE(a.available);
    CHECK(a.reason == "Seatbelt runs only on macOS");
  }
}

TEST_CASE("launch refuses to run anything where Seatbelt is unavailable", "[seatbelt][launch]") {
  if (running_on_macos) return;  // covered by the availability test above
  TempDir dir;
  const fs::path marker = dir.path() / "ran";
  pmg::LaunchRequest request;
  request.policy = test::base_policy();
  request.context = test::mac_context();
  request.command = {"/bin/sh", "-c", "touch " + marker.string()};
  CHECK_THROWS_WITH(SeatbeltBackend{}.launch(request),
                    Catch::Contains("Seatbelt runs only on macOS") && Catch::Contains("unsandboxed"));
  CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("the profile file is private, complete and removed after the run", "[seatbelt][launch]") {
  TempDir dir;
  const fs::path fake = write_fake_sandbox_exec(dir.path());
  const fs::path temp = dir.path() / "tmp";
  fs::create_directory(temp);
  const std::string profile = "(version 1)\n(deny default (with message \"PMG_SBX_X\"))\n";
  const int status = run_with_profile(fake.string(), profile, temp.string(), {"/bin/sh", "-c", "exit 7"},
                                      {"RECORD=" + dir.path().string(), "PATH=/usr/bin:/bin"});
  CHECK(status == 7);
  CHECK((fs::status(dir.path() / "profile").permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write));
  CHECK(read_file(dir.path() / "profile") == profile);
  const fs::path used = read_file(dir.path() / "path");
  CHECK(used.parent_path() == temp);
  CHECK(used.filename().string().starts_with("pmg-seatbelt-"));
  CHECK_FALSE(fs::exists(used));
  CHECK(fs::is_empty(temp));
}

TEST_CASE("the command's arguments and environment pass through unchanged", "[seatbelt][launch]") {
  TempDir dir;
  const fs::path fake = write_fake_sandbox_exec(dir.path());
  const fs::path out = dir.path() / "out";
  const int status = run_with_profile(
      fake.string(), "(version 1)", dir.path().string(),
      {"/bin/sh", "-c", "printf '%s|%s|%s' \"$1\" \"$2\" \"$GREETING\" > \"$0\"", out.string(), "two words", "$HOME"},
      {"RECORD=" + dir.path().string(), "GREETING=hi there", "PATH=/usr/bin:/bin"});
  CHECK(status == 0);
  CHECK(read_file(out) == "two words|$HOME|hi there");
}

TEST_CASE("the profile file is removed when sandbox-exec cannot be started", "[seatbelt][launch]") {
  TempDir dir;
  CHECK_THROWS_AS(run_with_profile((dir.path() / "missing-sandbox-exec").string(), "(version 1)", dir.path().string(),
                                   {"/bin/true"}, {}),
                  pmg::Error);
  CHECK(dir.entries().empty());
}

TEST_CASE("a profile file cannot be created in a missing directory", "[seatbelt][launch]") {
  CHECK_THROWS_WITH(ProfileFile("/nonexistent-pmg-dir", "x"),
                    Catch::Contains("/nonexistent-pmg-dir") && Catch::Contains("TMPDIR"));
}

TEST_CASE("random log tags are fresh letters and digits", "[seatbelt][launch]") {
  const std::string a = random_log_tag(), b = random_log_tag();
  CHECK(a.size() == 16);
  CHECK(a != b);
  CHECK(log_message(a) == "PMG_SBX_" + a);  // accepted by the translation's tag check
}
