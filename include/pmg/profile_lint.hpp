#pragma once
// `pmg sandbox profile lint`: everything the strict loader rejects (errors), plus rules that load
// fine but do not do what their author meant (warnings). Every finding points at the entry's
// file:line:col and says what is wrong, why it matters and how to fix it.
//
// The checks are pure: the profile as written (with its source positions), the resolved policy,
// the Context, a filesystem view and the user's PATH directories. lint_profile() is the loading
// wrapper the host calls; lint_policy() is what tests feed directly.
#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/access_risks.hpp"
#include "pmg/builtin_profiles_data.hpp"
#include "pmg/context.hpp"
#include "pmg/error.hpp"
#include "pmg/fs_view.hpp"
#include "pmg/glob.hpp"
#include "pmg/mandatory.hpp"
#include "pmg/path.hpp"
#include "pmg/platform_paths.hpp"
#include "pmg/policy.hpp"
#include "pmg/policy_schema.hpp"
#include "pmg/policy_yaml.hpp"
#include "pmg/profile_registry.hpp"
#include "pmg/strict_yaml.hpp"
#include "pmg/variables.hpp"

namespace pmg {

enum class LintSeverity { error, warning };

inline std::string_view to_string(LintSeverity severity) {
  return severity == LintSeverity::error ? "error" : "warning";
}

struct LintFinding {
  LintSeverity severity = LintSeverity::warning;
  // "invalid" (the loader or inheritance rejects the profile), "missing-path", "dead-rule",
  // "opens-home", "writable-path-dir", "writes-shell-startup", "duplicate", "inherited-duplicate",
  // "coarse-glob".
  std::string code;
  std::string source;  // the profile's file, or builtin:NAME
  SourceLocation at;   // line 0: the whole profile
  std::string what;
  std::string why;
  std::string fix;

  std::string location() const { return describe_location(source, at); }
};

struct LintReport {
  std::string source;
  std::vector<LintFinding> findings;

  std::size_t count(LintSeverity severity) const {
    return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(),
                                                  [&](const LintFinding& f) { return f.severity == severity; }));
  }
};

// What the checks may look at besides the profile.
struct LintContext {
  Context context;
  const FsView& fs;
  std::vector<std::string> path_dirs;    // the user's PATH, absolute directories
  std::vector<std::string> known_paths;  // path entries of the built-in profiles, as written
};

// Every filesystem and process entry of the built-in profiles, as written: locations pmg knows to
// exist on some supported system, so missing here is not a typo.
inline std::vector<std::string> builtin_path_entries(const ProfileRegistry& registry) {
  std::vector<std::string> out;
  for (const std::string& name : registry.builtin_names()) {
    const Policy policy = registry.builtin(name);
    for_each_list_field(
        [&](const ListField& field, const std::vector<std::string>& list) {
          if (field.kind == EntryKind::path) out.insert(out.end(), list.begin(), list.end());
        },
        policy);
  }
  return out;
}

namespace detail {

// One entry of the profile as written, with everything the checks need.
struct LintEntry {
  ListField field;
  std::size_t index;
  std::string text;      // as written
  std::string expanded;  // variables expanded (paths only)
  SourceLocation at;
};

inline std::vector<LintEntry> lint_entries(const PolicyDocument& doc, const Context& ctx) {
  std::vector<LintEntry> entries;
  for_each_list_field(
      [&](const ListField& field, const std::vector<std::string>& list) {
        for (std::size_t i = 0; i < list.size(); ++i) {
          const std::string key = field.name() + "[" + std::to_string(i) + "]";
          const auto at = doc.locations.find(key);
          std::string expanded = field.kind == EntryKind::path
                                     ? expand_variables(list[i], ctx, doc.policy.source + ": " + key)
                                     : list[i];
          entries.push_back({field, i, list[i], std::move(expanded),
                             at == doc.locations.end() ? SourceLocation{} : at->second});
        }
      },
      doc.policy);
  return entries;
}

inline std::string in_quotes(std::string_view text) { return "\"" + std::string(text) + "\""; }

// A deny entry that takes effect whatever a profile allows, with its origin for messages.
struct LintDeny {
  std::string expanded;
  std::string described;  // `deny_read entry "${HOME}/x"` or `the mandatory deny "/home/u/.ssh"`
  bool mandatory;
};

// The denies that defeat an allow in `field` (allow_read is defeated by read denies, allow_write
// by read and write denies, allow_exec by exec and read denies).
inline std::vector<LintDeny> denies_against(std::string_view key, const Policy& resolved,
                                            const MandatoryDenies& mandatory, const Context& ctx) {
  std::vector<LintDeny> out;
  const auto user = [&](std::string_view name, const std::vector<std::string>& list) {
    for (const std::string& entry : list)
      out.push_back({expand_variables(entry, ctx, resolved.source), std::string(name) + " entry " + in_quotes(entry), false});
  };
  const auto fixed = [&](const std::vector<std::string>& list) {
    for (const std::string& entry : list) out.push_back({entry, "the mandatory deny " + in_quotes(entry), true});
  };
  fixed(mandatory.deny_read_write);
  if (key == "allow_write") fixed(mandatory.deny_write);
  if (key == "allow_write") user("filesystem.deny_write", resolved.filesystem.deny_write);
  if (key == "allow_exec") user("process.deny_exec", resolved.process.deny_exec);
  user("filesystem.deny_read", resolved.filesystem.deny_read);
  return out;
}

}  // namespace detail

// The warnings for one profile. `doc` is the profile as written; `resolved` is it after
// inheritance (whose denies and mandatory denies decide what is dead); `parent` is the built-in it
// inherits from, if any.
inline std::vector<LintFinding> lint_policy(const PolicyDocument& doc, const Policy& resolved, const Policy* parent,
                                            const LintContext& lc) {
  using detail::in_quotes;
  const Context& ctx = lc.context;
  const std::string& source = doc.policy.source;
  std::vector<LintFinding> findings;
  const auto warn = [&](const detail::LintEntry& e, std::string code, std::string what, std::string why,
                        std::string fix) {
    const std::string here = e.text == e.expanded ? "" : " (here " + e.expanded + ")";
    findings.push_back({LintSeverity::warning, std::move(code), source, e.at,
                        e.field.name() + " entry " + in_quotes(e.text) + here + " " + what, std::move(why),
                        std::move(fix)});
  };
  const std::vector<detail::LintEntry> entries = detail::lint_entries(doc, ctx);
  const MandatoryDenies mandatory = mandatory_denies(resolved, ctx);

  // Duplicates within a list (compared after expansion: ${HOME}/x and /home/u/x are one rule),
  // and entries the parent already has (inherited lists are merged).
  std::map<std::string, const detail::LintEntry*> first;
  std::vector<const detail::LintEntry*> repeated;  // checked once, at their first occurrence
  for (const detail::LintEntry& e : entries) {
    const auto [it, inserted] = first.try_emplace(e.field.name() + "\n" + e.expanded, &e);
    if (!inserted) {
      repeated.push_back(&e);
      warn(e, "duplicate",
           "repeats the entry at line " + std::to_string(it->second->at.line) +
               (it->second->text == e.text ? "" : " (" + in_quotes(it->second->text) + ")"),
           "the second entry has no effect and makes the profile harder to review", "remove one of them");
      continue;
    }
    if (parent == nullptr) continue;
    for_each_list_field(
        [&](const ListField& field, const std::vector<std::string>& list) {
          if (field.name() != e.field.name()) return;
          if (std::find(list.begin(), list.end(), e.text) != list.end())
            warn(e, "inherited-duplicate", "is already in the parent profile " + parent->name,
                 "inherited lists are merged with the parent's, so this entry changes nothing",
                 "remove it (`pmg sandbox profile show " + parent->name + "` lists what is inherited)");
        },
        *parent);
  }

  for (const detail::LintEntry& e : entries) {
    if (e.field.kind != EntryKind::path || std::find(repeated.begin(), repeated.end(), &e) != repeated.end()) continue;
    const std::string key(e.field.key);
    const std::string base = rule_base(e.expanded);

    // A system path (no variable) that this machine lacks, that belongs to no other platform and
    // that no built-in profile names is most likely a typo. Paths under ${HOME}, ${CWD} and
    // ${TMPDIR} are often created by the install itself (node_modules, caches), so they are not
    // judged.
    if (!e.text.starts_with("${") &&
        std::find(lc.known_paths.begin(), lc.known_paths.end(), e.text) == lc.known_paths.end() &&
        !is_other_platform_path(base, ctx) && lc.fs.type(lc.fs.resolve(base)) == FileType::missing)
      warn(e, "missing-path",
           has_glob_chars(e.text) ? "starts from " + base + ", which exists nowhere on this machine"
                                  : "exists nowhere on this machine",
           "a misspelt path grants or denies nothing, and the path actually meant stays as it was",
           "correct the path, or remove the entry");

    // An allow a deny covers grants nothing.
    if (e.field.key.starts_with("allow")) {
      for (const detail::LintDeny& deny : detail::denies_against(key, resolved, mandatory, ctx)) {
        if (!rule_covers(deny.expanded, base)) continue;
        warn(e, "dead-rule", "never takes effect: " + deny.described + " covers it",
             "a deny always wins over an allow, so this entry grants nothing and makes the profile look "
             "more permissive than it is",
             deny.mandatory ? "remove the entry: mandatory denies protect credential stores and git hooks and no "
                              "profile can lift them"
                            : "remove the entry, or remove the deny if the access is intended");
        break;
      }
    }

    if (key == "allow_read" || key == "allow_write") {
      for (const AccessRisk& risk : access_risks(e.expanded, key == "allow_write", ctx, lc.path_dirs)) {
        std::string fix = risk.code == "opens-home"
                              ? "name only the directories the package manager needs, e.g. ${HOME}/.npm/**"
                          : risk.code == "writable-path-dir"
                              ? "remove the entry; a package manager should install programs into the project "
                                "(node_modules/.bin, .venv/bin), not into PATH"
                              : "narrow the entry so it does not cover these files";
        warn(e, risk.code, risk.what, risk.why, std::move(fix));
      }
    }
  }

  // Globs the backend cannot apply match by match in this CWD: bubblewrap (the spec's threshold)
  // then applies the rule to the glob's base directory instead. One walk for all of them.
  std::vector<Glob> globs;
  std::vector<const detail::LintEntry*> glob_entries;
  for (const detail::LintEntry& e : entries) {
    const std::string_view key = e.field.key;
    const bool expanded_by_backend = key == "allow_read" || key == "allow_write" || key == "deny_read" ||
                                     key == "deny_write" || key == "deny_exec";
    if (!expanded_by_backend || !has_glob_chars(e.expanded) || is_whole_tree(e.expanded) ||
        std::find(repeated.begin(), repeated.end(), &e) != repeated.end())
      continue;
    globs.emplace_back(e.expanded);
    glob_entries.push_back(&e);
  }
  if (!globs.empty()) {
    const std::vector<GlobMatches> matches = expand_globs(globs, lc.fs);
    for (std::size_t i = 0; i < globs.size(); ++i) {
      if (!matches[i].truncated) continue;
      const bool allow = glob_entries[i]->field.key.starts_with("allow");
      const std::string base = globs[i].base_directory();
      warn(*glob_entries[i], "coarse-glob",
           "hits the coarse-grained fallback here (" + matches[i].reason + ")",
           "bubblewrap applies a glob with that many matches to its base directory " + base + " instead, so the "
               "rule " + (allow ? "grants all of " + base : "covers all of " + base),
           "narrow the pattern, or name the directories it should cover");
    }
  }

  std::stable_sort(findings.begin(), findings.end(), [](const LintFinding& a, const LintFinding& b) {
    return a.at.line != b.at.line ? a.at.line < b.at.line : a.at.column < b.at.column;
  });
  return findings;
}

namespace detail {

// A loader message "SOURCE:LINE:COL: text" as a finding pointing there.
inline LintFinding invalid_profile_finding(const std::string& message, const std::string& source) {
  LintFinding finding{LintSeverity::error, "invalid", source, {}, message, "pmg refuses to run with this profile",
                      "correct the profile as the message says"};
  if (!message.starts_with(source + ":")) return finding;
  std::size_t pos = source.size() + 1;
  const auto number = [&]() -> std::size_t {
    std::size_t value = 0;
    const std::size_t start = pos;
    while (pos < message.size() && message[pos] >= '0' && message[pos] <= '9') value = value * 10 + (message[pos++] - '0');
    return pos > start ? value : 0;
  };
  const std::size_t line = number();
  if (line == 0 || pos >= message.size() || message[pos] != ':') return finding;
  ++pos;
  const std::size_t column = number();
  if (column == 0 || message.compare(pos, 2, ": ") != 0) return finding;
  finding.at = {line, column};
  finding.what = message.substr(pos + 2);
  return finding;
}

inline std::string builtin_profile_text(std::string_view name) {
  for (const auto& profile : embedded_profiles)
    if (profile.name == name) return std::string(profile.yaml);
  throw Error("'" + std::string(name) + "' is not a built-in profile");
}

}  // namespace detail

// Loads the profile `name_or_path` names (as --sandbox-profile would) and lints it. A profile the
// loader or inheritance rejects yields one error finding and no warnings. An unknown name or an
// unreadable file is an Error: there is nothing to lint.
inline LintReport lint_profile(const ProfileRegistry& registry, std::string_view name_or_path, const LintContext& lc) {
  const ProfileEntry entry = registry.find(name_or_path);
  LintReport report{entry.source, {}};
  const std::string text = entry.origin == ProfileOrigin::builtin ? detail::builtin_profile_text(entry.name)
                                                                  : read_yaml_file(entry.source, "policy file");
  PolicyDocument doc;
  Policy resolved;
  try {
    doc = parse_policy_document(text, entry.source);
    resolved = registry.resolve(name_or_path);
  } catch (const Error& e) {
    report.findings.push_back(detail::invalid_profile_finding(e.what(), entry.source));
    return report;
  }
  std::optional<Policy> parent;
  if (doc.policy.inherits && registry.is_builtin(*doc.policy.inherits)) parent = registry.builtin(*doc.policy.inherits);
  report.findings = lint_policy(doc, resolved, parent ? &*parent : nullptr, lc);
  return report;
}

}  // namespace pmg
