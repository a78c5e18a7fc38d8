#include "mount_plan.hpp"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "mount_table.hpp"
#include "pmg/glob.hpp"
#include "pmg/mandatory.hpp"
#include "pmg/path.hpp"
#include "pmg/variables.hpp"
#include "system_paths.hpp"
#include "visible_fs.hpp"

namespace pmg::bubblewrap {
namespace {

template <class Range>
bool within_any(std::string_view path, const Range& dirs) {
  return std::any_of(std::begin(dirs), std::end(dirs),
                     [&](std::string_view dir) { return path_is_within(path, dir); });
}

// True when `path` or one of its ancestors is in `set` (strict: ancestors only).
bool has_ancestor_in(std::string_view path, const std::set<std::string, std::less<>>& set, bool strict) {
  for (std::string_view p = strict ? MountTable::parent(path) : path; !p.empty(); p = MountTable::parent(p))
    if (set.find(p) != set.end()) return true;
  return false;
}

// "DIR/**" with no other glob character: everything below DIR, which bwrap can only express as
// DIR itself.
std::optional<std::string> whole_tree_base(const std::string& pattern) {
  if (!pattern.ends_with("/**")) return std::nullopt;
  std::string base = pattern.substr(0, pattern.size() - 3);
  if (base.empty()) base = "/";
  if (has_glob_chars(base)) return std::nullopt;
  return base;
}

// One path an allow rule asks the sandbox to expose.
struct AllowEntry {
  std::string lexical;   // as the rule (or the glob walk) names it
  std::string resolved;  // every symlink followed: what bwrap binds
  Access access;
  std::string reason;
  bool missing = false;       // only kept for writable DIR/** rules, created before the run
  bool missing_file = false;  // a writable literal path that does not exist: an empty file is
                              // created before the run (package-lock.json in a new project)
};

enum class DenyEffect { read_only, hide };

struct DenyTarget {
  std::string path;  // resolved
  DenyEffect effect;
  std::string reason;
  bool guard_missing;  // a missing target must not become creatable
  FileType type = FileType::missing;
};

// A policy rule before expansion of its glob: the pattern and what it asks for.
template <class Effect>
struct Rule {
  std::string pattern;
  Effect effect;
  std::string reason;
  bool flag;  // allow: an allow_write rule (a missing DIR/** or file is created); deny: guard a missing target
};

class Planner {
 public:
  Planner(const Policy& policy, const Context& ctx, const FsView& fs, const ProxyEndpoint& proxy)
      : original_(policy), policy_(expand_policy(policy, ctx)), ctx_(ctx), fs_(fs), proxy_(proxy) {}

  MountPlan run() {
    deny_rules_ = collect_deny_rules();
    for (const auto& rule : deny_rules_) {
      if (rule.effect != DenyEffect::hide) continue;
      if (!has_glob_chars(rule.pattern)) hidden_paths_.insert(rule.pattern);
      else if (auto base = whole_tree_base(rule.pattern)) hidden_paths_.insert(*base);
      else hidden_globs_.emplace_back(rule.pattern);
    }
    add_options();
    mount_allows();
    mount_proxy();
    mount_allowed_sockets();
    plan_.mounts.push_back({MountKind::proc, "", "/proc", "a procfs of the sandbox's own PID namespace"});
    plan_.mounts.push_back({MountKind::dev, "", "/dev", "a minimal /dev: null, zero, random, tty, pts"});
    if (!policy_.allow_pty.value_or(false))
      plan_.mounts.push_back({MountKind::hidden_dir, "", "/dev/pts", "allow_pty is not set: no new terminals"});
    apply_denies();
    plan_.mounts.push_back({MountKind::remount_read_only, "", "/", "nothing outside the allowed paths is writable"});
    choose_working_directory();
    return std::move(plan_);
  }

 private:
  // ---- 1. options ------------------------------------------------------------------------------
  void add_options() {
    auto& o = plan_.options;
    o = {"--die-with-parent",
         // No controlling terminal: TIOCSTI cannot push keystrokes into the user's shell
         // (CVE-2017-5226).
         "--new-session"};
    // bwrap keeps every capability for root unless told otherwise; a user namespace makes any
    // capability meaningless outside, and --cap-drop ALL removes them inside (no umount).
    if (ctx_.uid == 0) o.push_back("--unshare-user");
    for (const char* ns : {"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"})
      o.push_back(ns);
    plan_.block_unix_sockets = policy_.filesystem.allow_unix_sockets.empty();
    plan_.notes.push_back(plan_.block_unix_sockets
                              ? "unix sockets: no allow_unix_sockets entries, so socket(AF_UNIX) is refused (seccomp)"
                              : "unix sockets: allowed; the listed sockets are bound, and any socket under a mounted "
                                "path is reachable too");
    plan_.network = plan_network(policy_.network, plan_.block_unix_sockets);
    plan_.notes.push_back("network: " + plan_.network.reason);
    o.push_back("--unshare-net");
    o.push_back("--cap-drop");
    o.push_back("ALL");
  }

  // ---- 3b. the way out to the filtering proxy -----------------------------------------------------
  void mount_proxy() {
    if (!plan_.network.filtered) return;
    // Read-only is enough: connecting to a socket is not a write to its filesystem.
    plan_.mounts.push_back({MountKind::read_only_bind, proxy_.host_dir, sandbox_proxy_dir,
                            "the filtering proxy's socket (allow_outbound)"});
    plan_.mounts.push_back({MountKind::read_only_bind, proxy_.netbridge, sandbox_netbridge,
                            "pmg-netbridge: the sandbox's 127.0.0.1 proxy port, relayed to the socket"});
  }

  // ---- 3c. sockets the policy names ----------------------------------------------------------------
  void mount_allowed_sockets() {
    for (std::size_t i = 0; i < policy_.filesystem.allow_unix_sockets.size(); ++i) {
      const std::string& path = policy_.filesystem.allow_unix_sockets[i];
      const std::string rule = "allow_unix_sockets " + original_.filesystem.allow_unix_sockets[i];
      if (has_glob_chars(path)) {
        plan_.warnings.push_back(rule + ": globs are not supported for sockets on Linux; name the socket's path");
      } else if (fs_.type(path) == FileType::missing) {
        plan_.notes.push_back(rule + ": does not exist, skipped");
      } else {
        plan_.mounts.push_back({MountKind::read_only_bind, path, path, rule});
      }
    }
  }

  // ---- 2. and 3. read-only and writable binds --------------------------------------------------
  void mount_allows() {
    std::vector<Rule<Access>> rules;
    for (std::string_view p : system_paths) rules.push_back({std::string(p), Access::read_only, "system path", false});
    const auto& fs = policy_.filesystem;
    for (std::size_t i = 0; i < fs.allow_read.size(); ++i)
      rules.push_back({fs.allow_read[i], Access::read_only, "allow_read " + original_.filesystem.allow_read[i], false});
    for (std::size_t i = 0; i < fs.allow_write.size(); ++i)
      rules.push_back({fs.allow_write[i], Access::read_write, "allow_write " + original_.filesystem.allow_write[i], true});
    rules.push_back({normalize_path(ctx_.tmpdir), Access::read_write, "TMPDIR is always writable", false});

    std::vector<AllowEntry> entries;
    for_each_path(rules, fs_, true, [&](const Rule<Access>& rule, const std::string& path, bool whole_tree) {
      add_allow(entries, rule, path, whole_tree && rule.flag, !whole_tree && rule.flag);
    });
    select_and_bind(entries);
    for (const AllowEntry& e : entries) mirror_symlinks(e.lexical);
    mirror_symlinks(normalize_path(ctx_.tmpdir));
    mirror_symlinks(normalize_path(ctx_.cwd));
  }

  // Calls `visit(rule, path, whole_tree)` for every path a rule names: itself, or each match of
  // its glob, found by ONE expand_globs walk over `view` for all rules. A glob over the spec's
  // threshold (or another limit) falls back to its base directory.
  // `note_unmatched`: record rules that expose nothing (a deny that matches nothing is normal).
  template <class Effect, class Visit>
  void for_each_path(const std::vector<Rule<Effect>>& rules, const FsView& view, bool note_unmatched,
                     Visit visit) {
    std::vector<Glob> globs;
    std::vector<std::size_t> glob_rule;
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const std::string& pattern = rules[i].pattern;
      if (within_any(pattern, kernel_filesystems)) {
        plan_.notes.push_back(rules[i].reason + ": skipped, bwrap provides /proc and /dev");
        continue;
      }
      if (!has_glob_chars(pattern)) {
        visit(rules[i], pattern, false);
      } else if (auto base = whole_tree_base(pattern)) {
        visit(rules[i], *base, true);
      } else {
        globs.emplace_back(pattern);
        glob_rule.push_back(i);
      }
    }
    if (globs.empty()) return;
    const std::vector<GlobMatches> results = expand_globs(globs, view);
    for (std::size_t g = 0; g < globs.size(); ++g) {
      const Rule<Effect>& rule = rules[glob_rule[g]];
      if (results[g].truncated) {
        const std::string base = globs[g].base_directory();
        plan_.warnings.push_back(rule.reason + ": " + results[g].reason + "; applying it to the whole of " + base +
                                 " instead (coarse fallback)");
        visit(rule, base, true);
        continue;
      }
      if (results[g].paths.empty() && note_unmatched) note_missing(rule.reason, globs[g].base_directory(), "matches nothing");
      for (const std::string& match : results[g].paths) visit(rule, match, false);
    }
  }

  bool is_macos_only(const std::string& path) const {
    return within_any(path, macos_only_roots) || path_is_within(path, join_path(ctx_.home, "Library"));
  }

  void note_missing(const std::string& reason, const std::string& path, std::string_view what) {
    if (is_macos_only(path))
      plan_.notes.push_back(reason + ": skipped, a macOS-only path");
    else
      plan_.notes.push_back(reason + ": skipped, " + std::string(what));
  }

  void add_allow(std::vector<AllowEntry>& entries, const Rule<Access>& rule, const std::string& path,
                 bool create_if_missing, bool create_file_if_missing) {
    AllowEntry e{path, fs_.resolve(path), rule.effect, rule.reason};
    if (within_any(e.resolved, kernel_filesystems)) {
      plan_.notes.push_back(rule.reason + ": skipped, " + path + " leads into /proc or /dev");
      return;
    }
    if (hidden_by_rule(e.resolved)) {
      plan_.notes.push_back(rule.reason + ": skipped, " + path + " resolves to " + e.resolved + ", which is denied");
      return;
    }
    if (fs_.type(e.resolved) == FileType::missing && create_file_if_missing && !is_macos_only(path)) {
      // Only a file directly in an existing directory: a literal rule names one file, and
      // creating directories for it would guess at what the package manager wants.
      if (type_at_run(std::string(MountTable::parent(e.resolved))) != FileType::directory) {
        note_missing(rule.reason, path, "does not exist and its directory does not exist either");
        return;
      }
      e.missing_file = true;
      entries.push_back(std::move(e));
      return;
    }
    if (fs_.type(e.resolved) == FileType::missing) {
      if (!create_if_missing || is_macos_only(path)) {
        note_missing(rule.reason, path, "does not exist");
        return;
      }
      if (!nearest_existing_is_directory(e.resolved)) {
        plan_.notes.push_back(rule.reason + ": skipped, a file is in the way of " + path);
        return;
      }
      e.missing = true;
    }
    entries.push_back(std::move(e));
  }

  // The host's file type, counting the directories launch creates before the run.
  FileType type_at_run(const std::string& path) const {
    const FileType t = fs_.type(path);
    return t == FileType::missing && created_before_run_.count(path) ? FileType::directory : t;
  }

  bool nearest_existing_is_directory(std::string_view path) const {
    for (std::string_view p = MountTable::parent(path); !p.empty(); p = MountTable::parent(p)) {
      const FileType t = type_at_run(std::string(p));
      if (t != FileType::missing) return t == FileType::directory;
    }
    return true;
  }

  // Drops every entry another one already exposes, then binds the rest: read-only ones first,
  // writable ones after, parents before children. An entry whose path as written lies inside a
  // writable entry is dropped too, and never followed through its symlinks: the sandbox could
  // have planted that symlink in an earlier run to point a bind anywhere.
  void select_and_bind(std::vector<AllowEntry>& entries) {
    std::set<std::string, std::less<>> rw_lexical, rw_resolved, ro_resolved;
    for (const AllowEntry& e : entries) {
      (e.access == Access::read_write ? rw_resolved : ro_resolved).insert(e.resolved);
      if (e.access == Access::read_write) rw_lexical.insert(e.lexical);
    }
    std::vector<const AllowEntry*> keep;
    std::unordered_set<std::string> bound;
    for (const AllowEntry& e : entries) {
      const bool rw = e.access == Access::read_write;
      const bool covered =
          has_ancestor_in(e.lexical, rw_lexical, /*strict=*/rw) ||
          has_ancestor_in(e.resolved, rw_resolved, /*strict=*/rw) ||
          (!rw && has_ancestor_in(e.resolved, ro_resolved, /*strict=*/true));
      if (covered || !bound.insert(e.resolved + (rw ? " rw" : " ro")).second) continue;
      keep.push_back(&e);
    }
    std::stable_sort(keep.begin(), keep.end(), [](const AllowEntry* a, const AllowEntry* b) {
      if (a->access != b->access) return a->access == Access::read_only;
      return a->resolved < b->resolved;
    });
    for (const AllowEntry* e : keep) {
      if (e->missing) {
        for (const std::string& dir : missing_chain(e->resolved)) {
          plan_.create_before_run.push_back(dir);
          created_before_run_.insert(dir);
        }
        plan_.notes.push_back(e->reason + ": " + e->resolved + " does not exist yet; created before the run");
      }
      if (e->missing_file) {
        plan_.create_files_before_run.push_back(e->resolved);
        plan_.notes.push_back(e->reason + ": " + e->resolved +
                              " does not exist yet; an empty file is created before the run");
      }
      table_.add(e->resolved, e->access);
      const MountKind kind = e->access == Access::read_write ? MountKind::bind : MountKind::read_only_bind;
      plan_.mounts.push_back({kind, e->resolved, e->resolved, e->reason});
    }
  }

  // The missing directories from the first missing ancestor of `path` down to `path`.
  std::vector<std::string> missing_chain(const std::string& path) const {
    std::vector<std::string> chain;
    for (std::string_view p = path; !p.empty(); p = MountTable::parent(p)) {
      if (type_at_run(std::string(p)) != FileType::missing) break;
      chain.emplace_back(p);
    }
    std::reverse(chain.begin(), chain.end());
    return chain;
  }

  // Binds use resolved paths, so a path reached through a symlink outside every mount (HOME ->
  // /data/home) would not exist in the sandbox: recreate each such symlink as the host has it.
  void mirror_symlinks(std::string path) {
    for (int hops = 0; hops <= FsView::max_symlink_hops; ++hops) {
      std::size_t end = 0;
      bool followed = false;
      while (!followed && end != std::string::npos) {
        end = path.find('/', end + 1);
        const std::string prefix = path.substr(0, end);
        if (table_.innermost(prefix)) return;  // the mount shows the host's entries from here
        const FileType t = fs_.type(prefix);
        if (t == FileType::missing) return;
        if (t != FileType::symlink) continue;
        const std::optional<std::string> target = fs_.read_link(prefix);
        if (!target || target->empty()) return;
        if (mirrored_.insert(prefix).second)
          plan_.mounts.push_back({MountKind::symlink, *target, prefix, "the host's symlink, so " + path + " resolves"});
        const std::string rest = end == std::string::npos ? "" : path.substr(end);
        path = join_path(std::string(MountTable::parent(prefix)), *target) + rest;
        followed = true;
      }
      if (!followed) return;
    }
  }

  // ---- 5. to 7. denies ---------------------------------------------------------------------------
  // A missing target is guarded (given a placeholder so it cannot be created) when writing it is
  // what the rule denies: deny_write, the mandatory .git/hooks and .git/config, and credential
  // paths outside the project, where a created ~/.ssh/authorized_keys, ~/.aws/config or
  // ~/.kube/config would run code or grant access later. Inside the project a placeholder would
  // add nothing a writable project does not already allow, and would break generators that need
  // an empty directory; a missing deny_read or deny_exec target has nothing to read or run.
  std::vector<Rule<DenyEffect>> collect_deny_rules() const {
    const MandatoryDenies mandatory = mandatory_denies(original_, ctx_);
    const std::string cwd = normalize_path(ctx_.cwd);
    const bool cwd_is_home = cwd == normalize_path(ctx_.home);
    std::vector<Rule<DenyEffect>> rules;
    const auto& fs = policy_.filesystem;
    for (std::size_t i = 0; i < fs.deny_write.size(); ++i)
      rules.push_back({fs.deny_write[i], DenyEffect::read_only, "deny_write " + original_.filesystem.deny_write[i], true});
    for (const std::string& p : mandatory.deny_write)
      rules.push_back({p, DenyEffect::read_only, "mandatory write deny " + p, true});
    for (std::size_t i = 0; i < fs.deny_read.size(); ++i)
      rules.push_back({fs.deny_read[i], DenyEffect::hide, "deny_read " + original_.filesystem.deny_read[i], false});
    for (std::size_t i = 0; i < policy_.process.deny_exec.size(); ++i)
      rules.push_back({policy_.process.deny_exec[i], DenyEffect::hide,
                       "deny_exec " + original_.process.deny_exec[i], false});
    if (ctx_.uid == 0)
      for (std::string_view p : root_only_secrets)
        rules.push_back({std::string(p), DenyEffect::hide, "root-only system secret", false});
    for (const std::string& p : mandatory.deny_read_write)
      rules.push_back({p, DenyEffect::hide, "mandatory credential deny " + p, cwd_is_home || !path_is_within(p, cwd)});
    return rules;
  }

  void apply_denies() {
    std::vector<DenyTarget> targets;
    const VisibleFs visible(fs_, table_);
    for_each_path(deny_rules_, visible, false, [&](const Rule<DenyEffect>& rule, const std::string& path, bool) {
      DenyTarget t{fs_.resolve(path), rule.effect, rule.reason, rule.flag};
      if (needs_protection(t)) targets.push_back(std::move(t));
    });
    merge_same_path(targets);
    drop_covered(targets);
    protect_ancestors(targets);
    for (const DenyTarget& t : targets)
      if (t.effect == DenyEffect::read_only) emit_deny(t);
    for (const DenyTarget& t : targets)
      if (t.effect == DenyEffect::hide) emit_deny(t);
  }

  // Whether the sandbox could read or change `t` at all without a deny mount. A missing target
  // that could be created moves to its first missing ancestor: the placeholder goes there.
  bool needs_protection(DenyTarget& t) const {
    if (within_any(t.path, kernel_filesystems) || !table_.visible(t.path)) return false;
    t.type = type_at_run(t.path);
    if (t.type == FileType::missing) {
      if (!t.guard_missing || !table_.writable(t.path) || !nearest_existing_is_directory(t.path)) return false;
      t.path = missing_chain(t.path).front();
      return true;
    }
    if (t.effect == DenyEffect::read_only) return table_.writable(t.path) || table_.has_mount_below(t.path);
    return true;
  }

  // One target per path, at its first rule's place; hiding wins over a read-only re-bind.
  static void merge_same_path(std::vector<DenyTarget>& targets) {
    std::map<std::string, std::size_t, std::less<>> first;
    std::vector<DenyTarget> merged;
    for (DenyTarget& t : targets) {
      auto [it, inserted] = first.try_emplace(t.path, merged.size());
      if (inserted) {
        merged.push_back(std::move(t));
      } else if (t.effect == DenyEffect::hide && merged[it->second].effect != DenyEffect::hide) {
        merged[it->second].effect = DenyEffect::hide;
        merged[it->second].reason = std::move(t.reason);
      }
    }
    targets = std::move(merged);
  }

  // A target inside a hidden one is gone with it; a read-only or missing target inside a
  // read-only one is already protected (and could not be created there).
  static void drop_covered(std::vector<DenyTarget>& targets) {
    std::set<std::string, std::less<>> hidden, read_only;
    for (const DenyTarget& t : targets) (t.effect == DenyEffect::hide ? hidden : read_only).insert(t.path);
    std::erase_if(targets, [&](const DenyTarget& t) {
      if (has_ancestor_in(t.path, hidden, true)) return true;
      const bool needs_own_mount = t.effect == DenyEffect::hide && t.type != FileType::missing;
      return !needs_own_mount && has_ancestor_in(t.path, read_only, true);
    });
  }

  // Binds every directory between the writable mount holding a target and the target onto
  // itself, parents first: a mount point cannot be renamed or removed, so no directory above a
  // target can be moved away and recreated without the deny.
  void protect_ancestors(const std::vector<DenyTarget>& targets) {
    std::set<std::string, std::less<>> read_only;
    for (const DenyTarget& t : targets)
      if (t.effect == DenyEffect::read_only) read_only.insert(t.path);
    std::map<std::string, std::string> dirs;  // sorted: parents first
    for (const DenyTarget& t : targets) {
      if (has_ancestor_in(t.path, read_only, true)) continue;  // nothing can be renamed in there
      const std::string_view parent = MountTable::parent(t.path);
      const auto mount = table_.innermost(parent);
      if (!mount || mount->access != Access::read_write) continue;
      for (std::string_view d = parent; d.size() > mount->dest.size(); d = MountTable::parent(d))
        if (!table_.is_mount_point(d)) dirs.try_emplace(std::string(d), t.path);
    }
    for (const auto& [dir, target] : dirs) {
      plan_.mounts.push_back({MountKind::bind, dir, dir, "a mount point cannot be renamed: protects " + target});
      table_.add(dir, Access::read_write);
    }
  }

  void emit_deny(const DenyTarget& t) {
    if (t.type == FileType::missing) {
      const bool hide = t.effect == DenyEffect::hide;
      plan_.mounts.push_back({hide ? MountKind::hidden_dir : MountKind::read_only_dir, "", t.path,
                              t.reason + " (placeholder: does not exist yet)"});
      plan_.created_mount_points.push_back(t.path);
    } else if (t.effect == DenyEffect::read_only) {
      plan_.mounts.push_back({MountKind::read_only_bind, t.path, t.path, t.reason});
    } else {
      const MountKind kind = t.type == FileType::directory ? MountKind::hidden_dir : MountKind::hidden_file;
      plan_.mounts.push_back({kind, "", t.path, t.reason});
    }
  }

  void choose_working_directory() {
    const std::string cwd = normalize_path(ctx_.cwd);
    const std::string resolved = fs_.resolve(cwd);
    const bool hidden = std::any_of(plan_.mounts.begin(), plan_.mounts.end(), [&](const MountOp& m) {
      return (m.kind == MountKind::hidden_dir || m.kind == MountKind::hidden_file) && path_is_within(resolved, m.dest);
    });
    if (table_.visible(resolved) && !hidden) plan_.chdir = cwd;
    else plan_.notes.push_back("the working directory " + cwd + " is not visible in the sandbox");
  }

  // Whether a hiding rule covers `path`, which an allow rule resolves to: a link in the project
  // pointing at ~/.ssh/id_rsa is not bound at all.
  bool hidden_by_rule(std::string_view path) const {
    for (std::string_view p = path; !p.empty(); p = MountTable::parent(p)) {
      if (hidden_paths_.find(p) != hidden_paths_.end()) return true;
      for (const Glob& g : hidden_globs_)
        if (g.matches(p)) return true;
    }
    return false;
  }

  const Policy& original_;
  Policy policy_;
  const Context& ctx_;
  const FsView& fs_;
  const ProxyEndpoint& proxy_;
  MountPlan plan_;
  MountTable table_;
  std::set<std::string> mirrored_;
  std::set<std::string> created_before_run_;
  std::vector<Rule<DenyEffect>> deny_rules_;
  std::set<std::string, std::less<>> hidden_paths_;
  std::vector<Glob> hidden_globs_;
};

}  // namespace

MountPlan plan_mounts(const Policy& policy, const Context& ctx, const FsView& fs, const ProxyEndpoint& proxy) {
  return Planner(policy, ctx, fs, proxy).run();
}

std::vector<std::string> render_arguments(const MountPlan& plan) {
  std::vector<std::string> args = plan.options;
  const auto add = [&](std::initializer_list<std::string_view> words) {
    for (std::string_view w : words) args.emplace_back(w);
  };
  for (const MountOp& m : plan.mounts) {
    switch (m.kind) {
      case MountKind::read_only_bind: add({"--ro-bind", m.source, m.dest}); break;
      case MountKind::bind: add({"--bind", m.source, m.dest}); break;
      case MountKind::symlink: add({"--symlink", m.source, m.dest}); break;
      case MountKind::read_only_dir: add({"--tmpfs", m.dest, "--remount-ro", m.dest}); break;
      case MountKind::hidden_dir: add({"--perms", "0000", "--tmpfs", m.dest, "--remount-ro", m.dest}); break;
      case MountKind::hidden_file: add({"--ro-bind", "/dev/null", m.dest}); break;
      case MountKind::proc: add({"--proc", m.dest}); break;
      case MountKind::dev: add({"--dev", m.dest}); break;
      case MountKind::remount_read_only: add({"--remount-ro", m.dest}); break;
    }
  }
  if (!plan.chdir.empty()) add({"--chdir", plan.chdir});
  return args;
}

}  // namespace pmg::bubblewrap
