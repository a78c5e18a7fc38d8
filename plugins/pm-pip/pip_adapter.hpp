#pragma once
// The Python package managers: pip pip3 poetry uv. Building an sdist runs its setup.py, so every
// command that can fetch or build a package is sandboxed; only commands known to read state
// alone are not (when enforce_always is off).
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/plugin.hpp"

namespace pmg::pip {

inline bool contains(std::initializer_list<std::string_view> list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

// Leading words that are not options: `uv pip install x` -> {"pip", "install", "x"}.
inline std::vector<std::string_view> words(const std::vector<std::string>& args) {
  std::vector<std::string_view> out;
  for (const auto& a : args)
    if (!a.starts_with("-")) out.push_back(a);
  return out;
}

struct PipAdapter {
  std::vector<std::string> names() const { return {"pip", "pip3", "poetry", "uv"}; }

  std::string default_profile(std::string_view) const { return "pypi-restrictive"; }

  pmg::CommandKind classify(std::string_view tool, const std::vector<std::string>& args) const {
    auto w = words(args);
    if (tool == "uv" && w.size() >= 2 && w[0] == "pip") w.erase(w.begin());  // uv pip <cmd>
    if (w.empty()) return pmg::CommandKind::other;  // --version, --help
    std::string_view cmd = w[0];
    if (tool == "pip" || tool == "pip3" || (tool == "uv" && args.size() > w.size())) {
      if (contains({"install", "download", "wheel", "uninstall", "sync", "compile"}, cmd))
        return pmg::CommandKind::install;
      if (contains({"list", "show", "freeze", "check", "config", "help", "search", "cache", "debug",
                    "inspect", "index", "hash", "tree"},
                   cmd))
        return pmg::CommandKind::other;
      return pmg::CommandKind::install;
    }
    if (tool == "poetry") {
      if (contains({"install", "add", "update", "lock", "remove", "sync", "build", "self"}, cmd))
        return pmg::CommandKind::install;
      if (contains({"show", "check", "config", "about", "help", "list", "env", "version", "search"}, cmd))
        return pmg::CommandKind::other;
      return pmg::CommandKind::execute;  // run, shell, and unknown
    }
    // uv
    if (contains({"add", "remove", "sync", "lock", "venv", "build", "pip", "python", "export"}, cmd))
      return pmg::CommandKind::install;
    if (contains({"tree", "help", "version", "cache", "self"}, cmd)) return pmg::CommandKind::other;
    return pmg::CommandKind::execute;  // run, tool run, and unknown
  }

  std::vector<std::string> packages(std::string_view tool, const std::vector<std::string>& args) const {
    auto w = words(args);
    if (tool == "uv" && !w.empty() && w[0] == "pip") w.erase(w.begin());
    if (w.empty() || !contains({"install", "add", "download", "wheel"}, w[0])) return {};
    // Skip values of options that take one (-r file, -c file, -e path is itself a package).
    std::vector<std::string> out;
    bool in_command = false;
    bool skip_value = false;
    for (const auto& a : args) {
      if (!in_command) {
        in_command = (a == w[0]);
        continue;
      }
      if (skip_value) {
        skip_value = false;
        continue;
      }
      if (contains({"-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url",
                    "-f", "--find-links", "-t", "--target", "--prefix", "--root", "--python", "--group"},
                   a)) {
        skip_value = true;
        continue;
      }
      if (a.starts_with("-")) continue;
      out.push_back(a);
    }
    return out;
  }

  // Debian ships pip as a module of python3 as well as a script; pyenv-style installs put a shim
  // first on PATH. The script is preferred, the module is the fallback.
  std::vector<std::vector<std::string>> executables(std::string_view tool) const {
    if (tool == "pip" || tool == "pip3") return {{std::string(tool)}, {"python3", "-m", "pip"}};
    return {{std::string(tool)}};
  }
};

}  // namespace pmg::pip
