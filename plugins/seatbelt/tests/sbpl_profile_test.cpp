// What the translation emits for each kind of policy entry.
#include <catch2/catch.hpp>

#include <algorithm>

#include "pmg/error.hpp"
#include "pmg/glob.hpp"
#include "pmg/mandatory.hpp"
#include "seatbelt_test_support.hpp"

using namespace pmg;
using namespace pmg::seatbelt;
using namespace pmg::seatbelt::test;

namespace {

struct Parsed {
  SbplProfile profile;
  std::vector<Node> forms;
  std::vector<Rule> rules;
};

Parsed parse(const Policy& policy, const FsView& fs = mac_fs(), std::optional<std::uint16_t> proxy = std::nullopt) {
  Parsed p{translate(policy, fs, proxy), {}, {}};
  p.forms = read_sexprs(p.profile.text);
  p.rules = rules_of(p.forms);
  return p;
}

// Rules with `action` whose operations include `operation` and that have a filter (kind, text).
std::vector<std::size_t> find_rules(const std::vector<Rule>& rules, std::string_view action,
                                    std::string_view operation, std::string_view kind, std::string_view text) {
  std::vector<std::size_t> found;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    if (rules[i].action != action || !rules[i].operations.count(std::string(operation))) continue;
    for (const Node* f : rules[i].filters)
      if (filter_kind(*f) == kind && filter_text(*f) == text) found.push_back(i);
  }
  return found;
}

bool has_rule(const Parsed& p, std::string_view action, std::string_view operation, std::string_view kind,
              std::string_view text) {
  return !find_rules(p.rules, action, operation, kind, text).empty();
}

bool mentions(const Parsed& p, std::string_view text) {
  for (const Rule& r : p.rules)
    for (const Node* f : r.filters) {
      std::vector<const Node*> atoms;
      collect_atoms(*f, atoms);
      for (const Node* a : atoms)
        if (a->text == text) return true;
    }
  return false;
}

}  // namespace

TEST_CASE("a profile starts with its version and a tagged default deny", "[seatbelt][translate]") {
  const Parsed p = parse(base_policy());
  REQUIRE(p.forms.size() > 2);
  CHECK(p.profile.text.starts_with("(version 1)\n(deny default (with message \"PMG_SBX_GOLDEN0TAG\"))\n"));
  for (const Rule& r : p.rules)
    if (r.action == "deny") CHECK(r.has_message);  // every denial is found by `log show`
}

TEST_CASE("the log tag must be letters and digits", "[seatbelt][translate]") {
  for (const std::string& bad : std::vector<std::string>{"", "a b", "x\")(allow default", std::string(65, 'A')})
    CHECK_THROWS_AS(translate_to_sbpl(base_policy(), mac_context(), mac_fs(), SbplOptions{bad, std::nullopt}),
                    pmg::Error);
}

TEST_CASE("literal paths become subpaths, in every form a symlink gives them", "[seatbelt][translate]") {
  Policy policy = base_policy();
  policy.filesystem.allow_read = {"/etc/resolv.conf", "${CWD}", "${HOME}/.npmrc"};
  policy.filesystem.allow_write = {"/tmp/build"};
  const Parsed p = parse(policy);
  CHECK(has_rule(p, "allow", "file-read*", "subpath", "/etc/resolv.conf"));
  CHECK(has_rule(p, "allow", "file-read*", "subpath", "/private/var/run/resolv.conf"));
  CHECK(has_rule(p, "allow", "file-read*", "subpath", "/Users/dev/project"));
  CHECK(has_rule(p, "allow", "file-read*", "subpath", "/Users/dev/.npmrc"));
  CHECK(has_rule(p, "allow", "file-write*", "subpath", "/tmp/build"));
  CHECK(has_rule(p, "allow", "file-write*", "subpath", "/private/tmp/build"));
  // Both forms sit in one rule: one policy entry, one rule.
  CHECK(find_rules(p.rules, "allow", "file-write*", "subpath", "/tmp/build") ==
        find_rules(p.rules, "allow", "file-write*", "subpath", "/private/tmp/build"));
}

TEST_CASE("path_forms resolves the literal directories of a glob", "[seatbelt][translate]") {
  FakeFs fs = mac_fs();
  fs.add_dir("/Volumes/cache/npm");
  fs.add_symlink("/Users/dev/.npm", "/Volumes/cache/npm");
  CHECK(path_forms("/tmp/**", fs) == std::vector<std::string>{"/tmp/**", "/private/tmp/**"});
  CHECK(path_forms("/Users/dev/.npm/_cacache/*.json", fs) ==
        std::vector<std::string>{"/Users/dev/.npm/_cacache/*.json", "/Volumes/cache/npm/_cacache/*.json"});
  CHECK(path_forms("/usr/bin/*", fs) == std::vector<std::string>{"/usr/bin/*"});
  CHECK(path_forms("/Users/dev/project", fs) == std::vector<std::string>{"/Users/dev/project"});
  CHECK(path_forms("/*", fs) == std::vector<std::string>{"/*"});
  CHECK(path_forms("/", fs) == std::vector<std::string>{"/"});
  FakeFs loop;
  loop.add_symlink("/a", "/b");
  loop.add_symlink("/b", "/a");
  CHECK_THROWS_AS(path_forms("/a/x", loop), pmg::Error);
}

TEST_CASE("globs become anchored regexes built by glob_to_regex", "[seatbelt][translate]") {
  Policy policy = base_policy();
  policy.filesystem.allow_write = {"${CWD}/package.json.*", "${CWD}/node_modules/**"};
  const Parsed p = parse(policy);
  CHECK(has_rule(p, "allow", "file-write*", "regex", glob_to_regex("/Users/dev/project/package.json.*")));
  SECTION("a glob also covers what is below what it matches, like a subpath") {
    CHECK(has_rule(p, "allow", "file-write*", "regex", glob_to_regex("/Users/dev/project/package.json.*/**")));
  }
  SECTION("a /** pattern also allows its directory itself, so it can be created") {
    CHECK(has_rule(p, "allow", "file-write*", "regex", glob_to_regex("/Users/dev/project/node_modules/**")));
    CHECK(has_rule(p, "allow", "file-write*", "literal", "/Users/dev/project/node_modules"));
    CHECK_FALSE(has_rule(p, "allow", "file-write*", "regex", glob_to_regex("/Users/dev/project/node_modules/**/**")));
  }
}

TEST_CASE("/** of a glob directory and of the root", "[seatbelt][translate]") {
  Policy policy = base_policy();
  policy.filesystem.allow_read = {"${HOME}/.nvm/versions/*/lib/**", "/**"};
  const Parsed p = parse(policy);
  CHECK(has_rule(p, "allow", "file-read*", "regex", glob_to_regex("/Users/dev/.nvm/versions/*/lib")));
  CHECK(has_rule(p, "allow", "file-read*", "literal", "/"));
}

TEST_CASE("denies come after allows and cover what is below them", "[seatbelt][translate]") {
  Policy policy = base_policy();
  policy.filesystem.allow_read = {"${HOME}/**"};
  policy.filesystem.allow_write = {"${CWD}/**"};
  policy.filesystem.deny_read = {"${HOME}/secrets", "${HOME}/**/*.pem"};
  policy.filesystem.deny_write = {"${CWD}/src/**"};
  const Parsed p = parse(policy);
  const auto deny_secrets = find_rules(p.rules, "deny", "file-read*", "subpath", "/Users/dev/secrets");
  const auto allow_home = find_rules(p.rules, "allow", "file-read*", "regex", glob_to_regex("/Users/dev/**"));
  REQUIRE(deny_secrets.size() == 1);
  REQUIRE(allow_home.size() == 1);
  CHECK(allow_home[0] < deny_secrets[0]);
  CHECK(has_rule(p, "deny", "file-read*", "regex", glob_to_regex("/Users/dev/**/*.pem")));
  CHECK(has_rule(p, "deny", "file-read*", "regex", glob_to_regex("/Users/dev/**/*.pem/**")));
  CHECK(has_rule(p, "deny", "file-write*", "regex", glob_to_regex("/Users/dev/project/src/**")));
}

TEST_CASE("mandatory denies come last, read and write, and no policy removes them", "[seatbelt][translate]") {
  Policy policy = base_policy();
  policy.filesystem.allow_read = {"${HOME}", "${HOME}/.ssh", "${CWD}/.env"};
  policy.filesystem.allow_write = {"${CWD}", "${CWD}/.git/hooks/**", "${HOME}/.aws"};
  const Parsed p = parse(policy);
  const MandatoryDenies m = mandatory_denies(policy, mac_context());
  REQUIRE_FALSE(m.deny_read_write.empty());
  std::size_t first_mandatory = p.rules.size();
  for (const std::string& path : m.deny_read_write) {
    const std::string kind = has_glob_chars(path) ? "regex" : "subpath";
    const std::string text = has_glob_chars(path) ? glob_to_regex(path) : path;
    const auto found = find_rules(p.rules, "deny", "file-read*", kind, text);
    REQUIRE(found.size() == 1);
    CHECK(p.rules[found[0]].operations.count("file-write*"));
    first_mandatory = std::min(first_mandatory, found[0]);
  }
  for (const std::string& path : m.deny_write) {
    CHECK(has_rule(p, "deny", "file-write*", has_glob_chars(path) ? "regex" : "subpath",
                   has_glob_chars(path) ? glob_to_regex(path) : path));
  }
  for (std::size_t i = first_mandatory; i < p.rules.size(); ++i) CHECK(p.rules[i].action == "deny");
  CHECK(has_rule(p, "deny", "file-read*", "subpath", "/Users/dev/.ssh"));
  CHECK(has_rule(p, "deny", "file-write*", "subpath", "/Users/dev/project/.git/hooks"));
}

TEST_CASE(".git/config is write-denied unless allow_git_config", "[seatbelt][translate]") {
  Policy policy = base_policy();
  CHECK(has_rule(parse(policy), "deny", "file-write*", "subpath", "/Users/dev/project/.git/config"));
  policy.allow_git_config = true;
  const Parsed allowed = parse(policy);
  CHECK_FALSE(has_rule(allowed, "deny", "file-write*", "subpath", "/Users/dev/project/.git/config"));
  CHECK(has_rule(allowed, "deny", "file-write*", "subpath", "/Users/dev/project/.git/hooks"));
}

TEST_CASE("TMPDIR's per-user parent is opened with TMPDIR, never otherwise", "[seatbelt][translate]") {
  const std::string parent = "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000";
  Policy policy = base_policy();
  SECTION("writable TMPDIR: the parent is writable, in both forms") {
    policy.filesystem.allow_write = {"${TMPDIR}"};
    const Parsed p = parse(policy);
    CHECK(has_rule(p, "allow", "file-write*", "subpath", parent));
    CHECK(has_rule(p, "allow", "file-write*", "subpath", "/private" + parent));
    CHECK_FALSE(has_rule(p, "allow", "file-read*", "subpath", parent));
  }
  SECTION("readable and writable through ${TMPDIR}/**") {
    policy.filesystem.allow_read = {"${TMPDIR}/**"};
    policy.filesystem.allow_write = {"${TMPDIR}/**"};
    const Parsed p = parse(policy);
    const auto rules = find_rules(p.rules, "allow", "file-write*", "subpath", parent);
    REQUIRE(rules.size() == 1);
    CHECK(p.rules[rules[0]].operations.count("file-read*"));
  }
  SECTION("TMPDIR not allowed: nothing") {
    policy.filesystem.allow_write = {"${CWD}/out"};
    CHECK_FALSE(mentions(parse(policy), parent));
  }
  SECTION("a TMPDIR outside /var/folders has no such parent; / never becomes writable") {
    policy.filesystem.allow_write = {"${TMPDIR}"};
    Context linux_like = mac_context();
    linux_like.tmpdir = "/tmp";
    const auto forms = read_sexprs(translate_to_sbpl(policy, linux_like, mac_fs(), {test_tag, std::nullopt}).text);
    const auto rules = rules_of(forms);
    CHECK(find_rules(rules, "allow", "file-write*", "subpath", "/").empty());
    CHECK(find_rules(rules, "allow", "file-write*", "subpath", "/private").empty());
    CHECK_FALSE(find_rules(rules, "allow", "file-write*", "subpath", "/tmp").empty());
  }
}

TEST_CASE("network: outbound by port, explicit deny, bind", "[seatbelt][translate][network]") {
  Policy policy = base_policy();
  SECTION("nothing allowed, *:* denied: an explicit deny, no DNS, no trust services") {
    policy.network.deny_outbound = {"*:*"};
    const Parsed p = parse(policy);
    CHECK(has_rule(p, "deny", "network-outbound", "remote", "*:*"));
    CHECK_FALSE(mentions(p, "/private/var/run/mDNSResponder"));
    CHECK(p.profile.text.find("com.apple.trustd.agent") == std::string::npos);
    for (const Rule& r : p.rules) CHECK_FALSE((r.action == "allow" && r.operations.count("network-outbound")));
  }
  SECTION("nothing allowed, nothing denied: no network rule at all (deny default)") {
    const Parsed p = parse(policy);
    for (const Rule& r : p.rules) CHECK_FALSE(r.operations.count("network-outbound"));
  }
  SECTION("allowed hosts open their ports, and DNS and certificate checks") {
    policy.network.allow_outbound = {"registry.npmjs.org:443", "*.example.com:443", "localhost:4873"};
    policy.network.deny_outbound = {"*:*"};
    const Parsed p = parse(policy);
    const auto out = find_rules(p.rules, "allow", "network-outbound", "remote", "*:443");
    REQUIRE(out.size() == 1);
    CHECK(p.rules[out[0]].filters.size() == 2);  // "*:443" once, and localhost:4873
    CHECK(has_rule(p, "allow", "network-outbound", "remote", "localhost:4873"));
    CHECK(has_rule(p, "allow", "network-outbound", "literal", "/private/var/run/mDNSResponder"));
    CHECK(p.profile.text.find("com.apple.trustd.agent") != std::string::npos);
    CHECK_FALSE(has_rule(p, "deny", "network-outbound", "remote", "*:*"));  // *:* = everything else
    CHECK(p.profile.warnings.empty());
  }
  SECTION("a wildcard port allows every port") {
    policy.network.allow_outbound = {"registry.npmjs.org:443", "mirror.internal:*"};
    const Parsed p = parse(policy);
    CHECK(has_rule(p, "allow", "network-outbound", "remote", "*:*"));
    CHECK_FALSE(has_rule(p, "allow", "network-outbound", "remote", "*:443"));
  }
  SECTION("deny entries Seatbelt can express win; host names are reported") {
    policy.network.allow_outbound = {"registry.npmjs.org:443"};
    policy.network.deny_outbound = {"*:25", "localhost:6379", "evil.example.com:443"};
    const Parsed p = parse(policy);
    const auto allow = find_rules(p.rules, "allow", "network-outbound", "remote", "*:443");
    const auto deny = find_rules(p.rules, "deny", "network-outbound", "remote", "*:25");
    REQUIRE(allow.size() == 1);
    REQUIRE(deny.size() == 1);
    CHECK(allow[0] < deny[0]);
    CHECK(has_rule(p, "deny", "network-outbound", "remote", "localhost:6379"));
    REQUIRE(p.profile.warnings.size() == 1);
    CHECK_THAT(p.profile.warnings[0], Catch::Contains("evil.example.com:443") && Catch::Contains("proxy"));
    CHECK_THAT(p.profile.text, Catch::Contains(";; warning: network.deny_outbound \"evil.example.com:443\""));
  }
  SECTION("bind: localhost when allow_network_bind, and each allow_bind address") {
    policy.allow_network_bind = true;
    policy.network.allow_bind = {"127.0.0.1:3000", "0.0.0.0:8080", "[::1]:9229", "192.168.1.5:80"};
    const Parsed p = parse(policy);
    for (const char* address : {"localhost:*", "localhost:3000", "*:8080", "localhost:9229"}) {
      CHECK(has_rule(p, "allow", "network-bind", "local", address));
      CHECK(has_rule(p, "allow", "network-inbound", "local", address));
    }
    REQUIRE(p.profile.warnings.size() == 1);
    CHECK_THAT(p.profile.warnings[0], Catch::Contains("192.168.1.5:80"));
  }
  SECTION("no bind without allow_network_bind or allow_bind") {
    const Parsed p = parse(policy);
    for (const Rule& r : p.rules) CHECK_FALSE(r.operations.count("network-bind"));
  }
  SECTION("malformed entries are errors naming the entry") {
    policy.network.allow_outbound = {"registry.npmjs.org"};
    CHECK_THROWS_WITH(translate(policy), Catch::Contains("network.allow_outbound[0]") &&
                                             Catch::Contains("registry.npmjs.org"));
  }
}

TEST_CASE("network through pmg's proxy: outbound only to its port", "[seatbelt][translate][network]") {
  Policy policy = base_policy();
  policy.network.allow_outbound = {"registry.npmjs.org:443", "nodejs.org:443"};
  policy.network.deny_outbound = {"*:*", "evil.example.com:443"};
  const Parsed p = parse(policy, mac_fs(), 18080);
  std::vector<std::string> outbound;
  for (const Rule& r : p.rules)
    if (r.action == "allow" && r.operations.count("network-outbound"))
      for (const Node* f : r.filters) outbound.push_back(filter_kind(*f) + " " + filter_text(*f));
  CHECK(outbound == std::vector<std::string>{"remote localhost:18080"});
  CHECK_FALSE(mentions(p, "/private/var/run/mDNSResponder"));  // the proxy resolves names
  CHECK(p.profile.text.find("com.apple.trustd.agent") != std::string::npos);  // TLS still verified
  CHECK(p.profile.warnings.empty());  // the proxy enforces host denies
  for (const Rule& r : p.rules) CHECK_FALSE((r.action == "deny" && r.operations.count("network-outbound")));
}

TEST_CASE("programs: allow_exec may be run and loaded, deny_exec may not", "[seatbelt][translate]") {
  Policy policy = base_policy();
  policy.process.allow_exec = {"/usr/bin/*", "${HOME}/.nvm/versions/node/*/bin/node"};
  policy.process.deny_exec = {"/usr/bin/curl", "/usr/bin/python*"};
  const Parsed p = parse(policy);
  const auto allow = find_rules(p.rules, "allow", "process-exec", "regex", glob_to_regex("/usr/bin/*"));
  REQUIRE(allow.size() == 1);
  CHECK(p.rules[allow[0]].operations.count("file-read*"));
  CHECK_FALSE(has_rule(p, "allow", "process-exec", "regex", glob_to_regex("/usr/bin/*/**")));  // files only
  CHECK(has_rule(p, "allow", "process-exec", "regex", glob_to_regex("/Users/dev/.nvm/versions/node/*/bin/node")));
  const auto curl = find_rules(p.rules, "deny", "process-exec*", "subpath", "/usr/bin/curl");
  REQUIRE(curl.size() == 1);
  CHECK(allow[0] < curl[0]);
  CHECK(has_rule(p, "deny", "process-exec*", "regex", glob_to_regex("/usr/bin/python*")));
}

TEST_CASE("PTY rules only with allow_pty", "[seatbelt][translate]") {
  Policy policy = base_policy();
  const auto pty_rules = [](const Parsed& p) {
    return std::count_if(p.rules.begin(), p.rules.end(),
                         [](const Rule& r) { return r.operations.count("pseudo-tty") > 0; });
  };
  CHECK(pty_rules(parse(policy)) == 0);
  CHECK_FALSE(mentions(parse(policy), "/dev/ptmx"));
  policy.allow_pty = true;
  const Parsed p = parse(policy);
  CHECK(pty_rules(p) == 1);
  CHECK(has_rule(p, "allow", "file-ioctl", "literal", "/dev/ptmx"));
  CHECK(has_rule(p, "allow", "file-write*", "regex", "^/dev/ttys[0-9]+$"));
}

TEST_CASE("Unix sockets: only the listed ones may be connected to", "[seatbelt][translate]") {
  Policy policy = base_policy();
  policy.filesystem.allow_unix_sockets = {"/tmp/agent.sock", "${HOME}/.colima/*/docker.sock"};
  const Parsed p = parse(policy);
  CHECK(has_rule(p, "allow", "network-outbound", "literal", "/tmp/agent.sock"));
  CHECK(has_rule(p, "allow", "network-outbound", "literal", "/private/tmp/agent.sock"));
  CHECK(has_rule(p, "allow", "network-outbound", "regex", glob_to_regex("/Users/dev/.colima/*/docker.sock")));
  // Nothing opens every socket: outbound rules always name an address or a path.
  for (const Rule& r : p.rules)
    if (r.operations.count("network-outbound")) CHECK_FALSE(r.filters.empty());
}

TEST_CASE("expansion errors name the policy entry", "[seatbelt][translate]") {
  Policy policy = base_policy();
  policy.filesystem.allow_write = {"${NOPE}/x"};
  CHECK_THROWS_WITH(translate(policy), Catch::Contains("filesystem.allow_write[0]") && Catch::Contains("NOPE"));
}

TEST_CASE("essentials never open the raw /dev tree or all of /Library", "[seatbelt][translate]") {
  const Parsed p = parse(base_policy());
  CHECK_FALSE(has_rule(p, "allow", "file-read*", "subpath", "/dev"));
  CHECK_FALSE(has_rule(p, "allow", "file-read*", "subpath", "/Library"));
  CHECK_FALSE(has_rule(p, "allow", "file-read*", "subpath", "/Users"));
  CHECK(has_rule(p, "allow", "file-read*", "subpath", "/private/etc"));
  CHECK(has_rule(p, "allow", "file-write*", "literal", "/dev/null"));
}

TEST_CASE("directories above a denied path cannot be moved away", "[seatbelt][translate]") {
  Policy policy = base_policy();
  policy.filesystem.allow_write = {"${CWD}"};
  policy.filesystem.deny_read = {"${HOME}/secrets"};
  policy.filesystem.deny_write = {"/tmp/locked/**/*.lock"};
  const Parsed p = parse(policy);
  const auto unlink_denied = [&](const std::string& dir) {
    return has_rule(p, "deny", "file-write-unlink", "literal", dir);
  };
  // `mv .git x` would take .git/hooks out of its deny; `mv .docker d` would expose config.json.
  CHECK(unlink_denied("/Users/dev/project/.git"));
  CHECK(unlink_denied("/Users/dev/project/.docker"));
  CHECK(unlink_denied("/Users/dev/project/.config/gh") == false);  // the path itself: file-write* deny
  CHECK(unlink_denied("/Users/dev/project/.config"));
  CHECK(unlink_denied("/Users/dev/project"));
  CHECK(unlink_denied("/Users/dev"));
  CHECK(unlink_denied("/Users"));
  CHECK_FALSE(unlink_denied("/"));
  // A glob's literal base directory and everything above it, in both forms.
  CHECK(unlink_denied("/tmp/locked"));
  CHECK(unlink_denied("/private/tmp/locked"));
  CHECK(unlink_denied("/tmp"));
  // Nothing below a glob's base is frozen: node_modules stays removable.
  CHECK_FALSE(unlink_denied("/Users/dev/project/node_modules"));
  // A read-denied path cannot be emptied by moving its files out.
  CHECK(has_rule(p, "deny", "file-write-unlink", "subpath", "/Users/dev/secrets"));
  CHECK(has_rule(p, "deny", "file-read*", "subpath", "/Users/dev/secrets"));
}
