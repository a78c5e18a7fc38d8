#pragma once
// Shared fixtures for the Seatbelt tests: a fixed macOS-like context and filesystem, and a view
// of a generated profile as rules.
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "pmg/context.hpp"
#include "pmg/fs_view.hpp"
#include "pmg/policy.hpp"
#include "sbpl_profile.hpp"
#include "sexpr.hpp"

namespace pmg::seatbelt::test {

inline constexpr const char* test_tag = "GOLDEN0TAG";

// Stands in for /usr/bin/sandbox-exec: records how it was called and the profile file it got
// (a copy keeping its mode, and its path), then runs the command like sandbox-exec would.
inline std::filesystem::path write_fake_sandbox_exec(const std::filesystem::path& dir) {
  const std::filesystem::path script = dir / "fake-sandbox-exec";
  std::ofstream(script) << "#!/bin/sh\n"
                           "[ \"$1\" = -f ] || exit 90\n"
                           "cp -p \"$2\" \"$RECORD/profile\"\n"
                           "printf %s \"$2\" > \"$RECORD/path\"\n"
                           "shift 2\n"
                           "exec \"$@\"\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  return script;
}

// A user on macOS: TMPDIR under /var/folders as macOS sets it.
inline Context mac_context() {
  return Context{"/Users/dev", "/Users/dev/project", "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T", 501, 20};
}

// The parts of a macOS filesystem that change translation: /tmp, /var and /etc are symlinks into
// /private, and /etc/resolv.conf points into /var/run.
inline FakeFs mac_fs() {
  FakeFs fs;
  fs.add_dir("/private/tmp");
  fs.add_dir("/private/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T");
  fs.add_dir("/private/var/run");
  fs.add_dir("/private/etc/ssl");
  fs.add_file("/private/var/run/resolv.conf");
  fs.add_symlink("/private/etc/resolv.conf", "/var/run/resolv.conf");
  fs.add_symlink("/tmp", "private/tmp");
  fs.add_symlink("/var", "private/var");
  fs.add_symlink("/etc", "private/etc");
  fs.add_dir("/Users/dev/project");
  fs.add_dir("/usr/bin");
  return fs;
}

inline SbplProfile translate(const Policy& policy, const FsView& fs = mac_fs(),
                             std::optional<std::uint16_t> proxy_port = std::nullopt) {
  return translate_to_sbpl(policy, mac_context(), fs, SbplOptions{test_tag, proxy_port});
}

// A minimal valid policy to build test cases from.
inline Policy base_policy() {
  Policy p;
  p.name = "test";
  p.package_managers = {"npm"};
  p.source = "test-policy";
  p.filesystem.allow_read = {"/usr"};
  return p;
}

// One top-level rule of a profile: (allow|deny OPERATION... FILTER... [(with message ...)]).
struct Rule {
  std::string action;
  std::set<std::string> operations;
  std::vector<const Node*> filters;  // list nodes such as (subpath "...") or (regex #"...")
  bool has_message = false;
};

inline std::vector<Rule> rules_of(const std::vector<Node>& forms) {
  std::vector<Rule> rules;
  for (const Node& form : forms) {
    if (!form.is_list() || form.children.empty() || form.children[0].kind != Node::Kind::symbol) continue;
    const std::string& head = form.children[0].text;
    if (head != "allow" && head != "deny") continue;
    Rule rule;
    rule.action = head;
    for (std::size_t i = 1; i < form.children.size(); ++i) {
      const Node& child = form.children[i];
      if (child.kind == Node::Kind::symbol) {
        rule.operations.insert(child.text);
      } else if (child.is_list() && !child.children.empty() && child.children[0].is_symbol("with")) {
        rule.has_message = true;
      } else {
        rule.filters.push_back(&child);
      }
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

// The decoded text of a filter such as (subpath "/a") -> "/a".
inline std::string filter_text(const Node& filter) {
  for (const Node& child : filter.children)
    if (child.is_text()) return child.text;
  return {};
}

inline std::string filter_kind(const Node& filter) {
  return filter.children.empty() ? std::string() : filter.children[0].text;
}

}  // namespace pmg::seatbelt::test
