// Policy YAML loading (strict, positioned errors, hostile input), emitting (order, round trip),
// validation rules, and the "did you mean" helper they use.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "pmg/policy_yaml.hpp"
#include "pmg/suggest.hpp"
#include "pmg/validation.hpp"

namespace {

const std::string policies_dir = std::string(PMG_SOURCE_DIR) + "/tests/fixtures/policies/";

std::string fixture(const std::string& name) { return policies_dir + name; }

pmg::Policy minimal_policy() {
  pmg::Policy p;
  p.name = "minimal";
  p.package_managers = {"npm"};
  p.filesystem.allow_read = {"/usr"};
  return p;
}

}  // namespace

TEST_CASE("a policy with every key is parsed into the model", "[policy_yaml]") {
  const pmg::Policy p = pmg::load_policy_file(fixture("valid_full.yml"));
  CHECK(p.name == "full-example");
  CHECK(p.description == "A policy that sets every key: used by tests");
  CHECK(p.inherits == std::optional<std::string>("npm-restrictive"));
  CHECK(p.package_managers == std::vector<std::string>{"npm", "yarn"});
  CHECK(p.allow_pty == std::optional<bool>(true));
  CHECK(p.allow_git_config == std::optional<bool>(false));
  CHECK(p.allow_network_bind == std::optional<bool>(true));
  CHECK(p.filesystem.allow_read == std::vector<std::string>{"/usr", "${HOME}/.npmrc"});
  CHECK(p.filesystem.allow_write == std::vector<std::string>{"${CWD}/node_modules/**"});
  CHECK(p.filesystem.deny_read == std::vector<std::string>{"${CWD}/secrets/*.pem"});
  CHECK(p.filesystem.deny_write == std::vector<std::string>{"${CWD}/package.json"});
  CHECK(p.filesystem.allow_unix_sockets == std::vector<std::string>{"${TMPDIR}/build.sock"});
  CHECK(p.network.allow_outbound == std::vector<std::string>{"registry.npmjs.org:443", "*.example.com:443"});
  CHECK(p.network.deny_outbound == std::vector<std::string>{"*:*"});
  CHECK(p.network.allow_bind == std::vector<std::string>{"localhost:3000", "[::1]:*"});
  CHECK(p.process.allow_exec == std::vector<std::string>{"/usr/bin/node"});
  CHECK(p.process.deny_exec == std::vector<std::string>{"/usr/bin/curl"});
  CHECK(p.environment.allow == std::vector<std::string>{"NPM_TOKEN", "npm_config_*"});
  CHECK(p.environment.deny == std::vector<std::string>{"GITHUB_TOKEN"});
  CHECK(p.source == fixture("valid_full.yml"));
}

TEST_CASE("unset booleans stay unset and a key with every entry commented out is an empty list", "[policy_yaml]") {
  const pmg::Policy p = pmg::load_policy_file(fixture("commented_out_lists.yml"));
  CHECK_FALSE(p.allow_pty.has_value());
  CHECK_FALSE(p.allow_git_config.has_value());
  CHECK_FALSE(p.allow_network_bind.has_value());
  CHECK_FALSE(p.inherits.has_value());
  CHECK(p.filesystem.allow_read == std::vector<std::string>{"/usr"});
  CHECK(p.filesystem.allow_write.empty());
  CHECK(p.network.allow_outbound.empty());
}

TEST_CASE("the document records where every key and entry is written", "[policy_yaml]") {
  const pmg::PolicyDocument doc = pmg::load_policy_document(fixture("valid_full.yml"));
  CHECK(doc.locations.at("name") == pmg::SourceLocation{2, 1});
  CHECK(doc.locations.at("package_managers[1]") == pmg::SourceLocation{7, 5});
  CHECK(doc.locations.at("filesystem") == pmg::SourceLocation{11, 1});
  CHECK(doc.locations.at("filesystem.allow_read") == pmg::SourceLocation{12, 3});
  CHECK(doc.locations.at("filesystem.allow_read[1]") == pmg::SourceLocation{14, 7});
  CHECK(doc.locations.at("environment.deny[0]") == pmg::SourceLocation{42, 7});
}

struct ErrorCase {
  const char* file;
  const char* expected;  // appended to the fixture's path
};

TEST_CASE("every malformed policy is an error naming file, line and column", "[policy_yaml]") {
  const ErrorCase cases[] = {
      {"unknown_key.yml", ":5:3: unknown key 'allow_wirte' in filesystem; did you mean 'allow_write'?"},
      {"unknown_top_key.yml",
       ":2:1: unknown key 'pakage_managers' at the top level of the policy; did you mean 'package_managers'?"},
      {"unknown_key_no_guess.yml",
       ":4:3: unknown key 'bandwidth' in network; expected one of: allow_outbound, deny_outbound, allow_bind"},
      {"scalar_for_list.yml", ":4:15: filesystem.allow_read must be a list ('- entry' lines), not a scalar"},
      {"list_for_map.yml", ":4:3: filesystem must be a mapping of 'key: value' lines, not a list"},
      {"map_in_list.yml", ":6:7: entries of process.allow_exec must be strings, not a mapping"},
      {"bool_yes.yml", ":3:12: allow_pty must be true or false (unquoted), not 'yes'"},
      {"bool_quoted.yml", ":3:19: allow_git_config must be true or false (unquoted), not the quoted string 'true'"},
      {"name_is_list.yml", ":1:7: name must be a string, not a list"},
      {"duplicate_key.yml", ":6:3: duplicate key 'allow_read' in filesystem"},
      {"duplicate_top_key.yml", ":3:1: duplicate key 'name' at the top level of the policy"},
      {"alias.yml", ":4:15: YAML anchors ('&name') are not allowed"},
      {"alias_bomb.yml", ":3:4: YAML anchors ('&name') are not allowed"},
      {"nul_in_path.yml", ":5:7: filesystem.allow_read: \"/usr/lib\\0/etc/shadow\" contains a control character"},
      {"newline_in_path.yml", ":5:7: filesystem.allow_write: \"${CWD}/a\\n/etc\" contains a control character"},
      {"unknown_variable.yml", ":6:7: filesystem.allow_read: \"${USER}/cache\": unknown variable ${USER}"},
      {"relative_path.yml", ":5:7: filesystem.allow_write: \"node_modules/**\": is not an absolute path"},
      {"tilde_path.yml", ":5:7: filesystem.allow_read: \"~/.npmrc\": '~' is not expanded in policies"},
      {"bad_glob.yml", ":5:7: filesystem.deny_read: glob pattern \"${CWD}/[abc\""},
      {"bad_endpoint.yml", ":5:7: network.allow_outbound: \"registry.npmjs.org\": has no port"},
      {"bad_environment.yml", ":5:7: environment.allow: \"NPM_TOKEN=abc\": contains '='"},
      {"bad_name.yml", ":1:7: name: \"my profile\" is not a valid profile name"},
      {"syntax_error.yml", ":3:11: invalid YAML: end of sequence flow not found"},
      {"multi_document.yml", ":3:1: a second YAML document ('---') is not allowed"},
      {"top_level_list.yml", ":1:1: a policy must be a mapping of keys"},
      {"non_utf8.yml", ":1:10: the file is not valid UTF-8 (byte 0xE9)"},
      {"control_char.yml", ":3:18: the file contains the control character 0x07"},
  };
  for (const ErrorCase& c : cases) {
    INFO(c.file);
    CHECK_THROWS_WITH(pmg::load_policy_file(fixture(c.file)), Catch::Contains(fixture(c.file) + c.expected));
  }
}

TEST_CASE("missing name or package managers is an error naming the file", "[policy_yaml]") {
  CHECK_THROWS_WITH(pmg::load_policy_file(fixture("missing_name.yml")),
                    Catch::StartsWith(fixture("missing_name.yml") + ": the policy has no name"));
  CHECK_THROWS_WITH(pmg::load_policy_file(fixture("missing_package_managers.yml")),
                    Catch::StartsWith(fixture("missing_package_managers.yml") +
                                      ": policy 'no-package-managers' names no package managers"));
  CHECK_THROWS_WITH(pmg::load_policy_file(fixture("empty_package_managers.yml")),
                    Catch::StartsWith(fixture("empty_package_managers.yml") +
                                      ": policy 'no-package-managers' names no package managers"));
  CHECK_THROWS_WITH(pmg::load_policy_file(fixture("empty.yml")),
                    Catch::StartsWith(fixture("empty.yml") + ": the policy is empty"));
  CHECK_THROWS_WITH(pmg::load_policy_file(fixture("inherits_self.yml")),
                    Catch::StartsWith(fixture("inherits_self.yml") + ": policy 'loop' inherits itself"));
}

TEST_CASE("a policy file that cannot be read is an error naming it", "[policy_yaml]") {
  CHECK_THROWS_WITH(pmg::load_policy_file(fixture("does-not-exist.yml")),
                    Catch::Contains("cannot read policy file " + fixture("does-not-exist.yml")));
  CHECK_THROWS_WITH(pmg::load_policy_file(policies_dir),
                    Catch::Contains("cannot read policy file " + policies_dir) && Catch::Contains("not a regular file"));
}

TEST_CASE("hostile documents are refused quickly, never crash", "[policy_yaml]") {
  SECTION("nesting far deeper than any policy") {
    const std::string deep = "name: deep\npackage_managers: [npm]\nfilesystem: " + std::string(100'000, '[') +
                             std::string(100'000, ']') + "\n";
    CHECK_THROWS_WITH(pmg::parse_policy_yaml(deep, "deep.yml"),
                      Catch::StartsWith("deep.yml:3:") && Catch::Contains("nesting deeper than 32 levels"));
  }
  SECTION("deep block nesting") {
    std::string text = "name: deep\npackage_managers: [npm]\n";
    std::string indent;
    for (int i = 0; i < 40; ++i, indent += " ") text += indent + "k" + std::to_string(i) + ":\n";
    CHECK_THROWS_WITH(pmg::parse_policy_yaml(text, "deep.yml"), Catch::Contains("nesting deeper than 32 levels"));
  }
  SECTION("a flat list with more nodes than the limit") {
    std::string text = "name: wide\npackage_managers: [npm]\nfilesystem:\n  allow_read:\n";
    for (int i = 0; i < 25'000; ++i) text += "    - /usr\n";
    CHECK_THROWS_WITH(pmg::parse_policy_yaml(text, "wide.yml"), Catch::Contains("more than 20000 YAML nodes"));
  }
  SECTION("a raw NUL byte in the text") {
    const std::string text("name: a\0b\npackage_managers: [npm]\n", 34);
    CHECK_THROWS_WITH(pmg::parse_policy_yaml(text, "nul.yml"),
                      Catch::StartsWith("nul.yml:1:8: the file contains a NUL byte"));
  }
  SECTION("truncated and overlong UTF-8 sequences") {
    CHECK_THROWS_WITH(pmg::parse_policy_yaml("name: x\xC3", "t.yml"), Catch::StartsWith("t.yml:1:8: the file is not valid UTF-8"));
    CHECK_THROWS_WITH(pmg::parse_policy_yaml("name: \xC0\xAF", "t.yml"), Catch::StartsWith("t.yml:1:7: the file is not valid UTF-8"));
    CHECK_THROWS_WITH(pmg::parse_policy_yaml("name: \xED\xA0\x80", "t.yml"), Catch::StartsWith("t.yml:1:7: the file is not valid UTF-8"));
  }
  SECTION("more than a megabyte") {
    const std::string text = "name: big\ndescription: " + std::string(1024 * 1024, 'x') + "\n";
    CHECK_THROWS_WITH(pmg::parse_policy_yaml(text, "big.yml"), Catch::Contains("at most 1048576 bytes"));
  }
  SECTION("an anchor on a scalar and an alias of it") {
    CHECK_THROWS_WITH(pmg::parse_policy_yaml("name: &n x\ndescription: *n\n", "a.yml"),
                      Catch::StartsWith("a.yml:1:7: YAML anchors"));
  }
  SECTION("YAML merge keys are unknown keys") {
    CHECK_THROWS_WITH(pmg::parse_policy_yaml("name: m\npackage_managers: [npm]\n<<: {allow_pty: true}\n", "m.yml"),
                      Catch::StartsWith("m.yml:3:1: unknown key '<<'"));
  }
}

TEST_CASE("multi-byte UTF-8 text is accepted", "[policy_yaml]") {
  const pmg::Policy p = pmg::parse_policy_yaml(
      "name: unicode\ndescription: \"Café ✓ 🚀\"\npackage_managers: [npm]\nfilesystem:\n  allow_read: [\"/srv/données\"]\n",
      "u.yml");
  CHECK(p.description == "Café ✓ 🚀");
  CHECK(p.filesystem.allow_read == std::vector<std::string>{"/srv/données"});
}

TEST_CASE("emit writes keys in the spec's order and leaves out what is unset", "[policy_yaml]") {
  pmg::Policy p = minimal_policy();
  CHECK(pmg::emit_policy_yaml(p) == "name: minimal\npackage_managers:\n  - npm\nfilesystem:\n  allow_read:\n    - /usr\n");

  const pmg::Policy full = pmg::load_policy_file(fixture("valid_full.yml"));
  const std::string text = pmg::emit_policy_yaml(full);
  const std::vector<std::string> order = {
      "name:", "description:", "inherits:", "package_managers:", "allow_pty:", "allow_git_config:",
      "allow_network_bind:", "filesystem:", "  allow_read:", "  allow_write:", "  deny_read:", "  deny_write:",
      "  allow_unix_sockets:", "network:", "  allow_outbound:", "  deny_outbound:", "  allow_bind:", "process:",
      "  allow_exec:", "  deny_exec:", "environment:", "  allow:", "  deny:"};
  std::size_t previous = 0;
  for (const std::string& key : order) {
    // Searching from the previous key's position fails when a key comes before its predecessor.
    const std::size_t position = key == "name:" ? text.find(key) : text.find("\n" + key, previous);
    INFO(key << "\n" << text);
    REQUIRE(position != std::string::npos);
    previous = position;
  }
  CHECK(text.find("allow_git_config: false") != std::string::npos);
}

TEST_CASE("parse(emit(p)) == p", "[policy_yaml]") {
  SECTION("every key") {
    const pmg::Policy full = pmg::load_policy_file(fixture("valid_full.yml"));
    CHECK(pmg::parse_policy_yaml(pmg::emit_policy_yaml(full), full.source) == full);
  }
  SECTION("strings that need quoting") {
    pmg::Policy p = minimal_policy();
    p.description = "true: [not a list] # not a comment\n- second line 'quoted' \"double\"";
    p.filesystem.allow_read = {"/usr", "${HOME}/dir with spaces/x", "/a/*.js", "/b/**", "/c/[!x]?"};
    p.network.allow_outbound = {"*:*", "*.example.com:443", "[::1]:8080"};
    p.environment.allow = {"*", "npm_config_*"};
    p.allow_pty = false;
    p.source = "round-trip";
    CHECK(pmg::parse_policy_yaml(pmg::emit_policy_yaml(p), "round-trip") == p);
  }
  SECTION("every state of an optional boolean") {
    for (const std::optional<bool> value : {std::optional<bool>(), std::optional<bool>(true), std::optional<bool>(false)}) {
      pmg::Policy p = minimal_policy();
      p.allow_network_bind = value;
      p.source = "b";
      CHECK(pmg::parse_policy_yaml(pmg::emit_policy_yaml(p), "b") == p);
    }
  }
}

TEST_CASE("validate_profile checks policies built in code with the loader's rules", "[validation]") {
  pmg::Policy p = minimal_policy();
  p.source = "code";
  CHECK_NOTHROW(pmg::validate_profile(p));

  pmg::Policy no_name = p;
  no_name.name.clear();
  CHECK_THROWS_WITH(pmg::validate_profile(no_name), Catch::StartsWith("code: the policy has no name"));

  pmg::Policy no_pm = p;
  no_pm.package_managers.clear();
  CHECK_THROWS_WITH(pmg::validate_profile(no_pm), Catch::Contains("names no package managers"));

  pmg::Policy bad_entry = p;
  bad_entry.filesystem.deny_write = {"/ok", "relative"};
  CHECK_THROWS_WITH(pmg::validate_profile(bad_entry),
                    Catch::StartsWith("code: filesystem.deny_write[1]: \"relative\": is not an absolute path"));

  pmg::Policy bad_bind = p;
  bad_bind.network.allow_bind = {"localhost:0"};
  CHECK_THROWS_WITH(pmg::validate_profile(bad_bind), Catch::StartsWith("code: network.allow_bind[0]:"));
}

TEST_CASE("a resolved policy must grant some access", "[validation]") {
  pmg::Policy p = minimal_policy();
  p.source = "empty.yml";
  CHECK(pmg::grants_any_access(p));
  CHECK_NOTHROW(pmg::validate_resolved_policy(p));

  p.filesystem.allow_read.clear();
  p.filesystem.deny_read = {"/etc"};
  p.environment.allow = {"NPM_TOKEN"};  // environment grants no access
  CHECK_FALSE(pmg::grants_any_access(p));
  CHECK_THROWS_WITH(pmg::validate_resolved_policy(p), Catch::StartsWith("empty.yml: policy 'minimal' allows nothing"));

  for (auto add : {+[](pmg::Policy& q) { q.filesystem.allow_write = {"/tmp"}; },
                   +[](pmg::Policy& q) { q.filesystem.allow_unix_sockets = {"/tmp/s"}; },
                   +[](pmg::Policy& q) { q.process.allow_exec = {"/bin/true"}; },
                   +[](pmg::Policy& q) { q.network.allow_outbound = {"a:1"}; },
                   +[](pmg::Policy& q) { q.network.allow_bind = {"localhost:1"}; }}) {
    pmg::Policy q = p;
    add(q);
    CHECK(pmg::grants_any_access(q));
  }
}

TEST_CASE("network entries are host:port", "[validation]") {
  for (const char* good : {"registry.npmjs.org:443", "*:*", "*.example.com:443", "host:*", "[::1]:8080", "10.0.0.1:65535"}) {
    INFO(good);
    CHECK_NOTHROW(pmg::check_endpoint_entry(good, "t"));
  }
  for (const char* bad : {"", "host", ":443", "host:", "host:0", "host:65536", "host:44x", "::1:80", "a b:1", "[::1:80"}) {
    INFO(bad);
    CHECK_THROWS_WITH(pmg::check_endpoint_entry(bad, "t"), Catch::StartsWith("t: \"") && Catch::Contains("host:port"));
  }
}

TEST_CASE("profile names are restricted to what works as a file name and a flag value", "[validation]") {
  for (const char* good : {"npm-restrictive", "a", "my_profile.v2", "9lives"}) CHECK(pmg::is_valid_profile_name(good));
  for (const char* bad : {"", "-x", ".hidden", "a/b", "a b", "..", "x\n"}) CHECK_FALSE(pmg::is_valid_profile_name(bad));
}

TEST_CASE("near-miss names are suggested, distant ones are not", "[suggest]") {
  CHECK(pmg::edit_distance("allow_wirte", "allow_write") == 1);  // a transposition is one edit
  CHECK(pmg::edit_distance("", "abc") == 3);
  CHECK(pmg::edit_distance("kitten", "sitting") == 3);
  const std::vector<std::string> keys = {"allow_read", "allow_write", "deny_read", "deny_write"};
  CHECK(pmg::closest_match("allow_wirte", keys) == std::optional<std::string>("allow_write"));
  CHECK(pmg::closest_match("deny_reed", keys) == std::optional<std::string>("deny_read"));
  CHECK_FALSE(pmg::closest_match("bandwidth", keys).has_value());
  CHECK_FALSE(pmg::closest_match("x", std::vector<std::string>{"y"}).has_value());
}
