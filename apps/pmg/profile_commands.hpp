#pragma once
// pmg sandbox profile list | show | lint | diff | init: printing only. What a profile is, how it
// resolves, what lint and diff find all come from the core (profile_registry.hpp, profile_lint.hpp,
// profile_diff.hpp).
#include <fcntl.h>
#include <unistd.h>

#include <boost/property_tree/json_parser.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "command_line.hpp"
#include "pmg/access_risks.hpp"
#include "pmg/mandatory.hpp"
#include "pmg/policy_ptree.hpp"
#include "pmg/policy_yaml.hpp"
#include "pmg/profile_diff.hpp"
#include "pmg/profile_lint.hpp"
#include "pmg/sandbox_setup.hpp"
#include "pmg/validation.hpp"
#include "pmg/variables.hpp"

namespace pmg::host {

inline constexpr const char* profile_help = R"(usage:
  pmg sandbox profile list [--json]
  pmg sandbox profile show NAME|PATH [--resolved] [--json]
  pmg sandbox profile lint NAME|PATH [--strict]
  pmg sandbox profile diff A B
  pmg sandbox profile init NEW --from BUILTIN

list   every profile pmg can use: built-in, user (<config dir>/profiles) and policy templates
       (config.yml), where each comes from and which package managers use it
show   the profile as written; --resolved: after inheritance, then expanded for this run, then
       the mandatory denies pmg adds (they cannot be removed)
lint   what the loader rejects (errors) and rules that do not do what they seem to (warnings),
       each with file:line:col; --strict: warnings fail too (exit 1)
diff   rule by rule, what changes when B is used instead of A (both resolved)
init   writes <config dir>/profiles/NEW.yml, a commented profile inheriting from BUILTIN
)";

namespace detail {

inline void print_json(const boost::property_tree::ptree& tree) { boost::property_tree::write_json(std::cout, tree, true); }

// The package managers config.yml runs under the profile `name`.
inline std::vector<std::string> profile_users(const Config& config, const std::string& name) {
  std::vector<std::string> tools;
  for (const auto& [tool, binding] : config.sandbox.policies)
    if (binding.enabled && binding.profile == name) tools.push_back(tool);
  return tools;
}

inline std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n') c = ' ';
  return text;
}

// Reads `--flag`s and exactly `count` positional arguments (options may come anywhere).
struct ProfileArgs {
  std::vector<std::string> positional;
  bool json = false, resolved = false, strict = false;
  std::optional<std::string> from;
};

inline ProfileArgs parse_profile_args(ArgCursor& args, const std::string& command, std::size_t count, bool json,
                                      bool resolved, bool strict, bool from) {
  ProfileArgs out;
  while (!args.done()) {
    if (json && args.flag("--json")) {
      out.json = true;
    } else if (resolved && args.flag("--resolved")) {
      out.resolved = true;
    } else if (strict && args.flag("--strict")) {
      out.strict = true;
    } else if (auto value = from ? args.value("--from") : std::nullopt) {
      out.from = std::move(value);
    } else {
      if (args.at_option()) args.unknown_option();
      out.positional.push_back(args.next());
    }
  }
  if (out.positional.size() != count)
    throw UsageError("pmg sandbox profile " + command + " takes " +
                     (count == 1 ? std::string("one profile (a name or a path)") : std::to_string(count) + " profiles") +
                     ", got " + std::to_string(out.positional.size()) + "; see `pmg sandbox profile --help`");
  return out;
}

}  // namespace detail

inline int profile_list(ArgCursor& args) {
  const auto options = detail::parse_profile_args(args, "list", 0, true, false, false, false);
  const SandboxSetup setup = SandboxSetup::from_process();
  boost::property_tree::ptree json_profiles;
  std::vector<std::vector<std::string>> rows;
  for (const ProfileEntry& entry : setup.registry.list()) {
    // A shadowed entry cannot be named, so it is only parsed; the others are resolved as a run would.
    std::string description, problem;
    try {
      description = !entry.shadowed                         ? setup.registry.resolve(entry.name).description
                    : entry.origin == ProfileOrigin::builtin ? setup.registry.builtin(entry.name).description
                                                             : load_policy_file(entry.source).description;
    } catch (const Error& e) {
      problem = detail::one_line(e.what());
    }
    const std::vector<std::string> users = entry.shadowed ? std::vector<std::string>{} : detail::profile_users(setup.config, entry.name);
    boost::property_tree::ptree p;
    p.put("name", entry.name);
    p.put("origin", std::string(to_string(entry.origin)));
    p.put("source", entry.source);
    p.put("shadowed", entry.shadowed);
    p.put("valid", problem.empty());
    if (!description.empty()) p.put("description", description);
    if (!problem.empty()) p.put("error", problem);
    if (!users.empty()) p.add_child("used_by", string_array(users));
    json_profiles.push_back({"", p});
    std::string note = entry.shadowed ? "shadowed by a template or user profile of the same name"
                       : !problem.empty() ? "INVALID: `pmg sandbox profile lint " + entry.name + "` says why"
                                          : description;
    rows.push_back({entry.name, std::string(to_string(entry.origin)), users.empty() ? "-" : fmt::format("{}", fmt::join(users, ",")),
                    entry.source, note});
  }
  if (options.json) {
    boost::property_tree::ptree tree;
    tree.put("user_profile_dir", setup.config.profile_dir().string());
    tree.add_child("profiles", json_profiles);
    detail::print_json(tree);
    return 0;
  }
  std::size_t name_width = 4, source_width = 6, users_width = 7;
  for (const auto& row : rows) {
    name_width = std::max(name_width, row[0].size());
    users_width = std::max(users_width, row[2].size());
    source_width = std::max(source_width, row[3].size());
  }
  fmt::print("{:<{}}  {:<8}  {:<{}}  {:<{}}  {}\n", "NAME", name_width, "ORIGIN", "USED BY", users_width, "SOURCE",
             source_width, "DESCRIPTION");
  for (const auto& row : rows)
    fmt::print("{:<{}}  {:<8}  {:<{}}  {:<{}}  {}\n", row[0], name_width, row[1], row[2], users_width, row[3],
               source_width, row[4]);
  fmt::print("\nuser profiles: {} (create one: pmg sandbox profile init NAME --from BUILTIN)\n",
             setup.config.profile_dir().string());
  return 0;
}

namespace detail {

inline std::string yaml_list_section(const std::string& key, const std::vector<std::string>& entries) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << key << YAML::Value << YAML::BeginSeq;
  for (const std::string& e : entries) out << e;
  out << YAML::EndSeq << YAML::EndMap;
  return std::string(out.c_str());
}

}  // namespace detail

inline int profile_show(ArgCursor& args) {
  const auto options = detail::parse_profile_args(args, "show", 1, true, true, false, false);
  const SandboxSetup setup = SandboxSetup::from_process();
  const std::string& name = options.positional[0];
  const ProfileEntry entry = setup.registry.find(name);
  const Context& ctx = setup.context;
  const Policy policy = options.resolved ? setup.registry.resolve(name) : setup.registry.load(name);

  if (!options.resolved) {
    if (options.json) {
      boost::property_tree::ptree tree;
      tree.put("origin", std::string(to_string(entry.origin)));
      tree.put("source", entry.source);
      tree.add_child("policy", policy_to_ptree(policy));
      detail::print_json(tree);
    } else {
      fmt::print("# {} ({} profile, {}) as written; --resolved shows it after inheritance\n", policy.name,
                 to_string(entry.origin), entry.source);
      fmt::print("{}", emit_policy_yaml(policy));
    }
    return 0;
  }

  // The expanded section holds only the lists variables appear in.
  Policy expanded_paths;
  expanded_paths.name = policy.name;
  const Policy expanded = expand_policy(policy, ctx);
  expanded_paths.filesystem = expanded.filesystem;
  expanded_paths.process = expanded.process;
  const MandatoryDenies mandatory = mandatory_denies(policy, ctx);
  if (options.json) {
    boost::property_tree::ptree tree, context, denies;
    tree.put("origin", std::string(to_string(entry.origin)));
    tree.put("source", entry.source);
    tree.add_child("policy", policy_to_ptree(policy));
    context.put("home", ctx.home);
    context.put("cwd", ctx.cwd);
    context.put("tmpdir", ctx.tmpdir);
    tree.add_child("context", context);
    tree.add_child("expanded", policy_to_ptree(expanded_paths));
    denies.put("removable", false);
    denies.add_child("deny_read_write", string_array(mandatory.deny_read_write));
    denies.add_child("deny_write", string_array(mandatory.deny_write));
    tree.add_child("mandatory", denies);
    detail::print_json(tree);
    return 0;
  }
  fmt::print("# {} ({} profile, {}) after inheritance{}; variables as written\n", policy.name,
             to_string(entry.origin), entry.source,
             policy.inherits ? " from the built-in " + *policy.inherits : std::string());
  fmt::print("{}", emit_policy_yaml(policy));
  fmt::print("---\n# the same paths expanded for this run: HOME={} CWD={} TMPDIR={}\n", ctx.home, ctx.cwd, ctx.tmpdir);
  fmt::print("{}", emit_policy_yaml(expanded_paths));
  fmt::print("---\n# mandatory denies: NON-REMOVABLE. pmg adds them after every rule above; no profile and no\n"
             "# --sandbox-allow can remove them (credential stores anywhere in CWD and HOME, git hooks{})\n",
             policy.allow_git_config == true ? "" : " and .git/config");
  fmt::print("{}\n", detail::yaml_list_section("deny_read_write", mandatory.deny_read_write));
  fmt::print("{}\n", detail::yaml_list_section("deny_write", mandatory.deny_write));
  return 0;
}

inline int profile_lint(ArgCursor& args) {
  const auto options = detail::parse_profile_args(args, "lint", 1, false, false, true, false);
  const SandboxSetup setup = SandboxSetup::from_process();
  const RealFs fs;
  const char* path = std::getenv("PATH");
  const LintContext lc{setup.context, fs, path_directories(path != nullptr ? path : ""),
                       builtin_path_entries(setup.registry)};
  const LintReport report = lint_profile(setup.registry, options.positional[0], lc);
  for (const LintFinding& f : report.findings) {
    fmt::print("{}: {} [{}] {}\n", f.location(), to_string(f.severity), f.code, f.what);
    fmt::print("    why: {}\n    fix: {}\n", f.why, f.fix);
  }
  const std::size_t errors = report.count(LintSeverity::error);
  const std::size_t warnings = report.count(LintSeverity::warning);
  if (errors == 0 && warnings == 0) {
    fmt::print("{}: no problems found\n", report.source);
    return 0;
  }
  fmt::print("{}: {} error{}, {} warning{}{}\n", report.source, errors, errors == 1 ? "" : "s", warnings,
             warnings == 1 ? "" : "s", errors == 0 && !options.strict ? " (--strict makes warnings fail)" : "");
  return errors > 0 || options.strict ? 1 : 0;
}

inline int profile_diff(ArgCursor& args) {
  const auto options = detail::parse_profile_args(args, "diff", 2, false, false, false, false);
  const SandboxSetup setup = SandboxSetup::from_process();
  const Policy a = setup.registry.resolve(options.positional[0]);
  const Policy b = setup.registry.resolve(options.positional[1]);
  const std::vector<FieldDiff> diff = diff_policies(a, b, setup.context);
  fmt::print("--- {} ({})\n+++ {} ({})\n", a.name, a.source, b.name, b.source);
  if (diff.empty()) {
    fmt::print("no differences: both profiles allow and deny exactly the same\n");
    return 0;
  }
  for (const FieldDiff& d : diff) {
    fmt::print("{}:\n", d.field);
    for (const std::string& entry : d.removed) fmt::print("  - {}\n", entry);
    for (const std::string& entry : d.added) fmt::print("  + {}\n", entry);
  }
  return 0;
}

namespace detail {

inline std::string new_profile_text(const std::string& name, const Policy& parent) {
  std::string pms;
  for (const std::string& pm : parent.package_managers) pms += "  - " + pm + "\n";
  return fmt::format(R"(# User profile "{0}", created by `pmg sandbox profile init {0} --from {1}`.
#
# It inherits every rule of the built-in profile {1} (`pmg sandbox profile show {1}`) and
# adds the entries below. Each list is merged with the parent's list of the same name, so an
# entry can only add to what {1} allows or denies; it never removes a parent's rule.
# Paths are absolute or start with ${{HOME}}, ${{CWD}} or ${{TMPDIR}}; globs: * ? [abc] and **.
# Credential stores (.ssh, .aws, .env, ...) and .git/hooks stay denied whatever this file says.
#
# Use it:   pmg --sandbox-profile={0} <package manager> ...
#           (or set sandbox.policies.<package manager>.profile: {0} in config.yml)
# Check it: pmg sandbox profile lint {0} --strict
#           pmg sandbox profile diff {1} {0}
name: {0}
description: {1} with local additions
inherits: {1}
# The package managers that may run under this profile.
package_managers:
{2}
# Booleans set here replace the parent's value.
# allow_pty: true           # a terminal for interactive prompts
# allow_git_config: true    # let scripts write .git/config (settings there can run code)
# allow_network_bind: true  # let development servers listen on local ports

filesystem:
  # More paths to read, e.g. a tool's configuration:
  allow_read:
    # - ${{HOME}}/.config/my-tool
  # More paths to write, e.g. a build output directory:
  allow_write:
    # - ${{CWD}}/dist/**
  # Paths to hide even where an allow entry would expose them:
  deny_read:
    # - ${{CWD}}/secrets/**
  # Paths to keep read-only:
  deny_write:
    # - ${{CWD}}/package.json

network:
  # More hosts to reach, as host:port:
  allow_outbound:
    # - npm.example.com:443

process:
  # Programs that must not run:
  deny_exec:
    # - /usr/bin/git

environment:
  # More environment variables to pass in (names or name globs):
  allow:
    # - MY_REGISTRY_TOKEN
)",
                     name, parent.name, pms);
}

}  // namespace detail

inline int profile_init(ArgCursor& args) {
  const auto options = detail::parse_profile_args(args, "init", 1, false, false, false, true);
  const std::string& name = options.positional[0];
  if (!options.from) throw UsageError("pmg sandbox profile init needs --from BUILTIN, e.g. --from npm-restrictive");
  if (!is_valid_profile_name(name))
    throw UsageError("\"" + name + "\" is not a valid profile name; use letters, digits, '.', '_' and '-' (e.g. npm-custom)");
  const SandboxSetup setup = SandboxSetup::from_process();
  const ProfileRegistry& registry = setup.registry;
  if (!registry.is_builtin(*options.from))
    throw UsageError("--from " + *options.from + ": not a built-in profile; a profile can inherit only from one of: " +
                     join_names(registry.builtin_names()));
  for (const ProfileEntry& existing : registry.list())
    if (existing.name == name)
      throw Error("a " + std::string(to_string(existing.origin)) + " profile named '" + name + "' already exists (" +
                  existing.source + "); choose another name");
  const std::filesystem::path dir = setup.config.profile_dir();
  const std::filesystem::path file = dir / (name + ".yml");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("cannot create the user profile directory " + dir.string() + ": " + ec.message());
  const std::string text = detail::new_profile_text(name, registry.builtin(*options.from));
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw Error("cannot create " + file.string() + ": " + std::strerror(errno));
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!written) {
    std::filesystem::remove(file, ec);
    throw Error("cannot write " + file.string() + ": " + std::strerror(errno));
  }
  registry.resolve(name);  // what was written must load; a failure here is a bug worth seeing
  fmt::print("created {}\n  inherits {}; edit it to add rules, then:\n  pmg sandbox profile lint {} --strict\n"
             "  pmg --sandbox-profile={} <package manager> ...\n",
             file.string(), *options.from, name, name);
  return 0;
}

inline int sandbox_profile(ArgCursor& args) {
  if (args.done()) throw UsageError("pmg sandbox profile needs a command: list, show, lint, diff or init");
  if (args.flag("--help") || args.flag("-h")) return fmt::print("{}", profile_help), 0;
  const std::string sub = args.next();
  if (args.flag("--help") || args.flag("-h")) return fmt::print("{}", profile_help), 0;
  if (sub == "list") return profile_list(args);
  if (sub == "show") return profile_show(args);
  if (sub == "lint") return profile_lint(args);
  if (sub == "diff") return profile_diff(args);
  if (sub == "init") return profile_init(args);
  throw UsageError("unknown command 'pmg sandbox profile " + sub + "'; use list, show, lint, diff or init");
}

}  // namespace pmg::host
