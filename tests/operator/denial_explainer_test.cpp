// denial_explainer.hpp: reading real programs' error messages, naming the rule that denied, and
// suggesting only flags that, applied as the host applies them, allow the operation.
#include <catch2/catch.hpp>

#include "support/unit_helpers.hpp"

#include "pmg/denial_explainer.hpp"
#include "pmg/profile_registry.hpp"

namespace {

using pmg::test_support::work_project_context;

pmg::FakeFs host() {
  pmg::FakeFs fs;
  for (const char* dir : {"/usr/bin", "/tmp", "/work/proj/src", "/work/proj/.git/hooks", "/work/proj/secrets",
                          "/home/u/.config/tool", "/home/u/.ssh"})
    fs.add_dir(dir);
  for (const char* file : {"/usr/bin/curl", "/usr/bin/node", "/work/proj/package.json", "/work/proj/README.md",
                           "/work/proj/.env", "/work/proj/.git/config", "/work/proj/src/a.js",
                           "/work/proj/secrets/a.pem", "/home/u/.bashrc", "/home/u/.ssh/id_rsa",
                           "/home/u/.config/tool/settings.json"})
    fs.add_file(file);
  return fs;
}

pmg::Policy npm_restrictive() { return pmg::ProfileRegistry::builtin_only().resolve("npm-restrictive"); }

pmg::Denial parse(const std::string& line) {
  const auto d = pmg::parse_denial_line(line, work_project_context());
  INFO(line);
  REQUIRE(d.has_value());
  return *d;
}

std::optional<pmg::Violation> explain(const std::string& line, const pmg::Policy& policy, const pmg::FsView& fs) {
  const pmg::ExplainContext ec{work_project_context(), fs, {"/usr/bin", "/bin"}};
  return pmg::explain_denial(parse(line), policy, ec);
}

// The suggested flag, applied exactly as the host applies --sandbox-allow, leaves the operation
// (as the explanation understood it) no longer denied.
void check_flag_allows(const std::string& line, const pmg::Policy& policy, const pmg::FsView& fs,
                       const pmg::Violation& v) {
  REQUIRE_FALSE(v.allow.empty());
  pmg::Policy allowed = policy;
  const pmg::Override o = pmg::parse_override(v.allow, work_project_context());
  pmg::apply_overrides(allowed, std::span(&o, 1), work_project_context());
  pmg::Denial denial = parse(line);
  denial.operation = v.operation;
  CHECK_FALSE(pmg::explain_denial(denial, allowed, pmg::ExplainContext{work_project_context(), fs, {}}).has_value());
}

}  // namespace

TEST_CASE("error messages of npm, node, Python, sh, bash and coreutils are read", "[denial]") {
  struct Case {
    std::string line;
    pmg::Operation operation;
    std::string error, target;
  };
  using pmg::Operation;
  const std::vector<Case> cases{
      {"npm error Error: EACCES: permission denied, open '/work/proj/x'", Operation::unknown, "EACCES", "/work/proj/x"},
      {"\x1b[31mnpm ERR!\x1b[0m EROFS: read-only file system, mkdir '/work/proj/dist'", Operation::write, "EROFS",
       "/work/proj/dist"},
      {"Error: ENOENT: no such file or directory, scandir '/home/u/.config'", Operation::read, "ENOENT",
       "/home/u/.config"},
      {"Error: EPERM: operation not permitted, rename '/work/proj/a' -> '/work/proj/b'", Operation::write, "EPERM",
       "/work/proj/a"},
      {"Error: spawn /usr/bin/curl EACCES", Operation::exec, "EACCES", "/usr/bin/curl"},
      {"PermissionError: [Errno 13] Permission denied: '/home/u/.ssh/id_rsa'", Operation::unknown, "EACCES",
       "/home/u/.ssh/id_rsa"},
      {"OSError: [Errno 30] Read-only file system: 'out.txt'", Operation::write, "EROFS", "/work/proj/out.txt"},
      {"FileNotFoundError: [Errno 2] No such file or directory: \"/work/proj/it's\"", Operation::unknown, "ENOENT",
       "/work/proj/it's"},
      {"sh: 1: cannot create out.txt: Read-only file system", Operation::write, "EROFS", "/work/proj/out.txt"},
      {"/usr/bin/sh: 1: cannot open /work/proj/.env: Permission denied", Operation::read, "EACCES", "/work/proj/.env"},
      {"touch: cannot touch \xE2\x80\x98/work/proj/t\xE2\x80\x99: Read-only file system", Operation::write, "EROFS",
       "/work/proj/t"},
      {"mkdir: cannot create directory '/work/proj/d': Permission denied", Operation::write, "EACCES",
       "/work/proj/d"},
      {"cat: /work/proj/.env: Permission denied", Operation::unknown, "EACCES", "/work/proj/.env"},
      {"cat: .env: Permission denied", Operation::unknown, "EACCES", "/work/proj/.env"},
      {"/usr/bin/cat: .env: Permission denied", Operation::unknown, "EACCES", "/work/proj/.env"},
      {"bash: line 1: /work/proj/x: Read-only file system", Operation::write, "EROFS", "/work/proj/x"},
      {"sh: 1: /usr/bin/curl: Permission denied\r", Operation::unknown, "EACCES", "/usr/bin/curl"},
      {"npm error request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org",
       Operation::connect, "EAI_AGAIN", "registry.npmjs.org"},
      {"curl: (6) Could not resolve host: evil.example", Operation::connect, "EAI_AGAIN", "evil.example"},
      {"Error: connect ENETUNREACH 104.16.1.34:443", Operation::connect, "ENETUNREACH", "104.16.1.34"},
      {"WARNING: Retrying after HTTPSConnectionPool(host='pypi.org', port=443): Max retries exceeded (Caused by "
       "NewConnectionError('<x>: Failed to establish a new connection: [Errno -3] Temporary failure in name "
       "resolution'))",
       Operation::connect, "EAI_AGAIN", "pypi.org"},
  };
  for (const Case& c : cases) {
    const pmg::Denial d = parse(c.line);
    INFO(c.line);
    CHECK(d.operation == c.operation);
    CHECK(d.error == c.error);
    CHECK(d.target == c.target);
  }
  CHECK(parse("Error: connect ENETUNREACH 104.16.1.34:443").port == std::optional<std::uint16_t>(443));
  CHECK(parse("\x1b[31mnpm ERR!\x1b[0m EROFS: read-only file system, mkdir '/x'").evidence ==
        "npm ERR! EROFS: read-only file system, mkdir '/x'");
  for (const char* ignored : {"added 1 package in 2s", "ENOENT", "Error: spawn curl ENOENT",
                              "Error: thing: Permission denied", "npm warn some words: Permission denied",
                              "npm error path /work/proj/x", "[Errno -3] Temporary failure in name resolution"})
    CHECK_FALSE(pmg::parse_denial_line(ignored, work_project_context()).has_value());
}

TEST_CASE("a write outside allow_write: the flag names the path, or its directory while it does not exist",
          "[denial]") {
  const pmg::FakeFs fs = host();
  const pmg::Policy policy = npm_restrictive();
  const std::string missing = "sh: 1: cannot create /work/proj/out.txt: Read-only file system";
  const auto v = explain(missing, policy, fs);
  REQUIRE(v);
  CHECK(v->operation == pmg::Operation::write);
  CHECK(v->rule == pmg::RuleKind::not_in_allow_write);
  CHECK(v->target == "/work/proj/out.txt");
  CHECK(v->why == "no filesystem.allow_write entry of profile npm-restrictive covers it");
  CHECK(v->allow == "write=/work/proj");
  CHECK(v->allow_flag() == "--sandbox-allow write=/work/proj");
  CHECK(v->note.find("does not exist yet") != std::string::npos);
  check_flag_allows(missing, policy, fs, *v);

  const std::string existing = "Error: EROFS: read-only file system, open '/work/proj/README.md'";
  const auto e = explain(existing, policy, fs);
  REQUIRE(e);
  CHECK(e->allow == "write=/work/proj/README.md");
  CHECK(e->note.empty());
  check_flag_allows(existing, policy, fs, *e);
}

TEST_CASE("an allow_write pattern a new file matches only after the sandbox started is explained", "[denial]") {
  const pmg::FakeFs fs = host();
  const pmg::Policy policy = pmg::ProfileRegistry::builtin_only().resolve("pnpm-restrictive");
  const std::string line = "Error: EROFS: read-only file system, open '/work/proj/package.json.1234'";
  const auto v = explain(line, policy, fs);
  REQUIRE(v);
  CHECK(v->rule == pmg::RuleKind::not_in_allow_write);
  CHECK(v->why.find("pattern \"${CWD}/package.json.*\"") != std::string::npos);
  CHECK(v->allow == "write=/work/proj");
  check_flag_allows(line, policy, fs, *v);
  // A literal entry and a whole-tree entry are applied to missing paths too (created before the
  // run): a refusal there is not the policy's.
  CHECK_FALSE(explain("Error: EROFS: read-only file system, open '/work/proj/package-lock.json'", npm_restrictive(), fs));
  // A whole-tree rule works for a missing directory: the backend creates it, nothing to explain.
  CHECK_FALSE(explain("Error: EROFS: read-only file system, mkdir '/work/proj/node_modules/x'", npm_restrictive(), fs));
}

TEST_CASE("mandatory denies cannot be allowed, and the explanation says why", "[denial]") {
  const pmg::FakeFs fs = host();
  const pmg::Policy policy = npm_restrictive();
  const auto env = explain("cat: /work/proj/.env: Permission denied", policy, fs);
  REQUIRE(env);
  CHECK(env->rule == pmg::RuleKind::mandatory);
  CHECK(env->operation == pmg::Operation::read);
  CHECK(env->rule_entry == "/work/proj/.env");
  CHECK(env->allow.empty());
  CHECK(env->note.find("cannot be allowed") != std::string::npos);

  const auto hook = explain("sh: 1: cannot create /work/proj/.git/hooks/pre-commit: Read-only file system", policy, fs);
  REQUIRE(hook);
  CHECK(hook->rule == pmg::RuleKind::mandatory);
  CHECK(hook->why.find("runs code on your next git command") != std::string::npos);
  CHECK(hook->allow.empty());

  const auto config = explain("OSError: [Errno 30] Read-only file system: '/work/proj/.git/config'", policy, fs);
  REQUIRE(config);
  CHECK(config->rule == pmg::RuleKind::mandatory);
  CHECK(config->note.find("allow_git_config: true") != std::string::npos);

  const auto key = explain("PermissionError: [Errno 13] Permission denied: '/home/u/.ssh/id_rsa'", policy, fs);
  REQUIRE(key);
  CHECK(key->rule == pmg::RuleKind::mandatory);
  CHECK(key->rule_entry == "/home/u/.ssh");
}

TEST_CASE("deny_exec, deny_read and deny_write entries: exact ones can be lifted, patterns cannot", "[denial]") {
  const pmg::FakeFs fs = host();
  pmg::Policy policy = npm_restrictive();
  policy.filesystem.deny_read.push_back("${CWD}/secrets/*.pem");
  policy.filesystem.deny_write.push_back("${CWD}/src");

  for (const std::string line : {"Error: spawn /usr/bin/curl EACCES", "sh: 1: /usr/bin/curl: Permission denied"}) {
    const auto curl = explain(line, policy, fs);
    REQUIRE(curl);
    CHECK(curl->rule == pmg::RuleKind::deny_exec);
    CHECK(curl->operation == pmg::Operation::exec);
    CHECK(curl->rule_entry == "/usr/bin/curl");
    CHECK(curl->allow == "exec=/usr/bin/curl");
    check_flag_allows(line, policy, fs, *curl);
  }

  const auto pem = explain("PermissionError: [Errno 13] Permission denied: '/work/proj/secrets/a.pem'", policy, fs);
  REQUIRE(pem);
  CHECK(pem->rule == pmg::RuleKind::deny_read);
  CHECK(pem->allow.empty());
  CHECK(pem->note.find("is a pattern") != std::string::npos);

  const std::string src = "Error: EROFS: read-only file system, open '/work/proj/src/a.js'";
  const auto js = explain(src, policy, fs);
  REQUIRE(js);
  CHECK(js->rule == pmg::RuleKind::deny_write);
  CHECK(js->allow == "write=/work/proj/src");
  CHECK(js->note.find("lifts the whole entry \"${CWD}/src\"") != std::string::npos);
  check_flag_allows(src, policy, fs, *js);
}

TEST_CASE("ENOENT counts only for paths the host has, or creating one in a hidden directory", "[denial]") {
  const pmg::FakeFs fs = host();
  const pmg::Policy policy = npm_restrictive();
  CHECK_FALSE(explain("Error: ENOENT: no such file or directory, open '/work/proj/missing.json'", policy, fs));
  CHECK_FALSE(explain("Error: ENOENT: no such file or directory, stat '/home/u/.config/nothing'", policy, fs));

  const std::string hidden = "Error: ENOENT: no such file or directory, open '/home/u/.config/tool/settings.json'";
  const auto read = explain(hidden, policy, fs);
  REQUIRE(read);
  CHECK(read->rule == pmg::RuleKind::not_in_allow_read);
  CHECK(read->allow == "read=/home/u/.config/tool/settings.json");
  check_flag_allows(hidden, policy, fs, *read);

  const std::string create = "Error: ENOENT: no such file or directory, open '/home/u/.config/tool/new.json'";
  const auto write = explain(create, policy, fs);
  REQUIRE(write);
  CHECK(write->operation == pmg::Operation::write);
  CHECK(write->rule == pmg::RuleKind::not_in_allow_write);
  CHECK(write->allow == "write=/home/u/.config/tool");
}

TEST_CASE("a refusal the policy does not explain is not a violation", "[denial]") {
  pmg::FakeFs fs = host();
  fs.add_dir("/work/proj/node_modules/x");
  const pmg::Policy policy = npm_restrictive();
  // The policy allows writing node_modules: EACCES there comes from file permissions.
  CHECK_FALSE(explain("Error: EACCES: permission denied, open '/work/proj/node_modules/x/y'", policy, fs));
  CHECK_FALSE(explain("getaddrinfo EAI_AGAIN registry.npmjs.org", policy, fs));
}

TEST_CASE("a host no allow_outbound entry admits", "[denial]") {
  const pmg::FakeFs fs = host();
  const pmg::Policy policy = npm_restrictive();
  const std::string line = "npm error request to https://evil.example/x failed, reason: getaddrinfo ENOTFOUND evil.example";
  const auto v = explain(line, policy, fs);
  REQUIRE(v);
  CHECK(v->rule == pmg::RuleKind::network);
  CHECK(v->operation == pmg::Operation::connect);
  CHECK(v->target == "evil.example:443");
  CHECK(v->allow == "net-connect=evil.example:443");
  CHECK(v->note.find("443 (HTTPS) is assumed") != std::string::npos);
  check_flag_allows(line, policy, fs, *v);
}

TEST_CASE("a flag that would open a shell start-up file comes with a caution", "[denial]") {
  const pmg::FakeFs fs = host();
  const auto v = explain("Error: EROFS: read-only file system, open '/home/u/.bashrc'", npm_restrictive(), fs);
  REQUIRE(v);
  CHECK(v->allow == "write=/home/u/.bashrc");
  CHECK(v->note.find("caution: the flag makes shell start-up files writable") != std::string::npos);
}

TEST_CASE("output lines become distinct violations", "[denial]") {
  const pmg::FakeFs fs = host();
  const std::vector<std::string> lines{
      "> postinstall",
      "sh: 1: cannot create /work/proj/out.txt: Read-only file system",
      "sh: 1: cannot create /work/proj/out.txt: Read-only file system",
      "cat: /work/proj/.env: Permission denied",
      "Error: EACCES: permission denied, open '/work/proj/node_modules/ok'",
  };
  const auto violations = pmg::violations_in_output(lines, npm_restrictive(), pmg::ExplainContext{work_project_context(), fs, {}});
  REQUIRE(violations.size() == 2);
  CHECK(violations[0].target == "/work/proj/out.txt");
  CHECK(violations[1].target == "/work/proj/.env");
}
