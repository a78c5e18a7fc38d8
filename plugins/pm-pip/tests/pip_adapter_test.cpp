#include <catch2/catch.hpp>

#include "pip_adapter.hpp"

using pmg::CommandKind;

TEST_CASE("pip adapter satisfies the PackageManager concept", "[pip]") {
  STATIC_REQUIRE(pmg::PackageManager<pmg::pip::PipAdapter>);
  pmg::pip::PipAdapter pip;
  CHECK(pip.names() == std::vector<std::string>{"pip", "pip3", "poetry", "uv"});
  CHECK(pip.default_profile("uv") == "pypi-restrictive");
  CHECK(pip.executables("pip").back() == std::vector<std::string>{"python3", "-m", "pip"});
}

TEST_CASE("pip adapter classifies commands; unknown ones are sandboxed", "[pip]") {
  struct Row {
    const char* tool;
    std::vector<std::string> args;
    CommandKind kind;
  };
  const std::vector<Row> rows = {
      {"pip", {"install", "requests"}, CommandKind::install},
      {"pip", {"--no-cache-dir", "install", "-r", "req.txt"}, CommandKind::install},
      {"pip3", {"wheel", "."}, CommandKind::install},
      {"pip", {"download", "x"}, CommandKind::install},
      {"pip", {"list"}, CommandKind::other},
      {"pip", {"--version"}, CommandKind::other},
      {"pip", {"frobnicate"}, CommandKind::install},
      {"poetry", {"install"}, CommandKind::install},
      {"poetry", {"run", "pytest"}, CommandKind::execute},
      {"poetry", {"show"}, CommandKind::other},
      {"uv", {"pip", "install", "x"}, CommandKind::install},
      {"uv", {"pip", "list"}, CommandKind::other},
      {"uv", {"add", "x"}, CommandKind::install},
      {"uv", {"run", "script.py"}, CommandKind::execute},
      {"uv", {"--version"}, CommandKind::other},
  };
  pmg::pip::PipAdapter pip;
  for (const auto& row : rows) {
    INFO(row.tool << " " << Catch::Detail::stringify(row.args));
    CHECK(pip.classify(row.tool, row.args) == row.kind);
  }
}

TEST_CASE("pip adapter extracts package specs and skips option values", "[pip]") {
  pmg::pip::PipAdapter pip;
  CHECK(pip.packages("pip", {"install", "--no-index", "-f", "./dist", "evil==1.0", "./local"}) ==
        std::vector<std::string>{"evil==1.0", "./local"});
  CHECK(pip.packages("uv", {"pip", "install", "x"}) == std::vector<std::string>{"x"});
  CHECK(pip.packages("pip", {"list"}).empty());
}
