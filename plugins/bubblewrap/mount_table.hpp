#pragma once
// The sandbox's mount tree as the planner builds it: for any path, which mount exposes it and
// how. The planner asks it whether a deny target is visible at all, whether a missing path could
// be created (it lies in a writable mount), and which directories between a writable mount and a
// deny target are not mount points yet.
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace pmg::bubblewrap {

enum class Access { read_only, read_write };

class MountTable {
 public:
  struct Mount {
    std::string_view dest;
    Access access;
  };

  // Records a bind of the host path `dest` onto itself. The planner adds every mount that
  // exposes host paths before it asks anything, and covering mounts (denies) only afterwards, so
  // entries are never removed.
  void add(const std::string& dest, Access access) {
    auto [it, inserted] = mounts_.try_emplace(dest, access);
    if (!inserted) {
      if (access == Access::read_write) it->second = access;
      return;
    }
    for (std::string_view p = parent(dest); !p.empty(); p = parent(p)) {
      if (!ancestors_.emplace(p).second) break;  // its ancestors are there already
    }
  }

  // The mount whose destination is `path` or its nearest ancestor; none outside every mount.
  std::optional<Mount> innermost(std::string_view path) const {
    for (std::string_view p = path; !p.empty(); p = parent(p)) {
      if (auto it = mounts_.find(p); it != mounts_.end()) return Mount{it->first, it->second};
    }
    return std::nullopt;
  }

  bool is_mount_point(std::string_view path) const { return mounts_.find(path) != mounts_.end(); }

  // True when some mount lies strictly below `path`: the sandbox has a directory there.
  bool has_mount_below(std::string_view path) const { return ancestors_.find(path) != ancestors_.end(); }

  // Whether the sandbox sees anything at `path` (bwrap creates the parents of every mount).
  bool visible(std::string_view path) const { return innermost(path) || has_mount_below(path); }

  bool writable(std::string_view path) const {
    const auto m = innermost(path);
    return m && m->access == Access::read_write;
  }

  std::size_t size() const { return mounts_.size(); }

  // "/a/b" -> "/a", "/a" -> "/", "/" -> "" (none).
  static std::string_view parent(std::string_view path) {
    if (path.size() <= 1) return {};
    const std::size_t slash = path.rfind('/');
    return slash == 0 ? path.substr(0, 1) : path.substr(0, slash);
  }

 private:
  // Lookups by string_view without building a std::string per ancestor.
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, Access, Hash, std::equal_to<>> mounts_;
  std::unordered_set<std::string, Hash, std::equal_to<>> ancestors_;
};

}  // namespace pmg::bubblewrap
