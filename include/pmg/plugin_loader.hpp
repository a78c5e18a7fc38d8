#pragma once
// Finding and loading plugins with Boost.DLL. Every `libpmg-*.so` in the search path is loaded;
// its info record is checked (kind, ABI version) before its factory is called. Objects created
// by a plugin keep their library loaded, so the library outlives everything it made.
#include <dlfcn.h>

#include <algorithm>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <fstream>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "pmg/error.hpp"
#include "pmg/log.hpp"
#include "pmg/plugin.hpp"

namespace pmg {

struct PluginRecord {
  std::string kind;
  std::string name;
  std::string version;
  int abi_version = 0;
  std::filesystem::path file;
  bool enforces = true;  // backends: false for a teaching or test backend (plugin.hpp)
};

struct LoadedBackend {
  PluginRecord record;
  std::shared_ptr<const BackendInterface> backend;
};

struct LoadedPackageManager {
  PluginRecord record;
  std::shared_ptr<const PackageManagerInterface> adapter;
  std::vector<std::string> tools;  // the command names it answers to
};

// The directories searched, in order: PMG_PLUGIN_PATH (colon-separated), then lib/pmg/plugins
// beside the running binary's bin/ (the same layout in the build tree and in an install).
inline std::vector<std::filesystem::path> plugin_search_path() {
  std::vector<std::filesystem::path> dirs;
  if (const char* env = std::getenv("PMG_PLUGIN_PATH"); env != nullptr) {
    std::string_view rest = env;
    while (!rest.empty()) {
      auto colon = rest.find(':');
      std::string_view entry = rest.substr(0, colon);
      if (!entry.empty()) dirs.emplace_back(entry);
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  std::filesystem::path exe = boost::dll::program_location().string();
  dirs.push_back((exe.parent_path().parent_path() / "lib" / "pmg" / "plugins").lexically_normal());
  return dirs;
}

namespace detail {

inline std::string describe_load_failure(const std::filesystem::path& file, const std::string& why) {
  return fmt::format("plugin {} cannot be loaded: {}; remove it from the plugin path or rebuild it "
                     "against this pmg",
                     file.string(), why);
}

// dlopen maps a truncated library without complaint and the process dies of SIGBUS when the
// loader touches the missing pages, so the ELF layout is checked before the library is opened.
// Returns what is wrong, or an empty string.
inline std::string elf_layout_problem(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return "it cannot be opened for reading";
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  in.seekg(0);
  Elf64_Ehdr header{};
  if (!in.read(reinterpret_cast<char*>(&header), sizeof header) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
    return "it is not an ELF shared object";
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_type != ET_DYN)
    return "it is not a 64-bit ELF shared object";
  if (header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum == 0 ||
      header.e_phoff + std::uint64_t{header.e_phnum} * sizeof(Elf64_Phdr) > size)
    return "its program headers are missing (truncated file?)";
  in.seekg(static_cast<std::streamoff>(header.e_phoff));
  for (int i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    if (!in.read(reinterpret_cast<char*>(&segment), sizeof segment)) return "its program headers cannot be read";
    if (segment.p_type == PT_LOAD && segment.p_offset + segment.p_filesz > size)
      return fmt::format("it is truncated: a segment ends at byte {} but the file has {} bytes",
                         segment.p_offset + segment.p_filesz, size);
  }
  return {};
}

}  // namespace detail

class PluginSet {
 public:
  // Loads every plugin found in `dirs`. A file name seen in an earlier directory shadows later
  // ones (so PMG_PLUGIN_PATH can replace a built-in plugin). Any library that is not a valid pmg
  // plugin of this ABI is an error: a security tool does not skip what it cannot verify.
  static PluginSet load(const std::vector<std::filesystem::path>& dirs) {
    PluginSet set;
    set.search_path_ = dirs;
    std::map<std::string, std::filesystem::path> seen_files;
    for (const auto& dir : dirs) {
      std::error_code ec;
      if (!std::filesystem::is_directory(dir, ec)) continue;
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        std::string fname = entry.path().filename().string();
        if (fname.starts_with("libpmg-") && fname.ends_with(".so")) files.push_back(entry.path());
      }
      if (ec) throw Error(fmt::format("cannot list plugin directory {}: {}", dir.string(), ec.message()));
      std::sort(files.begin(), files.end());
      for (const auto& file : files) {
        std::string fname = file.filename().string();
        if (auto it = seen_files.find(fname); it != seen_files.end()) {
          log_debug("plugin {} is shadowed by {}", file.string(), it->second.string());
          continue;
        }
        seen_files.emplace(fname, file);
        set.load_file(file);
      }
    }
    return set;
  }

  // Loads one library and registers what it exports.
  void load_file(const std::filesystem::path& file) {
    if (std::string problem = detail::elf_layout_problem(file); !problem.empty())
      throw Error(detail::describe_load_failure(file, problem));
    auto library = std::make_shared<boost::dll::shared_library>();
    try {
      library->load(file.string(), boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
    } catch (const std::exception& e) {
      throw Error(detail::describe_load_failure(file, e.what()));
    }
    if (!library->has(plugin_info_symbol))
      throw Error(detail::describe_load_failure(
          file, fmt::format("it has no '{}' record, so it is not a pmg plugin", plugin_info_symbol)));
    PluginInfo info = library->get_alias<PluginInfo()>(plugin_info_symbol)();
    if (info.abi_version != plugin_abi_version)
      throw Error(detail::describe_load_failure(
          file, fmt::format("it was built for plugin ABI {} but this pmg uses ABI {}", info.abi_version,
                            plugin_abi_version)));
    // A valid plugin stays mapped until the process exits (RTLD_NODELETE): an exception it throws
    // is an object it made, and the host handles that exception after unwinding past the
    // PluginSet (pmg's main() catches it), when the library would otherwise be gone already.
    // (g++ builds were NODELETE by accident through STB_GNU_UNIQUE symbols; clang builds are not.)
    if (::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD | RTLD_NODELETE) == nullptr)
      throw Error(detail::describe_load_failure(file, fmt::format("cannot pin it in memory: {}", ::dlerror())));
    PluginRecord record{info.kind ? info.kind : "", info.name ? info.name : "",
                        info.version ? info.version : "", info.abi_version, file};
    if (record.kind == "backend") {
      add_backend(std::move(record), library);
    } else if (record.kind == "package-manager") {
      add_package_manager(std::move(record), library);
    } else {
      throw Error(detail::describe_load_failure(file, fmt::format("unknown plugin kind '{}'", record.kind)));
    }
  }

  const std::vector<LoadedBackend>& backends() const { return backends_; }
  const std::vector<LoadedPackageManager>& package_managers() const { return package_managers_; }
  const std::vector<std::filesystem::path>& search_path() const { return search_path_; }

  // The search path as PATH-style text, for messages.
  std::string search_path_text() const {
    std::string out;
    for (const auto& dir : search_path_) out += (out.empty() ? "" : ":") + dir.string();
    return out;
  }

  const LoadedBackend* find_backend(std::string_view name) const {
    for (const auto& b : backends_)
      if (b.record.name == name) return &b;
    return nullptr;
  }

  const LoadedPackageManager* find_package_manager(std::string_view tool) const {
    for (const auto& pm : package_managers_)
      for (const auto& t : pm.tools)
        if (t == tool) return &pm;
    return nullptr;
  }

  std::vector<std::string> backend_names() const {
    std::vector<std::string> names;
    for (const auto& b : backends_) names.push_back(b.record.name);
    return names;
  }

  std::vector<std::string> tool_names() const {
    std::vector<std::string> names;
    for (const auto& pm : package_managers_) names.insert(names.end(), pm.tools.begin(), pm.tools.end());
    return names;
  }

 private:
  // The object is destroyed before its library is released: the deleter owns the library.
  template <class Interface>
  static std::shared_ptr<const Interface> adopt(Interface* raw, std::shared_ptr<boost::dll::shared_library> library) {
    return std::shared_ptr<const Interface>(raw, [library](const Interface* p) { delete p; });
  }

  template <class Interface>
  static Interface* create(const boost::dll::shared_library& library, const char* symbol,
                           const PluginRecord& record) {
    if (!library.has(symbol))
      throw Error(detail::describe_load_failure(
          record.file, fmt::format("it says it is a {} but has no '{}' factory", record.kind, symbol)));
    Interface* raw = library.get_alias<Interface*()>(symbol)();
    if (raw == nullptr)
      throw Error(detail::describe_load_failure(record.file, "its factory returned nothing"));
    return raw;
  }

  void add_backend(PluginRecord record, const std::shared_ptr<boost::dll::shared_library>& library) {
    record.enforces =
        library->has(backend_enforces_symbol) && library->get_alias<bool()>(backend_enforces_symbol)();
    if (const LoadedBackend* other = find_backend(record.name))
      throw Error(fmt::format("two plugins provide the backend '{}': {} and {}; remove one of them",
                              record.name, other->record.file.string(), record.file.string()));
    auto backend = adopt(create<BackendInterface>(*library, backend_factory_symbol, record), library);
    backends_.push_back({std::move(record), std::move(backend)});
  }

  void add_package_manager(PluginRecord record, const std::shared_ptr<boost::dll::shared_library>& library) {
    auto adapter =
        adopt(create<PackageManagerInterface>(*library, package_manager_factory_symbol, record), library);
    std::vector<std::string> tools = adapter->names();
    for (const auto& tool : tools)
      if (const LoadedPackageManager* other = find_package_manager(tool))
        throw Error(fmt::format("two plugins answer to the package manager '{}': {} and {}; remove one of them",
                                tool, other->record.file.string(), record.file.string()));
    package_managers_.push_back({std::move(record), std::move(adapter), std::move(tools)});
  }

  std::vector<std::filesystem::path> search_path_;
  std::vector<LoadedBackend> backends_;
  std::vector<LoadedPackageManager> package_managers_;
};

}  // namespace pmg
