#pragma once
// The read-only view of a filesystem that translation code uses. Translation must stay a pure
// function of (policy, context, filesystem view), so tests substitute FakeFs for RealFs.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/error.hpp"
#include "pmg/path.hpp"

namespace pmg {

enum class FileType { missing, regular, directory, symlink, other };

struct DirEntry {
  std::string name;
  FileType type;

  bool operator==(const DirEntry&) const = default;
};

class FsView {
 public:
  // Symlinks followed while resolving one path before it is declared a loop (Linux's MAXSYMLINKS).
  static constexpr int max_symlink_hops = 40;

  virtual ~FsView() = default;
  // lstat semantics: a symlink is reported as a symlink; anything that cannot be stat'ed is missing.
  virtual FileType type(const std::string& path) const = 0;
  virtual std::optional<std::string> read_link(const std::string& path) const = 0;
  // Entries of `dir` without "." and "..", in unspecified order; follows a symlinked `dir` like
  // opendir does; empty if `dir` is not a directory.
  virtual std::vector<DirEntry> list(const std::string& dir) const = 0;

  // Absolute, lexically normal path with every symlink resolved, in every component, relative and
  // absolute targets alike. A missing component and everything after it is kept as written (a
  // policy may name a path that does not exist yet), but ".." after it still applies. Throws
  // Error naming `path` after more than max_symlink_hops links (a loop): failing is safer than
  // guessing which path a sandbox rule should cover.
  std::string resolve(const std::string& path) const {
    if (path.empty() || path.front() != '/')
      throw Error("cannot resolve \"" + path + "\": not an absolute path");
    std::deque<std::string> pending;
    split_into(path, pending, pending.end());
    std::string current = "/";
    int hops = 0;
    while (!pending.empty()) {
      const std::string part = std::move(pending.front());
      pending.pop_front();
      if (part.empty() || part == ".") continue;
      if (part == "..") {
        current = parent_of(current);
        continue;
      }
      std::string candidate = current == "/" ? "/" + part : current + "/" + part;
      if (type(candidate) != FileType::symlink) {
        current = std::move(candidate);
        continue;
      }
      if (++hops > max_symlink_hops)
        throw Error("cannot resolve \"" + path + "\": more than " +
                    std::to_string(max_symlink_hops) + " symbolic links (a symlink loop?)");
      const std::optional<std::string> target = read_link(candidate);
      if (!target || target->empty()) {  // vanished or unreadable: keep the name as written
        current = std::move(candidate);
        continue;
      }
      if (target->front() == '/') current = "/";
      split_into(*target, pending, pending.begin());
    }
    return current;
  }

 private:
  static std::string parent_of(const std::string& dir) {
    const std::size_t slash = dir.rfind('/');
    return slash == 0 || slash == std::string::npos ? std::string("/") : dir.substr(0, slash);
  }
  // Inserts the components of `text` before `at`, in order.
  static void split_into(std::string_view text, std::deque<std::string>& out,
                         std::deque<std::string>::iterator at) {
    std::vector<std::string> parts;
    std::size_t pos = 0;
    while (pos <= text.size()) {
      std::size_t end = text.find('/', pos);
      if (end == std::string_view::npos) end = text.size();
      if (end > pos) parts.emplace_back(text.substr(pos, end - pos));
      pos = end + 1;
    }
    out.insert(at, parts.begin(), parts.end());
  }
};

// The host's filesystem.
class RealFs final : public FsView {
 public:
  FileType type(const std::string& path) const override {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return FileType::missing;
    return from_mode(st.st_mode);
  }

  std::optional<std::string> read_link(const std::string& path) const override {
    std::string buffer(256, '\0');
    for (;;) {
      const ssize_t n = ::readlink(path.c_str(), buffer.data(), buffer.size());
      if (n < 0) return std::nullopt;
      if (static_cast<std::size_t>(n) < buffer.size()) {
        buffer.resize(static_cast<std::size_t>(n));
        return buffer;
      }
      buffer.resize(buffer.size() * 2);  // possibly truncated: retry larger
    }
  }

  std::vector<DirEntry> list(const std::string& dir) const override {
    std::vector<DirEntry> entries;
    DIR* handle = ::opendir(dir.c_str());
    if (handle == nullptr) return entries;
    const std::unique_ptr<DIR, int (*)(DIR*)> closer(handle, &::closedir);
    while (const dirent* entry = ::readdir(handle)) {
      const std::string_view name = entry->d_name;
      if (name == "." || name == "..") continue;
      FileType entry_type = from_d_type(entry->d_type);
      // Some filesystems do not fill d_type; only then pay for an lstat.
      if (entry->d_type == DT_UNKNOWN) entry_type = type(dir == "/" ? "/" + std::string(name)
                                                                    : dir + "/" + std::string(name));
      entries.push_back(DirEntry{std::string(name), entry_type});
    }
    return entries;
  }

 private:
  static FileType from_mode(mode_t mode) {
    if (S_ISREG(mode)) return FileType::regular;
    if (S_ISDIR(mode)) return FileType::directory;
    if (S_ISLNK(mode)) return FileType::symlink;
    return FileType::other;
  }
  static FileType from_d_type(unsigned char d_type) {
    switch (d_type) {
      case DT_REG: return FileType::regular;
      case DT_DIR: return FileType::directory;
      case DT_LNK: return FileType::symlink;
      case DT_UNKNOWN: return FileType::missing;
      default: return FileType::other;
    }
  }
};

// An in-memory filesystem for tests. Paths are absolute; missing parents are created as
// directories.
class FakeFs final : public FsView {
 public:
  FakeFs() { nodes_["/"] = Node{FileType::directory, {}, {}}; }

  void add_file(std::string path) { add(std::move(path), FileType::regular, {}); }
  void add_dir(std::string path) { add(std::move(path), FileType::directory, {}); }
  void add_symlink(std::string path, std::string target) {
    add(std::move(path), FileType::symlink, std::move(target));
  }

  FileType type(const std::string& path) const override {
    const auto it = nodes_.find(path);
    return it == nodes_.end() ? FileType::missing : it->second.type;
  }

  std::optional<std::string> read_link(const std::string& path) const override {
    const auto it = nodes_.find(path);
    if (it == nodes_.end() || it->second.type != FileType::symlink) return std::nullopt;
    return it->second.target;
  }

  std::vector<DirEntry> list(const std::string& dir) const override {
    std::vector<DirEntry> entries;
    auto it = nodes_.find(dir);
    if (it != nodes_.end() && it->second.type == FileType::symlink) it = nodes_.find(resolve(dir));
    if (it == nodes_.end() || it->second.type != FileType::directory) return entries;
    for (const auto& [name, child_type] : it->second.children) entries.push_back({name, child_type});
    return entries;
  }

 private:
  struct Node {
    FileType type;
    std::string target;                          // symlinks
    std::map<std::string, FileType> children;    // directories
  };

  void add(std::string path, FileType node_type, std::string target) {
    if (path.empty() || path.front() != '/')
      throw Error("FakeFs: \"" + path + "\" is not an absolute path");
    path = normalize_path(path);
    if (path == "/") return;
    const std::size_t slash = path.rfind('/');
    const std::string parent = slash == 0 ? "/" : path.substr(0, slash);
    auto parent_it = nodes_.find(parent);
    if (parent_it == nodes_.end()) {
      add_dir(parent);
      parent_it = nodes_.find(parent);
    }
    if (parent_it->second.type != FileType::directory)
      throw Error("FakeFs: parent of \"" + path + "\" is not a directory");
    const auto existing = nodes_.find(path);
    if (existing != nodes_.end()) {
      if (existing->second.type == FileType::directory && node_type == FileType::directory) return;
      throw Error("FakeFs: \"" + path + "\" already exists");
    }
    parent_it->second.children[path.substr(slash + 1)] = node_type;
    nodes_[path] = Node{node_type, std::move(target), {}};
  }

  std::map<std::string, Node> nodes_;
};

}  // namespace pmg
