#pragma once
// The run-time facts a policy is expanded against. Built once by the host from the process;
// translation code reads only this value, never the environment.
#include <sys/types.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "pmg/error.hpp"

namespace pmg {

struct Context {
  std::string home;
  std::string cwd;
  std::string tmpdir;
  uid_t uid = 0;
  gid_t gid = 0;

  bool operator==(const Context&) const = default;

  static Context from_process() {
    Context c;
    const char* home = std::getenv("HOME");
    if (home == nullptr || home[0] != '/')
      throw Error("HOME is unset or not an absolute path; set HOME to your home directory");
    c.home = std::filesystem::path(home).lexically_normal().string();
    if (c.home.size() > 1 && c.home.back() == '/') c.home.pop_back();
    std::error_code ec;
    c.cwd = std::filesystem::current_path(ec).string();
    if (ec) throw Error("cannot read the current directory: " + ec.message());
    const char* tmp = std::getenv("TMPDIR");
    c.tmpdir = (tmp != nullptr && tmp[0] == '/') ? std::filesystem::path(tmp).lexically_normal().string()
                                                 : std::string("/tmp");
    if (c.tmpdir.size() > 1 && c.tmpdir.back() == '/') c.tmpdir.pop_back();
    c.uid = ::getuid();
    c.gid = ::getgid();
    return c;
  }
};

}  // namespace pmg
