#pragma once
// The plugin ABI. A plugin author writes a plain class that satisfies `Backend` or
// `PackageManager` and puts one export macro under it:
//
//   struct MyBackend { static constexpr std::string_view name = "mine"; ... };
//   PMG_EXPORT_BACKEND(MyBackend, "1.0.0")
//
// The macro wraps the class in the type-erased interface the host calls and exports, through
// Boost.DLL aliases, a factory and an info record. The host (plugin_loader.hpp) reads the info
// record first and refuses the library when its ABI version differs from the host's.
#include <boost/dll/alias.hpp>
#include <concepts>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/context.hpp"
#include "pmg/policy.hpp"

namespace pmg {

// Bump whenever a type crossing the plugin boundary changes layout or an interface changes.
inline constexpr int plugin_abi_version = 1;

// Read by the host before anything else in the library, so its layout never changes: the ABI
// version comes first and every field is a plain C type.
struct PluginInfo {
  int abi_version;
  const char* kind;  // "backend" or "package-manager"
  const char* name;
  const char* version;
};

inline constexpr const char* plugin_info_symbol = "pmg_plugin_info";
inline constexpr const char* backend_factory_symbol = "pmg_create_backend";
inline constexpr const char* package_manager_factory_symbol = "pmg_create_package_manager";
// Exported by PMG_EXPORT_BACKEND beside the info record, so PluginInfo (and the ABI) stay as they
// are; the host treats a backend without it as one that does not enforce.
inline constexpr const char* backend_enforces_symbol = "pmg_backend_enforces";

// ---------------------------------------------------------------------------------------------
// Backends

struct Availability {
  bool available = false;
  std::string reason;  // why not, in one line ("bwrap not found on PATH")
  std::string fix;     // the command that fixes it ("apt-get install bubblewrap")
};

// Everything a backend needs to run one command in a sandbox.
struct LaunchRequest {
  Policy policy;    // resolved: inheritance and overrides applied, variables not yet expanded
  Context context;  // what ${HOME}, ${CWD}, ${TMPDIR} expand to
  std::vector<std::string> command;      // command[0] is an absolute path
  std::vector<std::string> environment;  // "NAME=value" entries for the sandboxed process
  std::string tool;                      // the package manager's name, empty for `sandbox exec`
  std::string event_log;                 // JSON-lines file for violation records, empty for none
};

template <class T>
concept Backend = requires(const T& backend, const Policy& policy, const Context& context,
                           const LaunchRequest& request) {
  { T::name } -> std::convertible_to<std::string_view>;
  { backend.probe() } -> std::same_as<Availability>;
  // What the backend would run, for `pmg sandbox translate` and the debug log. Pure.
  { backend.render(policy, context) } -> std::same_as<std::string>;
  // Runs the command sandboxed; returns its exit status (128 + signal when killed).
  { backend.launch(request) } -> std::same_as<int>;
};

// Whether a backend applies the policies it is given. A teaching or test backend that does not
// declares `static constexpr bool enforces = false;`; the host then uses it only when the user
// names it for the run, never as a default.
template <class T>
inline constexpr bool backend_enforces = [] {
  if constexpr (requires { T::enforces; })
    return static_cast<bool>(T::enforces);
  else
    return true;
}();

class BackendInterface {
 public:
  virtual ~BackendInterface() = default;
  virtual std::string name() const = 0;
  virtual Availability probe() const = 0;
  virtual std::string render(const Policy& policy, const Context& context) const = 0;
  virtual int launch(const LaunchRequest& request) const = 0;
};

template <Backend T>
class BackendModel final : public BackendInterface {
 public:
  std::string name() const override { return std::string(T::name); }
  Availability probe() const override { return impl_.probe(); }
  std::string render(const Policy& p, const Context& c) const override { return impl_.render(p, c); }
  int launch(const LaunchRequest& r) const override { return impl_.launch(r); }

 private:
  T impl_;
};

// ---------------------------------------------------------------------------------------------
// Package-manager adapters

enum class CommandKind {
  install,  // fetches packages and may run their scripts (npm install, pip install)
  execute,  // runs package code (npx, npm exec, npm run)
  other,    // reads state only (npm ls, pip list); sandboxed only under enforce_always
};

template <class T>
concept PackageManager = requires(const T& pm, std::string_view tool,
                                  const std::vector<std::string>& args) {
  // Command names this adapter answers to ("npm", "npx", ...).
  { pm.names() } -> std::same_as<std::vector<std::string>>;
  { pm.default_profile(tool) } -> std::same_as<std::string>;
  { pm.classify(tool, args) } -> std::same_as<CommandKind>;
  // Package specs named on the command line, for the event log.
  { pm.packages(tool, args) } -> std::same_as<std::vector<std::string>>;
  // The executable names to look for on PATH, in order ("pip" then "pip3" ...), and arguments
  // to put before the user's (so `pip` can run as `python3 -m pip`).
  { pm.executables(tool) } -> std::same_as<std::vector<std::vector<std::string>>>;
};

class PackageManagerInterface {
 public:
  virtual ~PackageManagerInterface() = default;
  virtual std::vector<std::string> names() const = 0;
  virtual std::string default_profile(std::string_view tool) const = 0;
  virtual CommandKind classify(std::string_view tool, const std::vector<std::string>& args) const = 0;
  virtual std::vector<std::string> packages(std::string_view tool,
                                            const std::vector<std::string>& args) const = 0;
  virtual std::vector<std::vector<std::string>> executables(std::string_view tool) const = 0;
};

template <PackageManager T>
class PackageManagerModel final : public PackageManagerInterface {
 public:
  std::vector<std::string> names() const override { return impl_.names(); }
  std::string default_profile(std::string_view tool) const override { return impl_.default_profile(tool); }
  CommandKind classify(std::string_view tool, const std::vector<std::string>& args) const override {
    return impl_.classify(tool, args);
  }
  std::vector<std::string> packages(std::string_view tool, const std::vector<std::string>& args) const override {
    return impl_.packages(tool, args);
  }
  std::vector<std::vector<std::string>> executables(std::string_view tool) const override {
    return impl_.executables(tool);
  }

 private:
  T impl_;
};

}  // namespace pmg

// ---------------------------------------------------------------------------------------------
// Export macros: one per kind, placed once in a plugin's source at namespace scope.

// The exported functions have internal linkage: several plugins in one process must never share
// (or interpose) each other's definitions.
#define PMG_DETAIL_EXPORT(Kind, Interface, Model, Type, Name, Version, FactorySymbol)         \
  namespace {                                                                                  \
  ::pmg::PluginInfo pmg_plugin_info_record() {                                                 \
    return ::pmg::PluginInfo{::pmg::plugin_abi_version, Kind, Name, Version};                  \
  }                                                                                            \
  ::pmg::Interface* pmg_plugin_create() { return new ::pmg::Model<Type>(); }                  \
  }                                                                                            \
  BOOST_DLL_ALIAS(pmg_plugin_info_record, pmg_plugin_info)                                     \
  BOOST_DLL_ALIAS(pmg_plugin_create, FactorySymbol)

// `Type::name` must be initialised from a string literal (it is passed on as a C string).
#define PMG_EXPORT_BACKEND(Type, Version)                                                      \
  PMG_DETAIL_EXPORT("backend", BackendInterface, BackendModel, Type, Type::name.data(), Version, \
                    pmg_create_backend)                                                        \
  namespace {                                                                                  \
  bool pmg_backend_enforces_flag() { return ::pmg::backend_enforces<Type>; }                   \
  }                                                                                            \
  BOOST_DLL_ALIAS(pmg_backend_enforces_flag, pmg_backend_enforces)

// A package-manager adapter answers to several tools; `PluginName` (a string literal) names the
// plugin itself in `pmg setup info`.
#define PMG_EXPORT_PACKAGE_MANAGER(Type, PluginName, Version)                                  \
  PMG_DETAIL_EXPORT("package-manager", PackageManagerInterface, PackageManagerModel, Type,     \
                    PluginName, Version, pmg_create_package_manager)
