#pragma once
// Helpers the unit tests share. Each test executable is a unity build (cmake/PmgTesting.cmake),
// so two files of one executable cannot each keep their own copy: they live here, once.
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/context.hpp"

namespace pmg::test_support {

// A fresh directory under /tmp (short, for Unix socket paths of at most 107 bytes; its canonical
// path, so tests can compare against realpath), mode 0755 so an unprivileged test user can use
// what the test puts there; removed with its contents at scope end.
class TempDir {
 public:
  explicit TempDir(const std::string& label = "test") {
    std::string pattern = "/tmp/pmg-" + label + "-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = std::filesystem::canonical(pattern);
    std::filesystem::permissions(path_, std::filesystem::perms(0755));
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string operator/(std::string_view relative) const { return (path_ / relative).string(); }
  std::vector<std::filesystem::path> entries() const {
    std::vector<std::filesystem::path> out;
    for (const auto& e : std::filesystem::directory_iterator(path_)) out.push_back(e.path());
    return out;
  }

 private:
  std::filesystem::path path_;
};

// The whole file; empty when it cannot be read.
inline std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// The context of the core's unit tests: HOME /home/u, CWD /home/u/proj inside it, TMPDIR /tmp.
inline Context home_project_context() {
  Context c;
  c.home = "/home/u";
  c.cwd = "/home/u/proj";
  c.tmpdir = "/tmp";
  return c;
}

// The context of the operator tools' tests: HOME /home/u, the project /work/proj outside it.
inline Context work_project_context() { return Context{"/home/u", "/work/proj", "/tmp", 1000, 1000}; }

// The profile fixtures: a config dir with user profiles and templates.
inline const std::string fixture_config_dir = std::string(PMG_SOURCE_DIR) + "/tests/fixtures/configs/full";
inline const std::string fixture_profile_dir = fixture_config_dir + "/profiles";

}  // namespace pmg::test_support
