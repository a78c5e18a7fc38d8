#pragma once
// What granting the sandbox access to a path really exposes, beyond the path's name: all of HOME,
// a directory on PATH (a planted program runs the next time its name is typed), or a shell
// startup file (runs in every new shell). Lint warns about profile entries with these risks and
// the denial explainer cautions against suggested flags that carry them, from the same rules.
#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/context.hpp"
#include "pmg/glob.hpp"
#include "pmg/overrides.hpp"
#include "pmg/path.hpp"

namespace pmg {

// True when a policy entry (expanded: an absolute path or glob) covers `path`: a literal entry
// names it or an ancestor, a glob matches it or an ancestor. The same rule --sandbox-allow uses to
// decide what a deny still covers, so every tool agrees on what an entry reaches.
inline bool rule_covers(const std::string& entry, const std::string& path) {
  return detail::deny_covers(entry, path, true);
}

// The directory a rule starts from: the entry itself, or a glob's leading literal directories.
inline std::string rule_base(const std::string& entry) {
  return has_glob_chars(entry) ? Glob(entry).base_directory() : entry;
}

// The absolute directories of a PATH value, normalised; relative entries (".", "") name no fixed
// directory and are skipped.
inline std::vector<std::string> path_directories(std::string_view path_variable) {
  std::vector<std::string> dirs;
  while (true) {
    const std::size_t colon = path_variable.find(':');
    const std::string_view entry = path_variable.substr(0, colon);
    if (!entry.empty() && entry.front() == '/') dirs.push_back(normalize_path(entry));
    if (colon == std::string_view::npos) return dirs;
    path_variable.remove_prefix(colon + 1);
  }
}

// "DIR/**" with a literal DIR: everything below DIR, which every backend applies as DIR itself
// (created before the run when missing), never match by match.
inline bool is_whole_tree(const std::string& entry) {
  return entry.ends_with("/**") && !has_glob_chars(std::string_view(entry).substr(0, entry.size() - 3));
}

// Files every common shell runs at start-up, relative to HOME.
inline constexpr std::array<std::string_view, 14> shell_startup_files{
    ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
    ".zprofile", ".zlogin", ".config/fish/config.fish", ".cshrc", ".tcshrc", ".kshrc", ".mkshrc"};

struct AccessRisk {
  std::string code;  // "opens-home", "writable-path-dir", "writes-shell-startup"
  std::string what;  // what the entry exposes, naming the paths
  std::string why;   // why that matters
};

// The risks of letting the sandbox read (`write` false) or write (`write` true) what `entry`
// (expanded) covers. `path_dirs` are the absolute directories of the user's PATH.
inline std::vector<AccessRisk> access_risks(const std::string& entry, bool write, const Context& ctx,
                                            std::span<const std::string> path_dirs) {
  std::vector<AccessRisk> risks;
  const std::string home = normalize_path(ctx.home);
  // A plain and a hidden file directly in HOME: an entry covering both opens HOME wholesale.
  const bool opens_home = rule_covers(entry, home + "/pmg-probe") && rule_covers(entry, home + "/.pmg-probe");
  if (opens_home)
    risks.push_back(
        {"opens-home", "covers all of HOME (" + home + ")",
         write ? "install scripts could change any file in HOME: shell start-up files, ~/.config/autostart, "
                 "other tools' configuration and tokens that the mandatory denies do not know about"
               : "install scripts could read every file in HOME: shell history, browser profiles, and tokens "
                 "of tools the mandatory denies do not know about"});
  if (!write) return risks;

  const std::string base = rule_base(entry);
  for (const std::string& dir : path_dirs) {
    if (dir.empty() || dir.front() != '/') continue;
    if (rule_covers(entry, join_path(dir, "pmg-probe")) || path_is_within(base, dir))
      risks.push_back({"writable-path-dir", "makes " + dir + " writable, a directory on PATH",
                       "a program written there runs whenever its name is typed: a package could replace "
                       "git, node or ls for every later shell"});
  }
  if (!opens_home) {
    std::vector<std::string> files;
    for (std::string_view file : shell_startup_files) {
      const std::string path = join_path(home, file);
      if (rule_covers(entry, path)) files.push_back(path);
    }
    if (!files.empty()) {
      std::string list;
      for (const std::string& f : files) list += (list.empty() ? "" : ", ") + f;
      risks.push_back({"writes-shell-startup", "makes shell start-up files writable: " + list,
                       "a line added there runs in every new shell, outside any sandbox"});
    }
  }
  return risks;
}

}  // namespace pmg
