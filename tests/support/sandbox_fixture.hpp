#pragma once
// Reusable pieces for end-to-end tests that really run a sandbox: an unprivileged user to run as
// (created when missing), a staging directory that user can reach, a fake HOME and project full
// of real-looking secrets, running a command as that user with its output captured, and a
// snapshot of a tree to prove the host was left as it was.
//
// Every secret's content starts with `secret_marker`, so a test can assert that no output of a
// sandboxed attack contains it.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <grp.h>
#include <pwd.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace pmg::test_support {

namespace fs = std::filesystem;

inline constexpr const char* secret_marker = "SECRET-";

struct TestUser {
  std::string name;
  uid_t uid;
  gid_t gid;
};

// The runuser binary, from util-linux (Debian: /usr/sbin/runuser).
inline std::string runuser_path() {
  for (const char* p : {"/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"})
    if (::access(p, X_OK) == 0) return p;
  throw std::runtime_error("runuser not found; install util-linux");
}

struct RunResult {
  int status = -1;     // exit status, or 128 + signal
  std::string output;  // stdout and stderr, interleaved
};

// Runs argv (argv[0] absolute), as `user` through runuser when given, with `extra_env` (NAME=value)
// set on top of this process's environment; stdin is /dev/null.
inline RunResult run_captured(std::vector<std::string> argv, const std::optional<TestUser>& user = std::nullopt,
                              std::vector<std::string> extra_env = {}) {
  if (user) argv.insert(argv.begin(), {runuser_path(), "-u", user->name, "--"});
  // A run-time directory of its own: pmg's runs of one user share a journal of host changes there
  // and only the last run undoes them, so runs of parallel tests would otherwise delay each
  // other's clean-up past the moment a test compares the host tree.
  std::string runtime = (fs::temp_directory_path() / "pmg-xdg-XXXXXX").string();
  if (::mkdtemp(runtime.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  if (user && ::chown(runtime.c_str(), user->uid, user->gid) != 0) throw std::runtime_error("chown failed");
  const auto remove_runtime = [&runtime] {
    std::error_code ignored;
    fs::remove_all(runtime, ignored);
  };
  if (std::none_of(extra_env.begin(), extra_env.end(), [](const std::string& x) { return x.starts_with("XDG_RUNTIME_DIR="); }))
    extra_env.push_back("XDG_RUNTIME_DIR=" + runtime);
  // The inherited environment, with each NAME=value of extra_env replacing or adding NAME.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('=') + 1);
    if (std::none_of(extra_env.begin(), extra_env.end(), [&](const std::string& x) { return x.starts_with(name); }))
      env_strings.push_back(entry);
  }
  env_strings.insert(env_strings.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> args, envp;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  RunResult result;
  if (rc != 0) {
    ::close(pipe_fds[0]);
    remove_runtime();
    result.output = "cannot start " + argv[0] + ": " + std::strerror(rc);
    return result;
  }
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (n > 0) result.output.append(buffer, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR) break;
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  remove_runtime();
  return result;
}

// A TCP socket listening on the host's 127.0.0.1 at a free port, as a database or a metadata
// service would: what a sandbox must not reach. Closed on destruction.
class LoopbackListener {
 public:
  LoopbackListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd_, 16) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
      throw std::runtime_error("cannot open a loopback listener");
    port_ = ntohs(addr.sin_port);
  }
  ~LoopbackListener() { ::close(fd_); }
  LoopbackListener(const LoopbackListener&) = delete;
  LoopbackListener& operator=(const LoopbackListener&) = delete;
  int fd() const { return fd_; }
  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// The unprivileged user e2e tests run as; created with useradd when it does not exist (CI is a
// fresh machine running as root). Throws when it cannot be found or created.
inline TestUser ensure_unprivileged_user(const std::string& name = "pmgtest") {
  if (const passwd* pw = ::getpwnam(name.c_str())) return {name, pw->pw_uid, pw->pw_gid};
  for (const char* useradd : {"/usr/sbin/useradd", "/sbin/useradd"}) {
    if (::access(useradd, X_OK) != 0) continue;
    const RunResult r = run_captured({useradd, "--system", "--no-create-home", "--shell", "/bin/sh", name});
    if (r.status != 0 && r.status != 9)  // 9: created meanwhile by a parallel test
      throw std::runtime_error("useradd " + name + " failed: " + r.output);
    if (const passwd* pw = ::getpwnam(name.c_str())) return {name, pw->pw_uid, pw->pw_gid};
  }
  throw std::runtime_error("cannot create the test user " + name + " (needs root and useradd)");
}

inline void write_file(const fs::path& file, const std::string& content, fs::perms mode = fs::perms(0644)) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << content;
  fs::permissions(file, mode);
}

// Gives `user` the whole tree (a no-op without one).
inline void chown_tree(const fs::path& root, const std::optional<TestUser>& user) {
  if (!user) return;
  const auto own = [&](const fs::path& p) {
    if (::lchown(p.c_str(), user->uid, user->gid) != 0)
      throw std::runtime_error("chown " + p.string() + ": " + std::strerror(errno));
  };
  own(root);
  if (!fs::is_directory(fs::symlink_status(root))) return;
  for (const auto& entry : fs::recursive_directory_iterator(root)) own(entry.path());
}

// A fresh directory under /tmp that every user can traverse (the build tree may not be), removed
// with its contents at the end.
class StagingDir {
 public:
  explicit StagingDir(const std::string& label) {
    std::string pattern = (fs::temp_directory_path() / ("pmg-" + label + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = fs::canonical(pattern);
    fs::permissions(root_, fs::perms(0755));
  }
  StagingDir(const StagingDir&) = delete;
  StagingDir& operator=(const StagingDir&) = delete;
  ~StagingDir() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  const fs::path& path() const { return root_; }

  // Copies an executable in, mode 0755.
  fs::path add_executable(const fs::path& file) const {
    const fs::path target = root_ / "bin" / file.filename();
    fs::create_directories(target.parent_path());
    fs::permissions(target.parent_path(), fs::perms(0755));
    fs::copy_file(file, target, fs::copy_options::overwrite_existing);
    fs::permissions(target, fs::perms(0755));
    return target;
  }

 private:
  fs::path root_;
};

// HOME with credentials, a project (CWD) inside it with .env files, a deep .env, a .git without
// hooks, and a symlink to the SSH key; and a TMPDIR. All owned by `owner` when given.
struct FakeHome {
  fs::path home;
  fs::path project;
  fs::path tmp;

  static FakeHome create(const fs::path& root, const std::optional<TestUser>& owner, bool with_hooks_dir = false) {
    FakeHome h{root / "home", root / "home" / "project", root / "tmp"};
    const std::string m = secret_marker;
    write_file(h.home / ".ssh/id_rsa", m + "ssh-private-key\n", fs::perms(0600));
    write_file(h.home / ".ssh/config", m + "ssh-config\n");
    write_file(h.home / ".aws/credentials", m + "aws\n", fs::perms(0600));
    write_file(h.home / ".kube/config", m + "kube\n");
    write_file(h.home / ".docker/config.json", "{\"auths\": \"" + m + "docker\"}\n");
    write_file(h.home / ".gnupg/private-keys-v1.d/key.key", m + "gpg\n", fs::perms(0600));
    write_file(h.home / ".bashrc", "# not a secret\n");
    write_file(h.project / "package.json", "{\"name\": \"e2e\", \"version\": \"1.0.0\"}\n");
    write_file(h.project / "src/index.js", "module.exports = 1;\n");
    write_file(h.project / ".env", m + "env\n");
    write_file(h.project / ".env.production", m + "env-production\n");
    write_file(h.project / "a/b/c/d/e/.env", m + "deep-env\n");
    write_file(h.project / ".git/HEAD", "ref: refs/heads/main\n");
    write_file(h.project / ".git/config", "[core]\n\tbare = false\n");
    if (with_hooks_dir) fs::create_directories(h.project / ".git/hooks");
    fs::create_symlink("../.ssh/id_rsa", h.project / "key-link");
    fs::create_directories(h.tmp);
    fs::permissions(h.tmp, fs::perms(0700));
    chown_tree(root / "home", owner);
    chown_tree(h.tmp, owner);
    return h;
  }
};

// Every path below `root` with its type, mode, size and content (files), one per line, sorted;
// paths for which `skip` returns true are left out with everything below them.
inline std::string snapshot_tree(const fs::path& root, const std::function<bool(const fs::path&)>& skip = {}) {
  std::vector<std::string> lines;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path rel = fs::relative(it->path(), root);
    if (skip && skip(rel)) {
      if (it->is_directory() && !it->is_symlink()) it.disable_recursion_pending();
      continue;
    }
    const fs::file_status st = it->symlink_status();
    std::ostringstream line;
    line << rel.string() << " type=" << static_cast<int>(st.type()) << " mode=" << std::oct
         << static_cast<unsigned>(st.permissions()) << std::dec;
    if (st.type() == fs::file_type::symlink) {
      line << " -> " << fs::read_symlink(it->path()).string();
    } else if (st.type() == fs::file_type::regular) {
      std::ifstream in(it->path());
      std::stringstream content;
      content << in.rdbuf();
      line << " content=" << std::hash<std::string>{}(content.str());
    }
    lines.push_back(line.str());
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

}  // namespace pmg::test_support
