#include <catch2/catch.hpp>

#include "pmg/path.hpp"

TEST_CASE("normalize_path collapses //, ., .. and a trailing /", "[path]") {
  const auto [input, expected] = GENERATE(table<std::string, std::string>({
      {"/a/b", "/a/b"},
      {"/a//b///c", "/a/b/c"},
      {"/a/./b/.", "/a/b"},
      {"/a/b/../c", "/a/c"},
      {"/a/b/", "/a/b"},
      {"/", "/"},
      {"//", "/"},
      {"/..", "/"},
      {"/../../a", "/a"},
      {"/a/../..", "/"},
      {"", ""},
      {".", "."},
      {"a/..", "."},
      {"a/b/../c/", "a/c"},
      {"../a", "../a"},
      {"a/../../b", "../b"},
      {"/a/**/../b", "/a/b"},
      {"/a/*.js", "/a/*.js"},
  }));
  CAPTURE(input);
  CHECK(pmg::normalize_path(input) == expected);
}

TEST_CASE("path_is_within compares whole components", "[path]") {
  const auto [path, dir, expected] = GENERATE(table<std::string, std::string, bool>({
      {"/a/b", "/a", true},
      {"/a", "/a", true},
      {"/a/", "/a", true},
      {"/a/b/c", "/a/b/", true},
      {"/ab", "/a", false},
      {"/a", "/a/b", false},
      {"/anything", "/", true},
      {"/", "/", true},
      {"/a/../b", "/a", false},
      {"/a/x/../b", "/a", true},
  }));
  CAPTURE(path, dir);
  CHECK(pmg::path_is_within(path, dir) == expected);
}

TEST_CASE("join_path appends a relative name and keeps an absolute one", "[path]") {
  CHECK(pmg::join_path("/a/b", "c") == "/a/b/c");
  CHECK(pmg::join_path("/a/b", "../c/./d/") == "/a/c/d");
  CHECK(pmg::join_path("/", "x") == "/x");
  CHECK(pmg::join_path("/a/b", "/etc//x") == "/etc/x");
}
