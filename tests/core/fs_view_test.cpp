#include <catch2/catch.hpp>

#include "support/unit_helpers.hpp"
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "pmg/fs_view.hpp"

namespace {

using pmg::test_support::TempDir;
using pmg::test_support::read_file;

std::vector<std::string> names(std::vector<pmg::DirEntry> entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.name);
  std::sort(out.begin(), out.end());
  return out;
}

pmg::FakeFs sample() {
  pmg::FakeFs fs;
  fs.add_file("/home/u/proj/package.json");
  fs.add_dir("/home/u/proj/node_modules");
  fs.add_symlink("/home/u/proj/link-rel", "node_modules");
  fs.add_symlink("/home/u/proj/link-abs", "/etc");
  fs.add_symlink("/home/u/proj/link-up", "../proj/./node_modules/");
  fs.add_symlink("/home/u/proj/chain", "link-rel");
  fs.add_dir("/etc/ssl");
  fs.add_symlink("/home/link-home", "/home/u");
  fs.add_symlink("/loop/a", "b");
  fs.add_symlink("/loop/b", "a");
  fs.add_symlink("/loop/self", "/loop/self/x");
  fs.add_symlink("/home/u/proj/dangling", "/nonexistent/target");
  return fs;
}

}  // namespace

TEST_CASE("FakeFs creates parents and reports types with lstat semantics", "[fs_view]") {
  const pmg::FakeFs fs = sample();
  CHECK(fs.type("/") == pmg::FileType::directory);
  CHECK(fs.type("/home") == pmg::FileType::directory);
  CHECK(fs.type("/home/u/proj/package.json") == pmg::FileType::regular);
  CHECK(fs.type("/home/u/proj/link-rel") == pmg::FileType::symlink);
  CHECK(fs.type("/home/u/proj/nope") == pmg::FileType::missing);
  CHECK(fs.read_link("/home/u/proj/link-abs") == std::optional<std::string>("/etc"));
  CHECK_FALSE(fs.read_link("/home/u/proj/package.json").has_value());
  CHECK(names(fs.list("/home/u/proj")) ==
        std::vector<std::string>{"chain", "dangling", "link-abs", "link-rel", "link-up", "node_modules",
                                 "package.json"});
  CHECK(fs.list("/home/u/proj/package.json").empty());
  CHECK(fs.list("/missing").empty());
  // list follows a symlinked directory, like opendir.
  CHECK(names(fs.list("/home/u/proj/link-abs")) == std::vector<std::string>{"ssl"});
}

TEST_CASE("FakeFs refuses a file below a file and a duplicate", "[fs_view]") {
  pmg::FakeFs fs;
  fs.add_file("/a/f");
  CHECK_THROWS_WITH(fs.add_file("/a/f/g"), Catch::Contains("not a directory"));
  CHECK_THROWS_WITH(fs.add_file("/a/f"), Catch::Contains("already exists"));
  CHECK_NOTHROW(fs.add_dir("/a"));
}

TEST_CASE("FsView::resolve follows symlinks in every component", "[fs_view]") {
  const pmg::FakeFs fs = sample();
  const auto [input, expected] = GENERATE(table<std::string, std::string>({
      {"/home/u/proj", "/home/u/proj"},
      {"/home/u/proj/link-rel", "/home/u/proj/node_modules"},
      {"/home/u/proj/link-rel/x/y", "/home/u/proj/node_modules/x/y"},
      {"/home/u/proj/link-abs/ssl", "/etc/ssl"},
      {"/home/u/proj/link-up", "/home/u/proj/node_modules"},
      {"/home/u/proj/chain", "/home/u/proj/node_modules"},
      {"/home/link-home/proj/link-abs", "/etc"},
      // ".." applies to the resolved directory, not to the name of the link
      {"/home/u/proj/link-abs/..", "/"},
      {"/home/link-home/..", "/home"},
      {"/home/u/proj/dangling", "/nonexistent/target"},
      {"/home/u/proj/dangling/x", "/nonexistent/target/x"},
      // missing tail kept, lexically normalised
      {"/home/u/new/./dir//f", "/home/u/new/dir/f"},
      {"/home/u/new/../proj/link-rel", "/home/u/proj/node_modules"},
      {"/", "/"},
      {"//home/./u/", "/home/u"},
  }));
  CAPTURE(input);
  CHECK(fs.resolve(input) == expected);
}

TEST_CASE("FsView::resolve throws on a symlink loop, naming the path", "[fs_view]") {
  const pmg::FakeFs fs = sample();
  CHECK_THROWS_WITH(fs.resolve("/loop/a"), Catch::Contains("/loop/a") && Catch::Contains("40"));
  CHECK_THROWS_WITH(fs.resolve("/loop/self/z"), Catch::Contains("symbolic links"));
}

TEST_CASE("FsView::resolve allows a chain of exactly 40 links", "[fs_view]") {
  pmg::FakeFs fs;
  fs.add_dir("/target");
  for (int i = 0; i < 40; ++i)
    fs.add_symlink("/l" + std::to_string(i), i == 39 ? "/target" : "/l" + std::to_string(i + 1));
  CHECK(fs.resolve("/l0") == "/target");
  fs.add_symlink("/l40", "/l0");
  CHECK_THROWS(fs.resolve("/l40"));
}

TEST_CASE("FsView::resolve rejects a relative path", "[fs_view]") {
  CHECK_THROWS_WITH(sample().resolve("home/u"), Catch::Contains("not an absolute path"));
}

TEST_CASE("RealFs reports types, link targets and directory entries", "[fs_view]") {
  TempDir t;
  std::filesystem::create_directories(t / "d/sub");
  std::ofstream(t / "d/f.txt") << "x";
  std::filesystem::create_symlink("sub", t / "d/ln");
  ::mkfifo((t / "d/fifo").c_str(), 0600);
  const pmg::RealFs fs;
  CHECK(fs.type(t / "d") == pmg::FileType::directory);
  CHECK(fs.type(t / "d/f.txt") == pmg::FileType::regular);
  CHECK(fs.type(t / "d/ln") == pmg::FileType::symlink);
  CHECK(fs.type(t / "d/fifo") == pmg::FileType::other);
  CHECK(fs.type(t / "d/none") == pmg::FileType::missing);
  CHECK(fs.type(t / "d/f.txt/below") == pmg::FileType::missing);
  CHECK(fs.read_link(t / "d/ln") == std::optional<std::string>("sub"));
  CHECK_FALSE(fs.read_link(t / "d/f.txt").has_value());
  auto entries = fs.list(t / "d");
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  CHECK(entries == std::vector<pmg::DirEntry>{{"f.txt", pmg::FileType::regular},
                                              {"fifo", pmg::FileType::other},
                                              {"ln", pmg::FileType::symlink},
                                              {"sub", pmg::FileType::directory}});
  CHECK(fs.list(t / "d/f.txt").empty());
  CHECK(fs.list(t / "d/none").empty());
  CHECK(names(fs.list(t / "d/ln")).empty());  // follows the link to the empty "sub"
}

TEST_CASE("RealFs read_link returns a target longer than its first buffer", "[fs_view]") {
  TempDir t;
  const std::string target = "/" + std::string(300, 'x') + "/" + std::string(200, 'y');
  std::filesystem::create_symlink(target, t / "long");
  CHECK(pmg::RealFs().read_link(t / "long") == std::optional<std::string>(target));
}

TEST_CASE("RealFs resolve agrees with realpath and keeps a missing tail", "[fs_view]") {
  TempDir t;
  std::filesystem::create_directories(t / "a/b");
  std::filesystem::create_symlink(t / "a", t / "abs");
  std::filesystem::create_symlink("a/b", t / "rel");
  std::filesystem::create_symlink("../../a", t / "a/b/up");
  std::filesystem::create_symlink("loop2", t / "loop1");
  std::filesystem::create_symlink("loop1", t / "loop2");
  const pmg::RealFs fs;
  for (const char* rel : {"abs/b", "rel", "rel/up/b/up", "a/b/up/../a/b"}) {
    CAPTURE(rel);
    char buffer[PATH_MAX];
    REQUIRE(::realpath((t / rel).c_str(), buffer) != nullptr);
    CHECK(fs.resolve(t / rel) == std::string(buffer));
  }
  CHECK(fs.resolve(t / "rel/missing/x") == t / "a/b/missing/x");
  CHECK_THROWS_WITH(fs.resolve(t / "loop1"), Catch::Contains("loop1"));
}
