#pragma once
// Everything a host needs before it can run a command in a sandbox, resolved in one place so
// that every command of every host (run, exec, translate, doctor, ...) decides the same way:
// the config, the plugins, the run context, the profile registry, the backend and the policy.
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmg/config.hpp"
#include "pmg/context.hpp"
#include "pmg/error.hpp"
#include "pmg/event_log.hpp"
#include "pmg/log.hpp"
#include "pmg/overrides.hpp"
#include "pmg/plugin_loader.hpp"
#include "pmg/policy.hpp"
#include "pmg/profile_registry.hpp"

namespace pmg {

#if defined(__APPLE__)
inline constexpr const char* platform_default_backend = "seatbelt";
#else
inline constexpr const char* platform_default_backend = "bubblewrap";
#endif

inline std::filesystem::path event_log_file(const Config& config) { return config.dir / "events.jsonl"; }

struct SandboxSetup {
  Config config;
  PluginSet plugins;
  Context context;
  ProfileRegistry registry;
  EventLog events;

  static SandboxSetup from_process() {
    Config config = load_config(config_dir());
    PluginSet plugins = PluginSet::load(plugin_search_path());
    Context context = Context::from_process();
    ProfileRegistry registry(config.profile_dir(), config.sandbox.policy_templates);
    EventLog events(event_log_file(config));
    return SandboxSetup{std::move(config), std::move(plugins), std::move(context), std::move(registry),
                        std::move(events)};
  }

  // PMG_SANDBOX_BACKEND, else sandbox.backend in config.yml, else the platform's default.
  std::string backend_name() const {
    if (const char* env = std::getenv("PMG_SANDBOX_BACKEND"); env != nullptr && *env != '\0') return env;
    if (config.sandbox.backend) return *config.sandbox.backend;
    return platform_default_backend;
  }

  // The named backend (or the selected one), whether or not it can run here.
  const LoadedBackend& backend(const std::optional<std::string>& requested = std::nullopt) const {
    const std::string name = requested.value_or(backend_name());
    if (const LoadedBackend* b = plugins.find_backend(name)) return *b;
    auto names = plugins.backend_names();
    throw Error(fmt::format("unknown sandbox backend '{}'; available: {} (plugin path: {})", name,
                            names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", ")),
                            plugins.search_path_text()));
  }

  // The selected backend, refusing one that cannot enforce anything here (fail closed). A backend
  // that does not enforce policies at all (a teaching or test backend) runs only when named for
  // this run with PMG_SANDBOX_BACKEND, never as the platform's default or from config.yml.
  const LoadedBackend& available_backend() const {
    const LoadedBackend& b = backend();
    if (!b.record.enforces) {
      const char* named = std::getenv("PMG_SANDBOX_BACKEND");
      if (named == nullptr || b.record.name != named)
        throw Error(fmt::format("the {} backend ({}) does not enforce sandbox policies, so pmg uses it only when "
                                "it is named for the run: PMG_SANDBOX_BACKEND={}",
                                b.record.name, b.record.file.string(), b.record.name));
      log_warn("the {} backend does not enforce sandbox policies: the command runs UNSANDBOXED", b.record.name);
    }
    Availability a = b.backend->probe();
    if (!a.available)
      throw Error(fmt::format("the {} sandbox backend is unavailable: {}{}; pmg will not run the command "
                              "unsandboxed",
                              b.record.name, a.reason, a.fix.empty() ? "" : fmt::format(" (fix: {})", a.fix)));
    return b;
  }

  const LoadedPackageManager& package_manager(std::string_view tool) const {
    if (const LoadedPackageManager* pm = plugins.find_package_manager(tool)) return *pm;
    auto tools = plugins.tool_names();
    throw UsageError(fmt::format("unknown package manager '{}'; pmg knows: {}", tool,
                                 tools.empty() ? std::string("none (no adapter plugins found)")
                                               : fmt::format("{}", fmt::join(tools, ", "))));
  }

  // The profile a package manager runs under: the flag, else sandbox.policies.<tool>.profile.
  std::string profile_name(std::string_view tool, const std::optional<std::string>& flag) const {
    if (flag) return *flag;
    const auto& policies = config.sandbox.policies;
    if (auto it = policies.find(std::string(tool)); it != policies.end() && !it->second.profile.empty())
      return it->second.profile;
    std::string suggestion = package_manager(tool).adapter->default_profile(tool);
    throw Error(fmt::format("no sandbox profile for '{}': add `sandbox.policies.{}.profile: {}` to {} or pass "
                            "--sandbox-profile={}; pmg does not run package managers unsandboxed",
                            tool, tool, suggestion, config.file.string(), suggestion));
  }

  // The resolved policy with runtime overrides applied. A profile bound to a package manager must
  // list it: running pip under an npm profile is almost certainly a mistake.
  Policy policy(const std::string& profile, const std::optional<std::string>& tool,
                const std::vector<Override>& overrides) const {
    Policy resolved = registry.resolve(profile);
    if (tool && std::find(resolved.package_managers.begin(), resolved.package_managers.end(), *tool) ==
                    resolved.package_managers.end())
      throw Error(fmt::format("profile '{}' ({}) does not list '{}' in package_managers ({}); use a profile "
                              "made for {} or add it there",
                              resolved.name, resolved.source, *tool, fmt::join(resolved.package_managers, ", "),
                              *tool));
    for (const auto& warning : apply_overrides(resolved, overrides, context)) log_warn("{}", warning);
    return resolved;
  }

  std::vector<Override> parse_overrides(const std::vector<std::string>& raw) const {
    std::vector<Override> out;
    for (const auto& r : raw) out.push_back(parse_override(r, context));
    return out;
  }
};

}  // namespace pmg
