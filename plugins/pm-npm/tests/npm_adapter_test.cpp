#include <catch2/catch.hpp>

#include "npm_adapter.hpp"

using pmg::CommandKind;

TEST_CASE("npm adapter satisfies the PackageManager concept and names its tools", "[npm]") {
  STATIC_REQUIRE(pmg::PackageManager<pmg::npm::NpmAdapter>);
  pmg::npm::NpmAdapter npm;
  CHECK(npm.names() == std::vector<std::string>{"npm", "pnpm", "yarn", "bun", "npx", "pnpx"});
  CHECK(npm.default_profile("npm") == "npm-restrictive");
  CHECK(npm.default_profile("npx") == "npx");
  CHECK(npm.default_profile("pnpm") == "pnpm-restrictive");
}

TEST_CASE("npm adapter classifies commands; unknown ones count as running code", "[npm]") {
  struct Row {
    const char* tool;
    std::vector<std::string> args;
    CommandKind kind;
  };
  const std::vector<Row> rows = {
      {"npm", {"install", "is-number"}, CommandKind::install},
      {"npm", {"i"}, CommandKind::install},
      {"npm", {"--loglevel=silent", "ci"}, CommandKind::install},
      {"npm", {"uninstall", "x"}, CommandKind::install},
      {"npm", {"run", "build"}, CommandKind::execute},
      {"npm", {"exec", "cowsay"}, CommandKind::execute},
      {"npm", {"init", "vite"}, CommandKind::execute},
      {"npm", {"frobnicate"}, CommandKind::execute},
      {"npm", {"ls"}, CommandKind::other},
      {"npm", {"--version"}, CommandKind::other},
      {"npm", {}, CommandKind::other},
      {"pnpm", {}, CommandKind::install},
      {"pnpm", {"add", "x"}, CommandKind::install},
      {"pnpm", {"dlx", "x"}, CommandKind::execute},
      {"pnpm", {"list"}, CommandKind::other},
      {"yarn", {}, CommandKind::install},
      {"yarn", {"add", "x"}, CommandKind::install},
      {"yarn", {"build"}, CommandKind::execute},
      {"yarn", {"why", "x"}, CommandKind::other},
      {"bun", {"add", "x"}, CommandKind::install},
      {"bun", {"index.ts"}, CommandKind::execute},
      {"npx", {"cowsay", "hi"}, CommandKind::execute},
      {"npx", {"--version"}, CommandKind::other},
      {"pnpx", {"create-vite"}, CommandKind::execute},
  };
  pmg::npm::NpmAdapter npm;
  for (const auto& row : rows) {
    INFO(row.tool << " " << Catch::Detail::stringify(row.args));
    CHECK(npm.classify(row.tool, row.args) == row.kind);
  }
}

TEST_CASE("npm adapter extracts the package specs for the event log", "[npm]") {
  pmg::npm::NpmAdapter npm;
  CHECK(npm.packages("npm", {"install", "--save-dev", "is-number@7.0.0", "./evil-1.0.0.tgz"}) ==
        std::vector<std::string>{"is-number@7.0.0", "./evil-1.0.0.tgz"});
  CHECK(npm.packages("npm", {"run", "build"}).empty());
  CHECK(npm.packages("npx", {"-y", "cowsay", "hello"}) == std::vector<std::string>{"cowsay"});
  CHECK(npm.packages("yarn", {"add", "left-pad"}) == std::vector<std::string>{"left-pad"});
}
