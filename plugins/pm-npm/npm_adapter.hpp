#pragma once
// The JavaScript package managers: npm pnpm yarn bun npx pnpx. Classification errs on the side of
// the sandbox: only commands known to read state alone run outside it (when enforce_always is
// off); anything unknown is treated as running package code.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/plugin.hpp"

namespace pmg::npm {

struct ToolCommands {
  std::string_view tool;
  std::string_view profile;
  std::vector<std::string_view> installing;  // fetch packages and run their lifecycle scripts
  std::vector<std::string_view> read_only;   // touch no package code
  pmg::CommandKind bare;                     // what the tool does with no command at all
};

inline const std::vector<ToolCommands>& tool_commands() {
  static const std::vector<ToolCommands> table = {
      {"npm", "npm-restrictive",
       {"install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall", "add",
        "ci", "clean-install", "ic", "install-clean", "isntall-clean", "install-ci-test", "cit", "install-test",
        "it", "update", "up", "upgrade", "udpate", "rebuild", "rb", "dedupe", "ddp", "uninstall", "unlink",
        "remove", "rm", "r", "un", "prune", "link", "ln"},
       {"ls", "list", "la", "ll", "view", "v", "info", "show", "search", "s", "se", "find", "outdated",
        "whoami", "help", "help-search", "explain", "why", "ping", "prefix", "root", "bin", "docs", "home",
        "bugs", "repo", "fund", "query", "-v", "--version", "version", "-h", "--help", "config", "get", "c"},
       pmg::CommandKind::other},
      {"pnpm", "pnpm-restrictive",
       {"install", "i", "add", "update", "up", "upgrade", "remove", "rm", "uninstall", "un", "link", "ln",
        "unlink", "rebuild", "rb", "prune", "import", "fetch", "dedupe", "install-test", "it", "patch-commit"},
       {"ls", "list", "ll", "la", "outdated", "why", "root", "bin", "view", "info", "show", "-v", "--version",
        "-h", "--help", "help", "config", "licenses", "store"},
       pmg::CommandKind::install},
      {"yarn", "npm-restrictive",
       {"install", "add", "upgrade", "up", "remove", "import", "link", "unlink", "unplug", "rebuild",
        "dedupe", "upgrade-interactive"},
       {"list", "info", "why", "outdated", "licenses", "-v", "--version", "-h", "--help", "help", "config",
        "owner", "versions"},
       pmg::CommandKind::install},
      {"bun", "npm-restrictive",
       {"install", "i", "add", "a", "update", "remove", "rm", "link", "unlink", "pm"},
       {"-v", "--version", "-h", "--help", "help", "outdated"},
       pmg::CommandKind::other},
      {"npx", "npx", {}, {"-v", "--version", "-h", "--help"}, pmg::CommandKind::execute},
      {"pnpx", "npx", {}, {"-v", "--version", "-h", "--help"}, pmg::CommandKind::execute},
  };
  return table;
}

inline const ToolCommands& commands_for(std::string_view tool) {
  for (const auto& t : tool_commands())
    if (t.tool == tool) return t;
  throw pmg::Error("internal: the npm adapter does not handle '" + std::string(tool) + "'");
}

inline bool contains(const std::vector<std::string_view>& list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

// The subcommand is the first argument that is not an option; npx and pnpx have none.
inline std::string_view subcommand(std::string_view tool, const std::vector<std::string>& args) {
  if (tool == "npx" || tool == "pnpx") return {};
  for (const auto& a : args)
    if (!a.starts_with("-")) return a;
  return {};
}

struct NpmAdapter {
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& t : tool_commands()) out.emplace_back(t.tool);
    return out;
  }

  std::string default_profile(std::string_view tool) const { return std::string(commands_for(tool).profile); }

  pmg::CommandKind classify(std::string_view tool, const std::vector<std::string>& args) const {
    const ToolCommands& t = commands_for(tool);
    std::string_view cmd = subcommand(tool, args);
    if (cmd.empty()) {
      // `npx --version` reads state; `npx cowsay` runs code.
      if (tool == "npx" || tool == "pnpx")
        return !args.empty() && contains(t.read_only, args.front()) && args.size() == 1
                   ? pmg::CommandKind::other
                   : pmg::CommandKind::execute;
      if (!args.empty() && contains(t.read_only, args.front())) return pmg::CommandKind::other;
      return t.bare;
    }
    if (contains(t.installing, cmd)) return pmg::CommandKind::install;
    if (contains(t.read_only, cmd)) return pmg::CommandKind::other;
    return pmg::CommandKind::execute;  // run, exec, create, test, scripts and anything unknown
  }

  std::vector<std::string> packages(std::string_view tool, const std::vector<std::string>& args) const {
    std::vector<std::string> out;
    std::string_view cmd = subcommand(tool, args);
    bool after_command = cmd.empty();
    for (const auto& a : args) {
      if (!after_command) {
        after_command = (a == cmd);
        continue;
      }
      if (a == "--") break;
      if (a.starts_with("-")) continue;
      out.push_back(a);
      if (tool == "npx" || tool == "pnpx") break;  // the rest are the program's arguments
    }
    if (cmd == "run" || cmd == "run-script" || cmd == "test" || cmd == "start") out.clear();
    return out;
  }

  std::vector<std::vector<std::string>> executables(std::string_view tool) const {
    return {{std::string(tool)}};
  }
};

}  // namespace pmg::npm
