// The host's `pmg sandbox translate --backend=seatbelt` loads this plugin and prints its profile,
// on Linux too (issue: the profile must be inspectable where Seatbelt cannot run).
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <string>

#include "seatbelt_test_support.hpp"

using namespace pmg::seatbelt::test;

TEST_CASE("pmg sandbox translate --backend=seatbelt prints the profile", "[seatbelt][cli]") {
  const std::filesystem::path pmg = std::filesystem::path(PMG_BINARY_DIR) / "bin/pmg";
  REQUIRE(std::filesystem::exists(pmg));
  std::string config = (std::filesystem::temp_directory_path() / "pmg-seatbelt-cli-XXXXXX").string();
  REQUIRE(::mkdtemp(config.data()) != nullptr);
  const std::string command = "PMG_CONFIG_DIR='" + config + "' '" + pmg.string() +
                              "' sandbox translate --backend=seatbelt --sandbox-profile=npm-restrictive 2>/dev/null";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string output;
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = ::pclose(pipe);
  std::filesystem::remove_all(config);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(output.starts_with("(version 1)\n(deny default (with message \"PMG_SBX_TRANSLATE\"))\n"));
  std::vector<Node> forms;
  REQUIRE_NOTHROW(forms = read_sexprs(output));
  const auto rules = rules_of(forms);
  CHECK(rules.size() > 50);
  CHECK(rules.back().action == "deny");
}
