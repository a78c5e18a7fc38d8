// The host end to end, beyond files: secrets in the environment, Unix sockets (path and
// abstract) and the processes outside the sandbox, as root and as an unprivileged user. Each
// attack is also run without pmg, so each assertion can fail.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>

#include "e2e/host_world.hpp"

namespace {

using namespace pmg::test_support;

// A listening Unix socket, at a path or (name starting with '@') in the abstract namespace, as
// an SSH agent, Docker or D-Bus would hold one.
class UnixListener {
 public:
  explicit UnixListener(const std::string& name) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    REQUIRE(name.size() < sizeof addr.sun_path);
    std::memcpy(addr.sun_path, name.data(), name.size());
    if (name.front() == '@') addr.sun_path[0] = '\0';
    const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size());
    REQUIRE(fd_ >= 0);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) == 0);
    REQUIRE(::listen(fd_, 8) == 0);
  }
  ~UnixListener() { ::close(fd_); }

 private:
  int fd_ = -1;
};

// python3 (node cannot address abstract sockets): connect to each Unix socket named on the
// command line ('@' = abstract), print "NAME connected" or "NAME error=ERRNO-NAME" per socket.
constexpr const char* connect_py = R"PY(
import errno, socket, sys
for name in sys.argv[1:]:
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect('\0' + name[1:] if name.startswith('@') else name)
        print(name, 'connected')
    except OSError as e:
        print(name, 'error=' + errno.errorcode.get(e.errno, str(e.errno)))
)PY";

std::string write_profile(const World& w, const std::string& name, const std::string& body) {
  const fs::path file = w.home.tmp / (name + ".yml");
  write_file(file, "name: " + name + "\ninherits: npm-restrictive\npackage_managers: [npm]\n" + body);
  w.give(file);
  return file.string();
}

void environment_secrets_are_removed(bool unprivileged) {
  World w(user_for(unprivileged));
  const std::vector<std::string> secrets = {"AWS_SECRET_ACCESS_KEY=aws-value", "GITHUB_TOKEN=gh-value",
                                            "TWINE_PASSWORD=twine-value", "NPM_TOKEN=npm-value"};
  const std::string show = "echo AWS=${AWS_SECRET_ACCESS_KEY:-unset} GH=${GITHUB_TOKEN:-unset} "
                           "TWINE=${TWINE_PASSWORD:-unset} NPM=${NPM_TOKEN:-unset}";
  const RunResult direct = w.run({"/bin/sh", "-c", show}, secrets);
  REQUIRE(direct.output == "AWS=aws-value GH=gh-value TWINE=twine-value NPM=npm-value\n");

  const RunResult npm_profile =
      w.pmg({"sandbox", "exec", "--sandbox-profile=npm-restrictive", "--", "/bin/sh", "-c", show}, secrets);
  INFO(npm_profile.output);
  CHECK(npm_profile.output.find("AWS=unset GH=unset TWINE=unset NPM=npm-value\n") != std::string::npos);

  const RunResult allowed = w.pmg({"sandbox", "exec", "--sandbox-profile=npm-restrictive",
                                   "--sandbox-allow=env=GITHUB_TOKEN", "--", "/bin/sh", "-c", show},
                                  secrets);
  INFO(allowed.output);
  CHECK(allowed.output.find("AWS=unset GH=gh-value TWINE=unset NPM=npm-value\n") != std::string::npos);
}

void unix_sockets_are_unreachable(bool unprivileged) {
  World w(user_for(unprivileged));
  // An agent socket in /tmp, the usual TMPDIR, which the sandbox mounts writable.
  const StagingDir agent_dir("e2e-agent");
  w.give(agent_dir.path());
  const std::string path_socket = (agent_dir.path() / "agent.sock").string();
  const std::string abstract_socket = "@pmg-e2e-agent-" + std::to_string(::getpid()) + (unprivileged ? "-u" : "-r");
  const UnixListener agent(path_socket), abstract(abstract_socket);
  w.give(path_socket);
  const fs::path script = w.home.project / "connect.py";
  write_file(script, connect_py);
  w.give(script);
  const std::vector<std::string> tmp = {"TMPDIR=/tmp"};
  const std::vector<std::string> connect = {"--", "/usr/bin/python3", script.string(), path_socket, abstract_socket};

  const RunResult direct = w.run({"/usr/bin/python3", script.string(), path_socket, abstract_socket}, tmp);
  REQUIRE(direct.output.find(path_socket + " connected") != std::string::npos);
  REQUIRE(direct.output.find(abstract_socket + " connected") != std::string::npos);

  const std::string offline = write_profile(w, "offline", "network:\n  allow_outbound: []\n");
  for (const std::string& profile : {std::string("npm-restrictive"), offline}) {
    std::vector<std::string> args = {"sandbox", "exec", "--sandbox-profile=" + profile};
    args.insert(args.end(), connect.begin(), connect.end());
    const RunResult r = w.pmg(args, tmp);
    INFO(profile << ":\n" << r.output);
    CHECK(r.status == 0);
    CHECK(r.output.find(path_socket + " error=EACCES") != std::string::npos);
    CHECK(r.output.find(abstract_socket + " error=EACCES") != std::string::npos);
    CHECK(r.output.find("connected") == std::string::npos);
  }

  // Named in allow_unix_sockets, the agent is reachable; the abstract socket stays out of reach
  // (the sandbox's own network namespace has its own abstract namespace).
  std::vector<std::string> args = {
      "sandbox", "exec",
      "--sandbox-profile=" + write_profile(w, "agent", "filesystem:\n  allow_unix_sockets: [\"" + path_socket + "\"]\n")};
  args.insert(args.end(), connect.begin(), connect.end());
  const RunResult named = w.pmg(args, tmp);
  INFO(named.output);
  CHECK(named.output.find(path_socket + " connected") != std::string::npos);
  CHECK(named.output.find(abstract_socket + " error=ECONNREFUSED") != std::string::npos);
}

void outside_processes_are_invisible(bool unprivileged) {
  World w(user_for(unprivileged));
  // Every environ readable from here: the marker is in pmg's environment only (its name is a
  // credential shape, so the sandbox's own processes never get it).
  const std::string scan =
      "n=0; for p in /proc/[0-9]*; do n=$((n+1)); cat $p/environ 2>/dev/null | tr '\\0' '\\n' | "
      "grep -q PMG_E2E_MARKER_PASSWORD && echo FOUND in $p; done; echo processes=$n";
  const std::vector<std::string> marker = {"PMG_E2E_MARKER_PASSWORD=parent-secret"};
  const RunResult direct = w.run({"/bin/sh", "-c", scan}, marker);
  REQUIRE(direct.output.find("FOUND") != std::string::npos);

  const RunResult r = w.pmg({"sandbox", "exec", "--sandbox-profile=npm-restrictive", "--", "/bin/sh", "-c", scan}, marker);
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("FOUND") == std::string::npos);
  // bwrap's init, pmg-netbridge, sh and the subshells of the loop: nothing from outside.
  const std::size_t at = r.output.find("processes=");
  REQUIRE(at != std::string::npos);
  CHECK(std::stoi(r.output.substr(at + 10)) <= 8);
}

}  // namespace

TEST_CASE("protection e2e: credential variables are removed unless allowed (root)", "[e2e][protection]") {
  environment_secrets_are_removed(false);
}
TEST_CASE("protection e2e: credential variables are removed unless allowed (unprivileged)", "[e2e][protection]") {
  environment_secrets_are_removed(true);
}
TEST_CASE("protection e2e: Unix sockets in /tmp and abstract ones are unreachable (root)", "[e2e][protection]") {
  unix_sockets_are_unreachable(false);
}
TEST_CASE("protection e2e: Unix sockets in /tmp and abstract ones are unreachable (unprivileged)",
          "[e2e][protection]") {
  unix_sockets_are_unreachable(true);
}
TEST_CASE("protection e2e: processes outside the sandbox are invisible (root)", "[e2e][protection]") {
  outside_processes_are_invisible(false);
}
TEST_CASE("protection e2e: processes outside the sandbox are invisible (unprivileged)", "[e2e][protection]") {
  outside_processes_are_invisible(true);
}
