// The cargo adapter example (examples/pm-cargo): which commands pmg sandboxes and which packages
// they name. Built here against the in-tree core; tests/sdk/out_of_tree.sh builds the same
// source against an installed pmg.
#include <catch2/catch.hpp>

#include "cargo_adapter.hpp"

namespace {

using pmg::CommandKind;

CommandKind kind(std::vector<std::string> args) { return pm_cargo::CargoAdapter{}.classify("cargo", args); }
std::vector<std::string> packages(std::vector<std::string> args) {
  return pm_cargo::CargoAdapter{}.packages("cargo", args);
}

}  // namespace

TEST_CASE("cargo: commands that compile the project run package code", "[sdk][cargo]") {
  for (const char* command : {"build", "b", "check", "c", "test", "t", "bench", "run", "r", "doc", "rustc",
                              "rustdoc", "fix", "clippy", "package", "publish"})
    CHECK(kind({command}) == CommandKind::execute);
  CHECK(kind({"build", "--release", "-p", "app"}) == CommandKind::execute);
}

TEST_CASE("cargo: metadata and tree run the rustc wrapper a project may configure", "[sdk][cargo]") {
  CHECK(kind({"metadata", "--format-version", "1"}) == CommandKind::execute);
  CHECK(kind({"tree"}) == CommandKind::execute);
}

TEST_CASE("cargo: commands that download crates are installs", "[sdk][cargo]") {
  for (const char* command : {"install", "uninstall", "add", "remove", "rm", "update", "fetch", "generate-lockfile",
                              "vendor", "pkgid"})
    CHECK(kind({command}) == CommandKind::install);
}

TEST_CASE("cargo: only commands that run no package code escape the sandbox", "[sdk][cargo]") {
  CHECK(kind({}) == CommandKind::other);
  CHECK(kind({"--version"}) == CommandKind::other);
  CHECK(kind({"-V"}) == CommandKind::other);
  CHECK(kind({"-vV"}) == CommandKind::other);
  CHECK(kind({"--list"}) == CommandKind::other);
  CHECK(kind({"--color=never", "--version"}) == CommandKind::other);
  CHECK(kind({"help", "build"}) == CommandKind::other);
  CHECK(kind({"version"}) == CommandKind::other);
  CHECK(kind({"search", "serde"}) == CommandKind::other);
  CHECK(kind({"locate-project"}) == CommandKind::other);
  CHECK(kind({"new", "hello"}) == CommandKind::other);
  CHECK(kind({"build", "--help"}) == CommandKind::other);
  CHECK(kind({"install", "-h"}) == CommandKind::other);
}

TEST_CASE("cargo: help after -- and help of an external command are not trusted", "[sdk][cargo]") {
  CHECK(kind({"run", "--", "--help"}) == CommandKind::execute);
  CHECK(kind({"test", "--", "-h"}) == CommandKind::execute);
  CHECK(kind({"expand", "--help"}) == CommandKind::execute);  // runs the program cargo-expand
  CHECK(kind({"--explain", "E0308"}) == CommandKind::execute);  // runs rustc
  CHECK(kind({"--config", "build.rustc-wrapper='x'", "--version"}) == CommandKind::execute);
}

TEST_CASE("cargo: options before the command and their values are skipped", "[sdk][cargo]") {
  CHECK(kind({"+nightly", "build"}) == CommandKind::execute);
  CHECK(kind({"+nightly", "--version"}) == CommandKind::other);
  CHECK(kind({"--color", "never", "fetch"}) == CommandKind::install);
  CHECK(kind({"-C", "sub", "search", "x"}) == CommandKind::other);
  CHECK(kind({"-Z", "unstable-options", "-v", "add", "x"}) == CommandKind::install);
  CHECK(kind({"--color", "search"}) == CommandKind::execute);  // "search" is --color's value; no command
}

TEST_CASE("cargo: the crates a command names, for the event log", "[sdk][cargo]") {
  using V = std::vector<std::string>;
  CHECK(packages({"add", "serde@1", "-F", "derive", "tokio", "--features=full"}) == V{"serde@1", "tokio"});
  CHECK(packages({"install", "ripgrep", "--version", "14.1.0", "--root", "/opt"}) == V{"ripgrep"});
  CHECK(packages({"install", "--git", "https://example.com/tool.git", "--branch", "main"}) ==
        V{"https://example.com/tool.git"});
  CHECK(packages({"install", "--git=https://example.com/tool.git"}) == V{"https://example.com/tool.git"});
  CHECK(packages({"update", "-p", "serde", "--precise", "1.0.200"}) == V{"serde"});
  CHECK(packages({"remove", "-p", "member", "serde"}) == V{"serde"});  // -p is the workspace member here
  CHECK(packages({"--color", "never", "add", "rand"}) == V{"rand"});
  CHECK(packages({"build", "--release"}).empty());
  CHECK(packages({"run", "--", "x"}).empty());
  CHECK(packages({"--version"}).empty());
}

TEST_CASE("cargo: one tool, its default profile and how to start it", "[sdk][cargo]") {
  const pm_cargo::CargoAdapter adapter;
  CHECK(adapter.names() == std::vector<std::string>{"cargo"});
  CHECK(adapter.default_profile("cargo") == "cargo-restrictive");
  CHECK(adapter.executables("cargo") == std::vector<std::vector<std::string>>{{"cargo"}});
}
