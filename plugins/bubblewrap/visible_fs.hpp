#pragma once
// The host filesystem as the sandbox will see it, for the deny walk: directories outside every
// mount list nothing, and a directory that only leads to mounts lists only the entries on the
// way to them. One pmg::expand_globs walk over this view finds every `**/.env` the sandbox could
// read without entering the parts of HOME or / that it cannot.
#include <string>
#include <vector>

#include "mount_table.hpp"
#include "pmg/fs_view.hpp"

namespace pmg::bubblewrap {

class VisibleFs final : public FsView {
 public:
  VisibleFs(const FsView& host, const MountTable& mounts) : host_(host), mounts_(mounts) {}

  // Types and links are the host's: the walk resolves a pattern's leading directories through
  // them, and the planner checks what it finds against the mounts afterwards.
  FileType type(const std::string& path) const override { return host_.type(path); }
  std::optional<std::string> read_link(const std::string& path) const override {
    return host_.read_link(path);
  }

  std::vector<DirEntry> list(const std::string& dir) const override {
    if (mounts_.innermost(dir)) return host_.list(dir);
    if (!mounts_.has_mount_below(dir)) return {};
    std::vector<DirEntry> entries = host_.list(dir);
    std::erase_if(entries, [&](const DirEntry& e) {
      const std::string child = dir == "/" ? "/" + e.name : dir + "/" + e.name;
      return !mounts_.is_mount_point(child) && !mounts_.has_mount_below(child);
    });
    return entries;
  }

 private:
  const FsView& host_;
  const MountTable& mounts_;
};

}  // namespace pmg::bubblewrap
