#pragma once
// Running the real, built `pmg` for the bad-input and concurrency tests: each Scenario is a fresh
// directory tree (home, project, config dir, a bin dir for fake tools) and every run is
// time-bounded with timeout(1), so a hang fails the test instead of stalling CI.
#include <fcntl.h>
#include <pwd.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

extern char** environ;

namespace pmg::e2e {

namespace fs = std::filesystem;

inline const fs::path& pmg_binary() {
  static const fs::path binary = fs::path(PMG_BINARY_DIR) / "bin" / "pmg";
  return binary;
}
inline fs::path test_plugin_dir(const std::string& name) { return fs::path(PMG_BINARY_DIR) / "test-plugins" / name; }
inline bool bubblewrap_plugin_built() {
  return fs::exists(fs::path(PMG_BINARY_DIR) / "lib" / "pmg" / "plugins" / "libpmg-bubblewrap.so");
}

// How long one pmg run may take before it counts as a hang.
inline constexpr int time_limit_seconds = 20;
// timeout(1)'s status when the limit was hit (124; 137 when it had to SIGKILL).
inline bool is_timeout_status(int status) { return status == 124 || status == 137; }

struct RunResult {
  int status = -1;  // exit status, or 128+signal
  std::string out;
  std::string err;
  bool timed_out() const { return is_timeout_status(status); }
  // A sanitizer report counts as a crash even when the sanitizer exits with a small status.
  bool crashed() const {
    return (status >= 128 && !timed_out()) || err.find("Sanitizer") != std::string::npos ||
           err.find("runtime error:") != std::string::npos;
  }
};

inline std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_file(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

// Starts argv (PATH lookup) in `cwd` with exactly `env`, stdout/stderr to files, stdin from
// /dev/null.
inline pid_t spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env, const fs::path& cwd,
                   const fs::path& out_file, const fs::path& err_file) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + argv[0] + ": " + std::to_string(rc));
  return pid;
}

// The exit status of `pid` (128+signal when killed).
inline int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error("waitpid failed");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The unprivileged user the tests run as; created when missing (CI machines are fresh).
inline const std::string& unprivileged_user() {
  static const std::string name = [] {
    if (::getpwnam("pmgtest") == nullptr && std::system("useradd --create-home --shell /bin/sh pmgtest") != 0)
      throw std::runtime_error("cannot create the user pmgtest (useradd failed)");
    return std::string("pmgtest");
  }();
  return name;
}

struct RunOptions {
  std::vector<std::string> extra_env;      // NAME=VALUE, added to (or replacing) the defaults
  std::optional<std::string> as_user;      // run through runuser -u USER
  std::optional<fs::path> cwd;             // default: the project directory
  int time_limit = time_limit_seconds;     // 0: no timeout(1) wrapper (the pid is pmg's own)
};

// A started pmg; finish() waits for it.
struct Started {
  pid_t pid = 0;
  fs::path out, err;
};

// A profile under which the sentinel can run and write the project: inherits npm-restrictive and
// adds writing the project and running the fake tools in HOME/bin.
inline constexpr const char* runnable_profile = R"(name: e2e-test
inherits: npm-restrictive
package_managers: [npm]
filesystem:
  allow_read:
    - ${HOME}/bin/**
  allow_write:
    - ${CWD}
process:
  allow_exec:
    - ${HOME}/bin/**
    - /usr/bin/**
    - /bin/**
)";

class Scenario {
 public:
  Scenario() {
    std::string templ = (fs::temp_directory_path() / "pmg-e2e.XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root = templ;
    // Readable and searchable for the unprivileged user: a scenario may run pmg as pmgtest.
    fs::permissions(root, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
    home = root / "home";
    project = home / "project";
    config = root / "config";
    bin = home / "bin";  // under HOME, so a test profile can allow running the fake tools there
    logs = root / "logs";
    runtime = root / "run";
    marker = project / "SENTINEL-RAN";
    for (const auto& dir : {home, project, config, bin, logs, runtime}) fs::create_directories(dir);
    fs::permissions(runtime, fs::perms::owner_all);
    // A fake npm that only leaves the sentinel: if it ever runs, the test sees it.
    write_file(bin / "npm", "#!/bin/sh\ntouch '" + marker.string() + "'\n");
    fs::permissions(bin / "npm", fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                     fs::perms::others_read | fs::perms::others_exec);
  }
  ~Scenario() {
    std::error_code ec;
    std::system(("chmod -R u+rwX '" + root.string() + "' 2>/dev/null").c_str());
    fs::remove_all(root, ec);
  }
  Scenario(const Scenario&) = delete;
  Scenario& operator=(const Scenario&) = delete;

  // Gives the whole tree to `user` (for runs as that user).
  void chown_to(const std::string& user) const {
    std::system(("chown -R '" + user + ":' '" + root.string() + "'").c_str());
  }

  // The command a test asks pmg to run: it creates the sentinel file and nothing else.
  std::vector<std::string> sentinel_command() const { return {"/bin/sh", "-c", "touch '" + marker.string() + "'"}; }
  bool sentinel_ran() const { return fs::exists(marker); }

  std::vector<std::string> environment(const RunOptions& options) const {
    std::vector<std::string> env{
        "PATH=" + bin.string() + ":/usr/local/bin:/usr/bin:/bin",
        "HOME=" + home.string(),
        "PMG_CONFIG_DIR=" + config.string(),
        "TMPDIR=/tmp",
        "LANG=C",
        // The scenario's own journal of host changes: runs of parallel tests must not count as
        // runs in progress here (the last run of a scenario undoes its changes).
        "XDG_RUNTIME_DIR=" + runtime.string(),
    };
    // Sanitizer builds: keep their settings (e.g. the suppressions for plugin unloading).
    for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"})
      if (const char* value = std::getenv(name)) env.push_back(std::string(name) + "=" + value);
    for (const std::string& extra : options.extra_env) {
      const std::string name = extra.substr(0, extra.find('='));
      std::erase_if(env, [&](const std::string& e) { return e.starts_with(name + "="); });
      env.push_back(extra);
    }
    return env;
  }

  // Starts pmg with `args`; see RunOptions.
  Started start(const std::vector<std::string>& args, const RunOptions& options = {}) {
    const std::vector<std::string> env = environment(options);
    std::vector<std::string> argv;
    if (options.as_user) {
      // runuser resets HOME and friends; env(1) puts the scenario's environment back.
      argv = {"runuser", "-u", *options.as_user, "--", "env", "-i"};
      argv.insert(argv.end(), env.begin(), env.end());
    }
    if (options.time_limit > 0)
      for (const std::string& a : {std::string("timeout"), std::string("-k"), std::string("5"),
                                   std::to_string(options.time_limit)})
        argv.push_back(a);
    argv.push_back(pmg_binary().string());
    argv.insert(argv.end(), args.begin(), args.end());
    const int n = ++runs_;
    Started started{0, logs / ("run" + std::to_string(n) + ".out"), logs / ("run" + std::to_string(n) + ".err")};
    started.pid = spawn(argv, env, options.cwd.value_or(project), started.out, started.err);
    return started;
  }

  static RunResult finish(const Started& started) {
    RunResult result;
    result.status = wait_for(started.pid);
    result.out = read_file(started.out);
    result.err = read_file(started.err);
    return result;
  }

  RunResult pmg(const std::vector<std::string>& args, const RunOptions& options = {}) {
    return finish(start(args, options));
  }

  void add_runnable_profile() const { write_file(config / "profiles" / "e2e-test.yml", runnable_profile); }

  fs::path root, home, project, config, bin, logs, runtime, marker;

 private:
  int runs_ = 0;
};

}  // namespace pmg::e2e
