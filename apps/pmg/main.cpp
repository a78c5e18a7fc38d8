// pmg: run package managers in a sandbox. The reference host: it parses the command line, asks
// the core for every decision (config, profile, policy, backend) and prints results.
#include <unistd.h>

#include <boost/dll/runtime_symbol_info.hpp>
#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>

#include "command_line.hpp"
#include "doctor.hpp"
#include "profile_commands.hpp"
#include "violation_commands.hpp"
#include "pmg/environment_filter.hpp"
#include "pmg/executable.hpp"
#include "pmg/process.hpp"
#include "pmg/sandbox_setup.hpp"
#include "pmg/version.hpp"
#include "pmg/violation_capture.hpp"

extern char** environ;

namespace pmg::host {
namespace {

constexpr const char* main_usage = R"(usage:
  pmg [--sandbox] [--sandbox-profile=NAME|PATH] [--sandbox-allow TYPE=VALUE]... [--debug] <pm> [pm args...]
  pmg sandbox exec [--sandbox-profile=NAME|PATH] [--sandbox-allow TYPE=VALUE]... [--pm NAME] -- CMD [ARGS...]
  pmg sandbox translate [--backend=NAME] [--sandbox-profile=NAME|PATH] [--sandbox-allow TYPE=VALUE]... [--pm NAME]
  pmg setup info
  pmg --version | --help | <subcommand> --help
)";

constexpr const char* main_help = R"(
Runs npm, pnpm, yarn, bun, npx, pnpx, pip, pip3, poetry and uv inside an OS sandbox, so an install
script cannot read your credentials (~/.ssh, ~/.aws, .env, ...), plant git hooks, write outside the
paths its profile allows, or run denied programs, while the install itself still works.

options (before <pm>; everything after <pm> goes to the package manager untouched):
  --sandbox                    sandbox this run even if config.yml disables the sandbox
  --sandbox-profile=NAME|PATH  use this profile (built-in, user profile, policy template or file)
  --sandbox-allow TYPE=VALUE   one-off exception, repeatable; TYPE is read, write, exec (paths),
                               net-connect, net-bind (host:port) or env (a variable name)
  --debug                      debug logging (same as APP_LOG_LEVEL=debug)

backends and what has been tested where:
  bubblewrap (Linux)  enforced and attack-tested on Linux (Debian 12), as root and unprivileged:
                      files, credential variables, Unix sockets (seccomp), processes (PID
                      namespace), and the network (own namespace; allow_outbound hosts only,
                      through pmg's filtering proxy)
  seatbelt (macOS)    profile translation, escaping and rule order are tested on Linux; it has not
                      been executed under sandbox-exec in our CI
details: docs/protection.md

environment: PMG_CONFIG_DIR, PMG_PLUGIN_PATH, PMG_SANDBOX_BACKEND, APP_LOG_LEVEL, APP_LOG_FILE
)";

constexpr const char* exec_help = R"(usage: pmg sandbox exec [--sandbox-profile=NAME|PATH] [--sandbox-allow TYPE=VALUE]... [--pm NAME] -- CMD [ARGS...]

Runs any command under a sandbox profile, e.g.
  pmg sandbox exec --sandbox-profile=npm-restrictive -- node test/e2e.js
The profile is required unless --pm names a package manager whose configured profile is used.
)";

constexpr const char* translate_help = R"(usage: pmg sandbox translate [--backend=NAME] [--sandbox-profile=NAME|PATH] [--sandbox-allow TYPE=VALUE]... [--pm NAME]

Prints what the backend would run, without running it: for bubblewrap one argument per line, for
seatbelt the SBPL profile. --backend selects any loaded backend, even one for another platform.
)";

constexpr const char* setup_help = R"(usage: pmg setup info

Prints the config directory and file, profile directories, plugin search path, loaded plugins,
each backend's availability and the event log path.
)";

// Options shared by the run and the sandbox subcommands.
struct SandboxOptions {
  std::optional<std::string> profile;
  std::vector<std::string> allows;
  std::optional<std::string> pm;
  std::optional<std::string> backend;

  // Consumes one option if it is one of ours.
  bool take(ArgCursor& args, bool with_pm, bool with_backend) {
    if (auto v = args.value("--sandbox-profile")) return profile = std::move(v), true;
    if (auto v = args.value("--sandbox-allow")) return allows.push_back(std::move(*v)), true;
    if (with_pm)
      if (auto v = args.value("--pm")) return pm = std::move(v), true;
    if (with_backend)
      if (auto v = args.value("--backend")) return backend = std::move(v), true;
    return false;
  }
};

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}

std::string path_variable() {
  const char* path = std::getenv("PATH");
  return path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
}

std::filesystem::path self_path() { return boost::dll::program_location().string(); }

// The package manager's command line: its executable found on PATH (pmg itself skipped), then
// any fixed arguments the adapter needs (`python3 -m pip`), then the user's arguments.
std::vector<std::string> package_manager_command(const LoadedPackageManager& pm, const std::string& tool,
                                                 const std::vector<std::string>& args) {
  for (const auto& candidate : pm.adapter->executables(tool)) {
    if (candidate.empty()) continue;
    if (auto exe = find_executable(candidate.front(), path_variable(), self_path())) {
      std::vector<std::string> command{exe->string()};
      command.insert(command.end(), candidate.begin() + 1, candidate.end());
      command.insert(command.end(), args.begin(), args.end());
      return command;
    }
  }
  throw Error(fmt::format("cannot find '{}' on PATH ({}); install it or fix PATH", tool, path_variable()));
}

std::vector<std::string> resolve_command(std::vector<std::string> command) {
  auto exe = find_executable(command.front(), path_variable(), self_path());
  if (!exe) throw Error(fmt::format("cannot find '{}' on PATH; give its full path", command.front()));
  command.front() = exe->string();
  return command;
}

int run_unsandboxed(const std::vector<std::string>& command) {
  return run_process({command, current_environment(), {}});
}

struct RunRecord {
  std::optional<std::string> tool;
  std::vector<std::string> args;
  std::vector<std::string> packages;
  std::string profile;
  bool exec = false;  // `pmg sandbox exec`, for the re-run line of `pmg sandbox explain`
};

// The one sandboxed path every command takes: resolve, check, log, launch, log.
int run_sandboxed(const SandboxSetup& setup, const SandboxOptions& options, const std::string& profile,
                  std::vector<std::string> command, RunRecord record) {
  const auto overrides = setup.parse_overrides(options.allows);
  const Policy policy = setup.policy(profile, options.pm, overrides);
  const LoadedBackend& backend = setup.available_backend();
  setup.events.check_writable();

  for (const auto& o : overrides) {
    log_info("runtime override: --sandbox-allow {}", o.raw);
    EventRecord event = make_event("override");
    event.put("raw", o.raw);
    event.put("type_name", std::string(to_string(o.type)));
    event.put("value", o.value);
    event.put("profile", policy.name);
    if (record.tool) event.put("pm", *record.tool);
    setup.events.append(event);
  }

  FilteredEnvironment environment = filter_environment(current_environment(), policy);
  if (!environment.removed.empty())
    log_info("removed from the sandbox's environment: {} (let one through with --sandbox-allow env=NAME)",
             fmt::join(environment.removed, " "));
  LaunchRequest request{policy,           setup.context,         std::move(command), std::move(environment.kept),
                        record.tool.value_or(""), setup.events.file().string()};
  log_debug("sandbox: backend {} profile {} ({}) command {}", backend.record.name, policy.name, policy.source,
            fmt::join(request.command, " "));
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> raw;
  for (const auto& o : overrides) raw.push_back(o.raw);
  RunDescription run;
  run.id = new_run_id();  // also in the "run" record below, to join runs and their violations
  const std::string run_id = run.id;
  run.profile = profile;
  run.profile_source = policy.source;
  run.backend = backend.record.name;
  run.exec = record.exec;
  run.tool = record.tool.value_or("");
  run.args = record.args;
  run.overrides = raw;
  run.cwd = setup.context.cwd;
  const int status = launch_recording_violations([&] { return backend.backend->launch(request); }, policy,
                                                 setup.context, std::move(run), setup.events);
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);

  EventRecord event = make_event("run");
  if (record.tool) event.put("pm", *record.tool);
  put_list(event, "args", record.args);
  put_list(event, "packages", record.packages);
  event.put("profile", policy.name);
  event.put("profile_source", policy.source);
  event.put("backend", backend.record.name);
  put_list(event, "overrides", raw);
  event.put("run_id", run_id);
  event.put("cwd", setup.context.cwd);
  event.put("exit_status", status);
  event.put("duration_ms", elapsed.count());
  setup.events.append(event);
  return status;
}

int run_package_manager(const SandboxOptions& options, bool force_sandbox, const std::string& tool,
                        const std::vector<std::string>& args) {
  const SandboxSetup setup = SandboxSetup::from_process();
  const LoadedPackageManager& pm = setup.package_manager(tool);
  // Bad overrides are an error even on a run that would not be sandboxed.
  setup.parse_overrides(options.allows);
  std::vector<std::string> command = package_manager_command(pm, tool, args);

  const SandboxConfig& config = setup.config.sandbox;
  const auto binding = config.policies.find(tool);
  const bool disabled_for_tool = binding != config.policies.end() && !binding->second.enabled;
  if (!force_sandbox && !config.enabled) {
    log_debug("sandbox disabled by sandbox.enabled: false in {}; running {} directly", setup.config.file.string(),
              tool);
    return run_unsandboxed(command);
  }
  if (!force_sandbox && disabled_for_tool) {
    log_warn("the sandbox is disabled for {} (sandbox.policies.{}.enabled: false in {}); running it UNSANDBOXED",
             tool, tool, setup.config.file.string());
    return run_unsandboxed(command);
  }
  if (!force_sandbox && !config.enforce_always && pm.adapter->classify(tool, args) == CommandKind::other) {
    log_debug("`{} {}` runs no package code; running it without the sandbox (set sandbox.enforce_always: true "
              "to sandbox every command)",
              tool, fmt::join(args, " "));
    return run_unsandboxed(command);
  }

  SandboxOptions with_pm = options;
  with_pm.pm = tool;
  const std::string profile = setup.profile_name(tool, options.profile);
  return run_sandboxed(setup, with_pm, profile, std::move(command),
                       RunRecord{tool, args, pm.adapter->packages(tool, args), profile});
}

int sandbox_exec(ArgCursor& args) {
  SandboxOptions options;
  while (!args.done()) {
    if (args.flag("--")) break;
    if (args.flag("--help") || args.flag("-h")) return fmt::print("{}", exec_help), 0;
    if (options.take(args, true, false)) continue;
    if (args.at_option()) args.unknown_option();
    break;  // the command starts here
  }
  std::vector<std::string> command = args.rest();
  if (command.empty()) throw UsageError("pmg sandbox exec needs a command after --, e.g. `-- node test.js`");
  const SandboxSetup setup = SandboxSetup::from_process();
  if (options.pm) setup.package_manager(*options.pm);
  if (!options.profile && !options.pm)
    throw UsageError("pmg sandbox exec needs --sandbox-profile=NAME|PATH (or --pm NAME to use its profile)");
  const std::string profile = options.pm ? setup.profile_name(*options.pm, options.profile) : *options.profile;
  std::vector<std::string> resolved = resolve_command(command);
  return run_sandboxed(setup, options, profile, std::move(resolved),
                       RunRecord{options.pm, command, {}, profile, true});
}

int sandbox_translate(ArgCursor& args) {
  SandboxOptions options;
  while (!args.done()) {
    if (args.flag("--help") || args.flag("-h")) return fmt::print("{}", translate_help), 0;
    if (options.take(args, true, true)) continue;
    if (args.at_option()) args.unknown_option();
    throw UsageError("unexpected argument '" + args.peek() + "' for pmg sandbox translate");
  }
  const SandboxSetup setup = SandboxSetup::from_process();
  if (options.pm) setup.package_manager(*options.pm);
  if (!options.profile && !options.pm)
    throw UsageError("pmg sandbox translate needs --sandbox-profile=NAME|PATH or --pm NAME");
  const std::string profile = options.pm ? setup.profile_name(*options.pm, options.profile) : *options.profile;
  const LoadedBackend& backend = setup.backend(options.backend);
  const Policy policy = setup.policy(profile, options.pm, setup.parse_overrides(options.allows));
  std::string text = backend.backend->render(policy, setup.context);
  fmt::print("{}{}", text, text.ends_with('\n') ? "" : "\n");
  return 0;
}

int setup_info(ArgCursor& args) {
  if (args.flag("--help") || args.flag("-h")) return fmt::print("{}", setup_help), 0;
  if (!args.done()) throw UsageError("unexpected argument '" + args.peek() + "' for pmg setup info");
  const SandboxSetup setup = SandboxSetup::from_process();
  const Config& c = setup.config;
  fmt::print("pmg {}\n", version);
  fmt::print("config dir:      {}\n", c.dir.string());
  fmt::print("config file:     {} ({})\n", c.file.string(),
             c.from_file ? "in use" : "does not exist; the embedded default is in use");
  fmt::print("sandbox:         {}{}\n", c.sandbox.enabled ? "enabled" : "disabled",
             c.sandbox.enforce_always ? ", every command" : ", install and execute commands");
  fmt::print("profile dirs:    built-in (embedded), {}\n", c.profile_dir().string());
  for (const auto& [name, path] : c.sandbox.policy_templates) fmt::print("policy template: {} -> {}\n", name, path.string());
  fmt::print("plugin path:     {}\n", setup.plugins.search_path_text());
  fmt::print("event log:       {}\n", setup.events.file().string());
  fmt::print("plugins:\n");
  for (const auto& b : setup.plugins.backends())
    fmt::print("  backend          {:<12} {:<8} ABI {}  {}\n", b.record.name, b.record.version, b.record.abi_version,
               b.record.file.string());
  for (const auto& pm : setup.plugins.package_managers())
    fmt::print("  package-manager  {:<12} {:<8} ABI {}  {} ({})\n", pm.record.name, pm.record.version,
               pm.record.abi_version, pm.record.file.string(), fmt::join(pm.tools, " "));
  const std::string selected = setup.backend_name();
  fmt::print("backends:\n");
  for (const auto& b : setup.plugins.backends()) {
    Availability a = b.backend->probe();
    fmt::print("  {:<12} {}{}{}{}\n", b.record.name, a.available ? "available" : "unavailable: " + a.reason,
               !a.available && !a.fix.empty() ? " (fix: " + a.fix + ")" : std::string(),
               b.record.enforces ? "" : ", DOES NOT ENFORCE policies (used only when named: PMG_SANDBOX_BACKEND)",
               b.record.name == selected ? "  [selected]" : "");
  }
  if (!setup.plugins.find_backend(selected))
    fmt::print("  {:<12} selected but not loaded: no such plugin\n", selected);
  return 0;
}

int sandbox_command(ArgCursor& args) {
  if (args.done() || args.flag("--help") || args.flag("-h")) {
    fmt::print("usage: pmg sandbox exec|translate|doctor|profile|violations|explain ... (see `pmg sandbox <command> --help`)\n");
    return args.done() ? 2 : 0;
  }
  std::string sub = args.next();
  if (sub == "exec") return sandbox_exec(args);
  if (sub == "translate") return sandbox_translate(args);
  if (sub == "doctor") return sandbox_doctor(args);
  if (sub == "profile") return sandbox_profile(args);
  if (sub == "violations") return sandbox_violations(args);
  if (sub == "explain") return sandbox_explain(args);
  throw UsageError("unknown command 'pmg sandbox " + sub + "'; use exec, translate, doctor, profile, violations or explain");
}

int main_command(std::vector<std::string> argv) {
  ArgCursor args(std::move(argv), "pmg");
  SandboxOptions options;
  bool force_sandbox = false;
  while (args.at_option()) {
    if (args.flag("--help") || args.flag("-h")) return fmt::print("{}{}", main_usage, main_help), 0;
    if (args.flag("--version")) return fmt::print("pmg {} (plugin ABI {})\n", version, plugin_abi_version), 0;
    if (args.flag("--sandbox")) {
      force_sandbox = true;
      continue;
    }
    if (args.flag("--debug")) {
      // The environment variable reaches plugins too: each has its own copy of the logger.
      ::setenv("APP_LOG_LEVEL", "debug", 1);
      set_log_level(LogLevel::debug);
      continue;
    }
    if (options.take(args, false, false)) continue;
    args.unknown_option();
  }
  if (args.done()) throw UsageError("missing <pm>: tell pmg which package manager to run, e.g. `pmg npm install`");
  std::string first = args.next();
  if (first == "sandbox") return sandbox_command(args);
  if (first == "setup") {
    if (args.flag("--help") || args.flag("-h")) return fmt::print("{}", setup_help), 0;
    if (args.done() || args.next() != "info") throw UsageError("unknown command; use `pmg setup info`");
    return setup_info(args);
  }
  return run_package_manager(options, force_sandbox, first, args.rest());
}

}  // namespace
}  // namespace pmg::host

int main(int argc, char** argv) {
  try {
    return pmg::host::main_command({argv + 1, argv + argc});
  } catch (const pmg::UsageError& e) {
    fmt::print(stderr, "pmg: {}\n{}", e.what(), pmg::host::main_usage);
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "pmg: error: {}\n", e.what());
    return 1;
  }
}
