// The SBPL of the four built-in profiles, against files reviewed by hand. Regenerate with
// PMG_UPDATE_GOLDEN=1 after an intended change, and review the diff.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pmg/profile_registry.hpp"
#include "seatbelt_test_support.hpp"

using namespace pmg::seatbelt::test;

namespace {

const std::filesystem::path golden_dir = std::filesystem::path(PMG_SOURCE_DIR) / "plugins/seatbelt/tests/golden";

// The first line where the texts differ, for a readable failure ("" when equal).
std::string first_difference(const std::string& actual, const std::string& expected) {
  std::istringstream a(actual), e(expected);
  std::string la, le;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, la));
    const bool more_e = static_cast<bool>(std::getline(e, le));
    if (!more_a && !more_e) return actual == expected ? "" : "(line endings differ)";
    if (!more_a || !more_e || la != le)
      return "line " + std::to_string(line) + "\n  generated: " + (more_a ? la : "<end>") +
             "\n  golden:    " + (more_e ? le : "<end>");
  }
}

bool updating() {
  const char* v = std::getenv("PMG_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

}  // namespace

TEST_CASE("golden SBPL of the built-in profiles", "[seatbelt][golden]") {
  const auto name = GENERATE(as<std::string>{}, "npm-restrictive", "npx", "pnpm-restrictive", "pypi-restrictive");
  INFO("profile " << name);
  const pmg::Policy policy = pmg::ProfileRegistry::builtin_only().resolve(name);
  const std::string text = translate(policy).text;
  CHECK_NOTHROW(read_sexprs(text));
  const std::filesystem::path file = golden_dir / (name + ".sb");
  if (updating()) {
    std::ofstream(file, std::ios::binary) << text;
    WARN("rewrote " << file.string());
    return;
  }
  std::ifstream in(file, std::ios::binary);
  REQUIRE(in);  // run once with PMG_UPDATE_GOLDEN=1 to create it
  std::stringstream expected;
  expected << in.rdbuf();
  // On a mismatch: PMG_UPDATE_GOLDEN=1 ctest -R golden, then `git diff` the golden files.
  CHECK(first_difference(text, expected.str()) == "");
}
