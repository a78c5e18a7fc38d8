// Properties every generated profile must have, checked over the built-in profiles and over
// policies made of hostile paths: it is well-formed, policy text never escapes a string literal,
// every regex matches exactly what its glob matches, and every deny follows every allow.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <regex>
#include <set>

#include "pmg/error.hpp"
#include "pmg/glob.hpp"
#include "pmg/mandatory.hpp"
#include "pmg/profile_registry.hpp"
#include "pmg/variables.hpp"
#include "seatbelt_test_support.hpp"

using namespace pmg;
using namespace pmg::seatbelt;
using namespace pmg::seatbelt::test;

namespace {

// Literal paths (no glob characters) and globs, each built to break out of a string or a regex.
const std::vector<std::string> hostile_literals = {
    "/tmp/a\") (allow default) (\"",
    "/tmp/trailing\\",
    "/tmp/semi;colon (allow default)",
    "/tmp/meta.+$|{}()^\\",
    "/tmp/#\"raw\"",
};
const std::vector<std::string> hostile_globs = {
    "/tmp/q\")(allow default)(\"/*.js",
    "/tmp/d.+$|{}()\\;^/**",
    "/tmp/[\"]x*",
    "/tmp/[!a-z]\"*/**",
    "/tmp/#\"r*\"",
    "/tmp/**/a\\b?",
    "/tmp/b\\\") (allow file-write* (subpath \"/\")) (\\",
};

// A policy with every hostile path in every path list.
Policy hostile_policy() {
  Policy p = base_policy();
  std::vector<std::string> all = hostile_literals;
  all.insert(all.end(), hostile_globs.begin(), hostile_globs.end());
  for (auto* list : {&p.filesystem.allow_read, &p.filesystem.allow_write, &p.filesystem.deny_read,
                     &p.filesystem.deny_write, &p.filesystem.allow_unix_sockets, &p.process.allow_exec,
                     &p.process.deny_exec})
    list->insert(list->end(), all.begin(), all.end());
  p.network.allow_outbound = {"registry.npmjs.org:443"};
  p.network.deny_outbound = {"x\")(allow(default)(\".example.com:443"};
  p.allow_pty = true;
  p.allow_network_bind = true;
  return p;
}

// Every symbol the translation may write outside a string. Anything else outside a string
// would be policy text read as code.
const std::set<std::string> vocabulary = {
    "version", "1", "allow", "deny", "default", "with", "message",
    // operations
    "file-read*", "file-write*", "file-write-unlink", "file-read-metadata", "file-ioctl", "process-fork", "process-exec",
    "process-exec*", "process-info*", "signal", "mach-lookup", "sysctl-read", "ipc-posix-sem",
    "network-outbound", "network-bind", "network-inbound", "pseudo-tty",
    // filters
    "subpath", "literal", "regex", "global-name", "sysctl-name", "sysctl-name-prefix", "target",
    "same-sandbox", "remote", "local", "ip"};

struct Case {
  Case(std::string case_name, Policy case_policy, std::optional<std::uint16_t> proxy_port = std::nullopt)
      : name(std::move(case_name)), policy(std::move(case_policy)), proxy(proxy_port) {}
  std::string name;
  Policy policy;
  Context context = mac_context();
  std::optional<std::uint16_t> proxy;
};

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const char* name : {"npm-restrictive", "npx", "pnpm-restrictive", "pypi-restrictive"})
    cases.push_back({name, ProfileRegistry::builtin_only().resolve(name)});
  cases.push_back({"npm-restrictive via proxy", ProfileRegistry::builtin_only().resolve("npm-restrictive"), 18080});
  cases.push_back({"hostile paths", hostile_policy()});
  Case hostile_home{"hostile HOME and CWD", base_policy()};
  hostile_home.context.home = "/Users/x\") (allow default) (\"";
  hostile_home.context.cwd = "/Users/x\") (allow default) (\"/p.+$|{}()\\^";
  hostile_home.policy.filesystem.allow_write = {"${CWD}/**", "${HOME}/.npm"};
  cases.push_back(hostile_home);
  return cases;
}

std::string generate(const Case& c) {
  return translate_to_sbpl(c.policy, c.context, mac_fs(), SbplOptions{test_tag, c.proxy}).text;
}

void check_symbols(const Node& node, int depth_of_default, std::vector<std::string>& unknown, int& defaults) {
  if (node.kind == Node::Kind::symbol) {
    if (!vocabulary.count(node.text)) unknown.push_back(node.text);
    if (node.text == "default") ++defaults;
    return;
  }
  for (const Node& child : node.children) check_symbols(child, depth_of_default, unknown, defaults);
}

// The globs a profile's regexes may come from: every expanded path entry and mandatory deny, in
// each form, with the "/**" extension denies and allows add and the directory of a "/**".
std::map<std::string, std::string> regex_sources(const Case& c) {
  const Policy expanded = expand_policy(c.policy, c.context);
  const MandatoryDenies mandatory = mandatory_denies(c.policy, c.context);
  std::vector<std::string> entries;
  for (const auto* list : {&expanded.filesystem.allow_read, &expanded.filesystem.allow_write,
                           &expanded.filesystem.deny_read, &expanded.filesystem.deny_write,
                           &expanded.filesystem.allow_unix_sockets, &expanded.process.allow_exec,
                           &expanded.process.deny_exec, &mandatory.deny_read_write, &mandatory.deny_write})
    entries.insert(entries.end(), list->begin(), list->end());
  std::map<std::string, std::string> sources;
  const FakeFs fs = mac_fs();
  for (const std::string& entry : entries)
    for (const std::string& form : path_forms(entry, fs))
      for (const std::string& glob : {form, form + "/**",
                                      form.ends_with("/**") ? form.substr(0, form.size() - 3) : form})
        if (has_glob_chars(glob)) sources.emplace(glob_to_regex(glob), glob);
  return sources;
}

// Paths that exercise a glob: its own text with every wildcard replaced by samples (some of
// which contain '/', which no wildcard but ** may match), random mutations, and random suffixes.
std::vector<std::string> sample_paths(const std::string& glob, std::mt19937& rng) {
  const std::vector<std::string> runs = {"", "a", "ab", ".", "a.b", "/", "a/b", "x/y/z", "\"", "\\"};
  const std::string alphabet = "ab./\"\\$|()[]{}+^;-_xyz09 ";
  const auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  std::vector<std::string> out;
  for (int round = 0; round < 120; ++round) {
    const bool mutate = round % 3 == 2;
    std::string path;
    for (std::size_t i = 0; i < glob.size(); ++i) {
      const char c = glob[i];
      if (c == '*') {
        while (i + 1 < glob.size() && glob[i + 1] == '*') ++i;
        path += runs[pick(runs.size())];
      } else if (c == '?') {
        path += alphabet[pick(alphabet.size())];
      } else if (c == '[') {
        std::size_t j = i + 1;
        if (j < glob.size() && (glob[j] == '!' || glob[j] == '^')) ++j;
        if (j < glob.size() && glob[j] == ']') ++j;
        while (j < glob.size() && glob[j] != ']') ++j;
        // Mostly a character written in the class, else any: both matches and misses.
        const std::string members = glob.substr(i + 1, j - i - 1);
        path += !members.empty() && pick(4) != 0 ? members[pick(members.size())] : alphabet[pick(alphabet.size())];
        i = j;
      } else if (mutate && pick(8) == 0) {
        if (pick(2) == 0) path += alphabet[pick(alphabet.size())];  // replaced; else dropped
      } else {
        path += c;
      }
    }
    const std::vector<std::string> suffixes = {"", "", "", "/x", "/x/y", "x"};
    out.push_back(path + suffixes[pick(suffixes.size())]);
  }
  for (int round = 0; round < 20; ++round) {
    std::string random = "/";
    for (std::size_t n = pick(12); n > 0; --n) random += alphabet[pick(alphabet.size())];
    out.push_back(random);
  }
  return out;
}

}  // namespace

TEST_CASE("every generated profile is well-formed and keeps policy text inside strings", "[seatbelt][safety]") {
  for (const Case& c : all_cases()) {
    INFO("case: " << c.name);
    const std::string text = generate(c);
    std::vector<Node> forms;
    REQUIRE_NOTHROW(forms = read_sexprs(text));
    REQUIRE(forms.size() > 2);
    for (const Node& form : forms) CHECK(form.is_list());
    CHECK(forms[0].children.size() == 2);
    CHECK(forms[0].children[0].is_symbol("version"));
    std::vector<std::string> unknown;
    int defaults = 0;
    for (const Node& form : forms) check_symbols(form, 0, unknown, defaults);
    CHECK(unknown == std::vector<std::string>{});
    CHECK(defaults == 1);  // only (deny default ...), never an injected (allow default)
    CHECK(forms[1].children[0].is_symbol("deny"));
    CHECK(forms[1].children[1].is_symbol("default"));
  }
}

TEST_CASE("hostile paths reach the profile intact, as string or regex literals", "[seatbelt][safety]") {
  const Case c{"hostile", hostile_policy()};
  const std::vector<Node> forms = read_sexprs(generate(c));
  std::set<std::string> texts;
  for (const Node& form : forms) {
    std::vector<const Node*> atoms;
    collect_atoms(form, atoms);
    for (const Node* a : atoms)
      if (a->is_text()) texts.insert(a->text);
  }
  for (const std::string& literal : hostile_literals) {
    INFO(literal);
    CHECK(texts.count(literal) == 1);
  }
  for (const std::string& glob : hostile_globs) {
    INFO(glob);
    CHECK(texts.count(glob_to_regex(glob)) == 1);
  }
  // A hostile host name only appears in the warning comment, escaped.
  CHECK(texts.count("x\")(allow(default)(\".example.com:443") == 0);
}

TEST_CASE("a path with a line break cannot add a rule", "[seatbelt][safety]") {
  const std::string hostile = "/tmp/x\n(allow file-write* (subpath \"/\"))";
  SECTION("policy paths with line breaks are refused at expansion") {
    Policy p = base_policy();
    p.filesystem.allow_read = {hostile};
    CHECK_THROWS_AS(translate(p), pmg::Error);
  }
  SECTION("a working directory with a line break is refused too (mandatory denies expand it)") {
    Case c{"newline cwd", base_policy()};
    c.context.cwd = hostile;
    CHECK_THROWS_AS(generate(c), pmg::Error);
  }
  // Were one to get through, sbpl_string writes it as \n inside the literal: sbpl_syntax_test.
}

TEST_CASE("every regex matches exactly what its glob matches", "[seatbelt][safety]") {
  std::mt19937 rng(20240611);  // fixed: a failure must reproduce
  std::size_t checked_regexes = 0, checked_paths = 0;
  for (const Case& c : all_cases()) {
    INFO("case: " << c.name);
    const std::map<std::string, std::string> sources = regex_sources(c);
    const std::vector<Node> forms = read_sexprs(generate(c));  // rules point into these
    for (const Rule& rule : rules_of(forms)) {
      for (const Node* f : rule.filters) {
        if (filter_kind(*f) != "regex") continue;
        const std::string regex = filter_text(*f);
        if (regex == "^/dev/ttys[0-9]+$") continue;  // the one constant regex (PTY devices)
        const auto source = sources.find(regex);
        INFO("regex " << regex);
        REQUIRE(source != sources.end());  // built by glob_to_regex from a policy path, nothing else
        const Glob glob(source->second);
        const std::regex compiled(regex, std::regex::ECMAScript);
        std::size_t matched = 0, unmatched = 0;
        for (const std::string& path : sample_paths(source->second, rng)) {
          INFO("glob " << source->second << " path " << path);
          const bool expected = glob.matches(path);
          CHECK(std::regex_match(path, compiled) == expected);
          (expected ? matched : unmatched)++;
        }
        CHECK(matched > 0);  // the samples really exercise the glob
        CHECK(unmatched > 0);
        ++checked_regexes;
        checked_paths += matched + unmatched;
      }
    }
  }
  CHECK(checked_regexes > 100);
  CHECK(checked_paths > 10000);
}

TEST_CASE("every deny comes after every allow", "[seatbelt][safety]") {
  for (const Case& c : all_cases()) {
    INFO("case: " << c.name);
    const std::vector<Node> forms = read_sexprs(generate(c));
    const std::vector<Rule> rules = rules_of(forms);
    std::size_t last_allow = 0, first_deny = rules.size();
    for (std::size_t i = 1; i < rules.size(); ++i) {  // rule 0 is (deny default)
      if (rules[i].action == "allow") last_allow = i;
      else first_deny = std::min(first_deny, i);
    }
    CHECK(last_allow < first_deny);
    CHECK(first_deny < rules.size());  // at least the mandatory denies

    // From the first mandatory deny on, only mandatory denies and the rename protection follow:
    // no deny the policy wrote comes after them.
    std::set<std::string> mandatory_texts;
    const MandatoryDenies m = mandatory_denies(c.policy, c.context);
    for (const auto* list : {&m.deny_read_write, &m.deny_write})
      for (const std::string& entry : *list)
        for (const std::string& form : path_forms(entry, mac_fs())) {
          mandatory_texts.insert(has_glob_chars(form) ? glob_to_regex(form) : form);
          if (has_glob_chars(form)) mandatory_texts.insert(glob_to_regex(form + "/**"));
        }
    const auto is_mandatory = [&](const Rule& r) {
      return std::any_of(r.filters.begin(), r.filters.end(),
                         [&](const Node* f) { return mandatory_texts.count(filter_text(*f)) > 0; });
    };
    std::size_t first_mandatory = rules.size();
    for (std::size_t i = 1; i < rules.size() && first_mandatory == rules.size(); ++i)
      if (is_mandatory(rules[i])) first_mandatory = i;
    REQUIRE(first_mandatory < rules.size());
    for (std::size_t i = first_mandatory; i < rules.size(); ++i) {
      INFO("rule " << i);
      CHECK(rules[i].action == "deny");
      CHECK((is_mandatory(rules[i]) || rules[i].operations == std::set<std::string>{"file-write-unlink"}));
    }
  }
}
