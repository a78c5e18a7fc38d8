#pragma once
// A pmg adapter for cargo, Rust's package manager, built outside the pmg tree against an installed
// pmg (see CMakeLists.txt beside this file). It tells the host three things: which commands can
// run code from packages, which packages a command names (for the event log), and which profile
// cargo runs under by default.
//
// Why cargo needs a sandbox: compiling a crate runs code from its dependencies. Build scripts
// (build.rs) are programs cargo compiles and runs on the build machine, and procedural macros run
// inside the compiler. Either can read ~/.ssh or plant a git hook the moment `cargo build` starts.
#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/plugin.hpp"

namespace pm_cargo {

// guide:begin cargo-commands
// Built-in cargo commands, with their short aliases. Anything not listed is an alias from a
// .cargo/config.toml or an external `cargo-<name>` program: code we cannot vet, so it is
// treated as `execute` and sandboxed.

// Resolve, download and unpack crates, and write Cargo.lock or cargo's caches. These also run
// the rustc wrapper a project's .cargo/config.toml may name (cargo asks rustc about the target).
inline constexpr auto installing = std::to_array<std::string_view>({
    "install", "uninstall", "add", "remove", "rm", "update", "fetch", "generate-lockfile", "vendor",
    "pkgid"});

// Compile the project, which runs build scripts and procedural macros, and run what was built.
// `metadata` and `tree` compile nothing but run that rustc wrapper too; `package` and `publish`
// build the crate to verify it and may run credential providers named in the config.
inline constexpr auto executing = std::to_array<std::string_view>({
    "build", "b", "check", "c", "test", "t", "bench", "run", "r", "doc", "d", "rustc", "rustdoc",
    "fix", "clippy", "metadata", "tree", "package", "publish", "login", "logout", "owner", "yank"});

// Run no package code and no program a project configures: they read state, query the
// registry's API, or write the files of a new, empty package.
inline constexpr auto read_only = std::to_array<std::string_view>({
    "help", "version", "locate-project", "verify-project", "read-manifest", "search", "report", "new",
    "init"});

// Options that may stand alone before a command (`cargo --version`, `cargo -vV`).
inline constexpr auto read_only_flags = std::to_array<std::string_view>({
    "--version", "-V", "-vV", "--list", "--help", "-h", "-v", "-vv", "-q", "--quiet", "--verbose"});
// guide:end cargo-commands

// Options before the command that take the next argument as their value.
inline constexpr auto global_options_with_value = std::to_array<std::string_view>({
    "--color", "--config", "-Z", "-C", "--explain"});

// Options of install, add, remove, update and uninstall that take the next argument as their
// value, so that value is not mistaken for a crate name.
inline constexpr auto options_with_value = std::to_array<std::string_view>({
    "--version", "--vers", "--git", "--branch", "--tag", "--rev", "--path", "--root", "--index",
    "--registry", "--features", "-F", "--target", "--target-dir", "--profile", "--bin", "--example",
    "-j", "--jobs", "--config", "-Z", "--color", "--message-format", "--manifest-path",
    "--lockfile-path", "--rename", "--base", "--precise", "--package", "-p"});

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

// Where the command is in `cargo [+toolchain] [global options] <command> [args] [-- program args]`;
// args.size() when there is none.
inline std::size_t command_index(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a.starts_with("+")) continue;  // rustup's toolchain selector
    if (contains(global_options_with_value, a)) {
      ++i;  // skip the option's value
      continue;
    }
    if (!a.starts_with("-")) return i;
  }
  return args.size();
}

struct CargoAdapter {
  std::vector<std::string> names() const { return {"cargo"}; }

  std::string default_profile(std::string_view) const { return "cargo-restrictive"; }

  // guide:begin cargo-classify
  pmg::CommandKind classify(std::string_view, const std::vector<std::string>& args) const {
    const std::size_t at = command_index(args);
    if (at == args.size()) {
      // `cargo --version` reads state; `cargo --explain E0308` runs rustc; `cargo` alone prints help.
      const bool flags_only = std::all_of(args.begin(), args.end(), [](const std::string& a) {
        return contains(read_only_flags, a) || a.starts_with("--color=") || a.starts_with("+");
      });
      return flags_only ? pmg::CommandKind::other : pmg::CommandKind::execute;
    }
    const std::string& command = args[at];
    const bool builtin = contains(installing, command) || contains(executing, command);
    // `cargo build --help` only prints help; `cargo run -- --help` runs the program. An external
    // command (`cargo foo --help`) is a program of its own, so it is never taken at its word.
    if (builtin)
      for (std::size_t i = at + 1; i < args.size() && args[i] != "--"; ++i)
        if (args[i] == "--help" || args[i] == "-h") return pmg::CommandKind::other;
    if (contains(installing, command)) return pmg::CommandKind::install;
    if (contains(read_only, command)) return pmg::CommandKind::other;
    return pmg::CommandKind::execute;
  }
  // guide:end cargo-classify

  // Crates named for install, add, remove, uninstall and update (`cargo add serde@1 -F derive`
  // names serde@1); a --git source counts as the package it installs.
  std::vector<std::string> packages(std::string_view, const std::vector<std::string>& args) const {
    const std::size_t at = command_index(args);
    if (at == args.size()) return {};
    const std::string& command = args[at];
    if (command != "install" && command != "add" && command != "remove" && command != "rm" &&
        command != "uninstall" && command != "update")
      return {};
    // For update and uninstall, -p/--package names a crate; for add and remove it names the
    // workspace member to edit.
    const bool package_option_names_crate = command == "update" || command == "uninstall";
    std::vector<std::string> out;
    for (std::size_t i = at + 1; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "--") break;
      if (a.starts_with("-")) {
        const auto equals = a.find('=');
        const std::string name = a.substr(0, equals);
        std::string value;
        if (equals != std::string::npos)
          value = a.substr(equals + 1);
        else if (contains(options_with_value, name) && i + 1 < args.size())
          value = args[++i];
        if (name == "--git" || (package_option_names_crate && (name == "-p" || name == "--package")))
          out.push_back(value);
        continue;
      }
      out.push_back(a);
    }
    return out;
  }

  std::vector<std::vector<std::string>> executables(std::string_view) const { return {{"cargo"}}; }
};

static_assert(pmg::PackageManager<CargoAdapter>);

}  // namespace pm_cargo
