#pragma once
// Shared by the operator CLI tests: a throw-away HOME / project / TMPDIR / config directory
// layout, running the pmg binary in it, and golden-file comparison with the layout's paths
// replaced by placeholders.
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/property_tree/json_parser.hpp>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace operator_test {

namespace fs = std::filesystem;

inline std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void write_text(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

struct Result {
  int status = -1;
  std::string out;
  std::string err;
};

// Runs argv (argv[0] absolute) in `cwd` with exactly `env`, collecting stdout and stderr.
inline Result run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                  const fs::path& cwd) {
  int out_pipe[2], err_pipe[2];
  REQUIRE(::pipe2(out_pipe, O_CLOEXEC) == 0);
  REQUIRE(::pipe2(err_pipe, O_CLOEXEC) == 0);
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  for (const auto& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
  args.push_back(nullptr);
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    const int null = ::open("/dev/null", O_RDONLY);
    ::dup2(null, 0);
    if (::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::execve(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  Result r;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_count = 2;
  while (open_count > 0) {
    if (::poll(fds, 2, -1) < 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[8192];
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        (i == 0 ? r.out : r.err).append(buffer, static_cast<std::size_t>(n));
      } else {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

inline fs::path source_dir() { return PMG_SOURCE_DIR; }
inline fs::path binary_dir() { return PMG_BINARY_DIR; }

// The pmg under test: $PMG_OPERATOR_TEST_PMG, else the build tree's.
inline std::string pmg_binary() {
  if (const char* p = std::getenv("PMG_OPERATOR_TEST_PMG"); p != nullptr && *p != '\0') return p;
  return (binary_dir() / "bin" / "pmg").string();
}

// root/{home,proj,tmp,cfg}, removed again at the end of the test.
class Layout {
 public:
  Layout() {
    std::string pattern = (fs::temp_directory_path() / "pmg-ops-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    root = fs::path(pattern);
    for (const fs::path& d : {home(), proj(), tmp(), cfg()}) fs::create_directories(d);
  }
  ~Layout() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  Layout(const Layout&) = delete;
  Layout& operator=(const Layout&) = delete;

  fs::path home() const { return root / "home"; }
  fs::path proj() const { return root / "proj"; }
  fs::path tmp() const { return root / "tmp"; }
  fs::path cfg() const { return root / "cfg"; }

  std::map<std::string, std::string> env() const {
    return {{"HOME", home().string()},
            {"PMG_CONFIG_DIR", cfg().string()},
            {"TMPDIR", tmp().string()},
            {"PATH", "/usr/local/bin:/usr/bin:/bin"},
            {"LANG", "C.UTF-8"}};
  }

  Result pmg(std::vector<std::string> args, std::map<std::string, std::string> extra = {}) const {
    args.insert(args.begin(), pmg_binary());
    auto e = env();
    for (auto& [k, v] : extra) e[k] = v;
    return run(args, e, proj());
  }

  // Paths and times replaced by placeholders, so goldens hold on any machine.
  std::string normalise(std::string text) const {
    const std::vector<std::pair<std::string, std::string>> paths{
        {home().string(), "<HOME>"}, {proj().string(), "<CWD>"},    {tmp().string(), "<TMPDIR>"},
        {cfg().string(), "<CONFIG>"}, {root.string(), "<ROOT>"},     {source_dir().string(), "<SRC>"},
        {binary_dir().string(), "<BUILD>"}};
    for (const auto& [from, to] : paths)
      for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    text = std::regex_replace(text, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"), "<TIME>");
    return text;
  }

  fs::path root;
};

// Compares `actual` with tests/operator/golden/NAME; PMG_UPDATE_GOLDEN=1 rewrites the file instead.
inline void check_golden(const std::string& name, const std::string& actual) {
  const fs::path file = source_dir() / "tests/operator/golden" / name;
  if (const char* update = std::getenv("PMG_UPDATE_GOLDEN"); update != nullptr && std::string(update) == "1") {
    write_text(file, actual);
    return;
  }
  INFO("golden file " << file.string() << " (PMG_UPDATE_GOLDEN=1 rewrites it); actual output:\n" << actual);
  REQUIRE(fs::exists(file));
  CHECK(read_text(file) == actual);
}

// Throws when `text` is not JSON.
inline boost::property_tree::ptree parse_json(const std::string& text) {
  boost::property_tree::ptree tree;
  std::istringstream in(text);
  boost::property_tree::read_json(in, tree);
  return tree;
}

}  // namespace operator_test
