#pragma once
// pmg sandbox doctor: can pmg sandbox package managers on this machine, and if not, what exactly
// to run to fix it. Each step the host takes before a run (config, plugins, backend, host
// features, profiles, event log) is tried on its own, so one failure does not hide the others.
// Exit status 0 only when the selected backend works.
#include <boost/property_tree/json_parser.hpp>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "command_line.hpp"
#include "pmg/config.hpp"
#include "pmg/host_diagnostics.hpp"
#include "pmg/plugin_loader.hpp"
#include "pmg/sandbox_setup.hpp"
#include "pmg/version.hpp"

namespace pmg::host {

inline constexpr const char* doctor_help = R"(usage: pmg sandbox doctor [--json]

Checks whether pmg can sandbox package managers here: the config file, the plugins and their ABI,
each backend's availability, what the Linux kernel allows bubblewrap (user namespaces, AppArmor,
seccomp), TMPDIR, the profile each package manager is configured to use, and the event log. Every
failed check comes with the command that fixes it. Exit status 0 only when the selected backend
works.
)";

namespace detail {

// Why this backend is the selected one (sandbox_setup.hpp decides; this only names the source).
inline std::string backend_choice(const Config& config) {
  if (const char* env = std::getenv("PMG_SANDBOX_BACKEND"); env != nullptr && *env != '\0')
    return "selected by PMG_SANDBOX_BACKEND";
  if (config.sandbox.backend) return "selected by sandbox.backend in " + config.file.string();
  return "the platform default";
}

inline std::string search_path_text() {
  std::string text;
  for (const auto& dir : plugin_search_path()) text += (text.empty() ? "" : ":") + dir.string();
  return text;
}

struct DoctorResult {
  std::vector<Check> checks;
  std::string backend;  // the selected backend, if known
  bool works = false;   // the selected backend is loaded and available
};

inline DoctorResult run_doctor() {
  DoctorResult r;
  auto& checks = r.checks;
  std::optional<Config> config;
  try {
    config = load_config(config_dir());
    checks.push_back({"config", CheckStatus::ok,
                      config->from_file ? config->file.string() + " is valid"
                                        : config->file.string() + " does not exist; the embedded default is in use",
                      ""});
  } catch (const Error& e) {
    std::string file;
    try {
      file = (config_dir() / "config.yml").string();
    } catch (const Error&) {
    }
    checks.push_back({"config", CheckStatus::failed, e.what(),
                      file.empty() ? "export PMG_CONFIG_DIR=\"$HOME/.config/pmg\""
                                   : "correct " + file + " where the message points, or set it aside to use the "
                                                         "defaults: mv " + file + " " + file + ".bak"});
  }

  std::optional<PluginSet> plugins;
  try {
    plugins = PluginSet::load(plugin_search_path());
    std::vector<std::string> names;
    for (const auto& b : plugins->backends())
      names.push_back(fmt::format("{} {} (ABI {})", b.record.name, b.record.version, b.record.abi_version));
    for (const auto& pm : plugins->package_managers())
      names.push_back(fmt::format("{} {} (ABI {})", pm.record.name, pm.record.version, pm.record.abi_version));
    if (names.empty())
      checks.push_back({"plugins", CheckStatus::failed,
                        "no plugins in " + search_path_text(),
                        "reinstall pmg, or point PMG_PLUGIN_PATH at the directory holding libpmg-*.so"});
    else
      checks.push_back({"plugins", CheckStatus::ok,
                        fmt::format("{} loaded, host ABI {}: {}", names.size(), plugin_abi_version, fmt::join(names, ", ")),
                        ""});
  } catch (const Error& e) {
    checks.push_back({"plugins", CheckStatus::failed, e.what(),
                      "remove or rebuild the plugin the message names (plugin path: " + search_path_text() + ")"});
  }

  std::optional<Context> context;
  try {
    context = Context::from_process();
  } catch (const Error& e) {
    checks.push_back({"environment", CheckStatus::failed, e.what(), "export HOME=/home/$(id -un)"});
  }
  if (!config || !plugins || !context) return r;

  const ProfileRegistry registry = ProfileRegistry::from_config(*config);
  const EventLog events(event_log_file(*config));
  const SandboxSetup setup{*config, std::move(*plugins), *context, registry, events};
  r.backend = setup.backend_name();
  std::optional<Availability> bubblewrap_probe;
  for (const LoadedBackend& b : setup.plugins.backends()) {
    const Availability a = b.backend->probe();
    if (b.record.name == "bubblewrap") bubblewrap_probe = a;
    const std::string enforcement = b.record.enforces ? "" : ", DOES NOT ENFORCE policies";
    if (b.record.name != r.backend) {
      checks.push_back({"backend " + b.record.name, a.available ? CheckStatus::ok : CheckStatus::info,
                        (a.available ? std::string("available") : "unavailable: " + a.reason) + enforcement +
                            " (not selected)",
                        ""});
      continue;
    }
    // The selected backend is judged by the host's own decision before a run.
    try {
      setup.available_backend();
      r.works = true;
      checks.push_back({"backend " + b.record.name, CheckStatus::ok,
                        "available" + enforcement + " (selected: " + backend_choice(*config) + ")", ""});
    } catch (const Error& e) {
      checks.push_back({"backend " + b.record.name, CheckStatus::failed,
                        std::string(e.what()) + " (selected: " + backend_choice(*config) + ")",
                        !b.record.enforces ? fmt::format("use a backend that enforces: export PMG_SANDBOX_BACKEND={}",
                                                         platform_default_backend)
                                           : a.fix});
    }
  }
  if (!setup.plugins.find_backend(r.backend))
    checks.push_back({"backend " + r.backend, CheckStatus::failed,
                      "selected (" + backend_choice(*config) + ") but no plugin provides it; loaded: " +
                          fmt::format("{}", fmt::join(setup.plugins.backend_names(), ", ")),
                      fmt::format("use one of the loaded backends: export PMG_SANDBOX_BACKEND={}",
                                  setup.plugins.backend_names().empty() ? platform_default_backend
                                                                        : setup.plugins.backend_names().front())});

#if !defined(__APPLE__)
  const char* path = std::getenv("PATH");
  LinuxHostFacts facts = gather_linux_host_facts(setup.context, path != nullptr ? path : "");
  facts.probe = bubblewrap_probe;
  for (Check& c : linux_host_checks(facts)) checks.push_back(std::move(c));
#endif

  // Each configured profile once, with the package managers that use it.
  std::map<std::string, std::vector<std::string>> users;
  for (const auto& [tool, binding] : setup.config.sandbox.policies)
    if (binding.enabled) users[binding.profile].push_back(tool);
  for (const auto& [profile, tools] : users) {
    try {
      for (const std::string& tool : tools) setup.policy(profile, tool, {});
      checks.push_back({"profile " + profile, CheckStatus::ok, fmt::format("resolves, for {}", fmt::join(tools, ", ")), ""});
    } catch (const Error& e) {
      checks.push_back({"profile " + profile, CheckStatus::failed, e.what(),
                        "pmg sandbox profile lint " + profile + "   (then correct what it reports)"});
    }
  }

  try {
    setup.events.check_writable();
    checks.push_back({"event log", CheckStatus::ok, setup.events.file().string() + " is writable", ""});
  } catch (const Error& e) {
    checks.push_back({"event log", CheckStatus::failed, e.what(),
                      "chmod u+w " + setup.events.file().string() + "   (or export PMG_CONFIG_DIR=<a writable directory>)"});
  }
  r.works = r.works && std::none_of(checks.begin(), checks.end(), [](const Check& c) {
              return c.status == CheckStatus::failed && (c.name == "config" || c.name == "plugins");
            });
  return r;
}

}  // namespace detail

inline int sandbox_doctor(ArgCursor& args) {
  bool json = false;
  while (!args.done()) {
    if (args.flag("--help") || args.flag("-h")) return fmt::print("{}", doctor_help), 0;
    if (args.flag("--json")) {
      json = true;
      continue;
    }
    if (args.at_option()) args.unknown_option();
    throw UsageError("unexpected argument '" + args.peek() + "' for pmg sandbox doctor");
  }
  const detail::DoctorResult r = detail::run_doctor();
  if (json) {
    boost::property_tree::ptree tree, list;
    tree.put("version", version);
    tree.put("plugin_abi", plugin_abi_version);
    tree.put("backend", r.backend);
    tree.put("ok", r.works);
    for (const Check& c : r.checks) {
      boost::property_tree::ptree item;
      item.put("name", c.name);
      item.put("status", std::string(to_string(c.status)));
      item.put("detail", c.detail);
      if (!c.fix.empty()) item.put("fix", c.fix);
      list.push_back({"", item});
    }
    tree.add_child("checks", list);
    boost::property_tree::write_json(std::cout, tree, true);
    return r.works ? 0 : 1;
  }
  fmt::print("pmg {} (plugin ABI {})\n\n", version, plugin_abi_version);
  std::size_t width = 0;
  for (const Check& c : r.checks) width = std::max(width, c.name.size());
  for (const Check& c : r.checks) {
    const std::string status = c.status == CheckStatus::failed ? "FAILED" : std::string(to_string(c.status));
    fmt::print("{:<8} {:<{}}  {}\n", status, c.name, width, c.detail);
    if (!c.fix.empty()) fmt::print("{:<8} {:<{}}  fix: {}\n", "", "", width, c.fix);
  }
  if (r.works)
    fmt::print("\npmg can sandbox package managers here: the {} backend works.\n", r.backend);
  else
    fmt::print("\npmg cannot sandbox here{}: fix the FAILED checks above, then run `pmg sandbox doctor` again.\n",
               r.backend.empty() ? "" : " with the " + r.backend + " backend");
  return r.works ? 0 : 1;
}

}  // namespace pmg::host
