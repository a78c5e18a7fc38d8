#pragma once
// The host end to end, shared by its test files: `pmg` installed into a staging prefix and one
// user's world (a fake HOME full of secrets, a project, a config dir) to run it in.
#include <catch2/catch.hpp>

#include <boost/property_tree/json_parser.hpp>
#include <fstream>
#include <sstream>

#include "support/sandbox_fixture.hpp"

namespace pmg::test_support {

// pmg installed into a staging prefix (bin/, lib/pmg/plugins/) that every user can reach.
struct StagedPmg {
  StagingDir dir{"host-e2e"};
  fs::path pmg;

  StagedPmg() {
    const fs::path build = PMG_BINARY_DIR;
    pmg = dir.add_executable(build / "bin/pmg");
    if (fs::exists(build / "bin/pmg-netbridge")) dir.add_executable(build / "bin/pmg-netbridge");
    const fs::path plugins = dir.path() / "lib/pmg/plugins";
    fs::create_directories(plugins);
    for (const char* p : {"lib", "lib/pmg", "lib/pmg/plugins"}) fs::permissions(dir.path() / p, fs::perms(0755));
    for (const char* name : {"libpmg-bubblewrap.so", "libpmg-pm-npm.so", "libpmg-pm-pip.so"})
      fs::copy_file(build / "lib/pmg/plugins" / name, plugins / name);
  }
};

// One user's world: a fake HOME full of secrets, a project, a config dir, and how to run pmg in it.
struct World {
  std::optional<TestUser> user;
  StagedPmg staged;
  FakeHome home;
  fs::path config;

  explicit World(std::optional<TestUser> u)
      : user(std::move(u)), home(FakeHome::create(staged.dir.path(), user)), config(home.home / ".config/pmg") {
    fs::create_directories(config);
    chown_tree(home.home / ".config", user);
  }

  std::vector<std::string> env(const std::string& path = "/usr/bin:/bin") const {
    return {"HOME=" + home.home.string(), "TMPDIR=" + home.tmp.string(), "PMG_CONFIG_DIR=" + config.string(),
            "PATH=" + path, "USER=" + (user ? user->name : std::string("root")), "npm_config_update_notifier=false",
            "npm_config_fund=false", "npm_config_audit=false"};
  }

  // Runs `args` in the project directory with this world's environment.
  RunResult run(std::vector<std::string> args, const std::vector<std::string>& extra_env = {},
                const std::string& path = "/usr/bin:/bin") const {
    std::vector<std::string> argv{"/usr/bin/env", "-C", home.project.string()};
    for (const auto& e : env(path)) argv.push_back(e);
    for (const auto& e : extra_env) argv.push_back(e);
    argv.insert(argv.end(), args.begin(), args.end());
    return run_captured(argv, user);
  }

  RunResult pmg(std::vector<std::string> args, const std::vector<std::string>& extra_env = {},
                const std::string& path = "/usr/bin:/bin") const {
    args.insert(args.begin(), staged.pmg.string());
    return run(args, extra_env, path);
  }

  std::vector<boost::property_tree::ptree> events() const {
    std::vector<boost::property_tree::ptree> out;
    std::ifstream in(config / "events.jsonl");
    for (std::string line; std::getline(in, line);) {
      std::istringstream s(line);
      boost::property_tree::ptree record;
      boost::property_tree::read_json(s, record);
      out.push_back(record);
    }
    return out;
  }

  void give(const fs::path& p) const { chown_tree(p, user); }
};

inline std::optional<TestUser> user_for(bool unprivileged) {
  return unprivileged ? std::optional<TestUser>(ensure_unprivileged_user()) : std::nullopt;
}

inline std::string read(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace pmg::test_support
