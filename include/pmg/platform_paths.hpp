#pragma once
// Locations that exist on only one of the platforms pmg supports. Built-in profiles list Linux and
// macOS paths side by side, so a path missing on this machine is not a mistake when it belongs to
// the other platform; tools that judge a profile (lint, doctor) ask here.
#include <algorithm>
#include <array>
#include <string_view>

#include "pmg/context.hpp"
#include "pmg/path.hpp"

namespace pmg {

// Top-level locations of macOS (system frameworks, Homebrew on Apple silicon, user homes).
inline constexpr std::array<std::string_view, 9> macos_only_roots{
    "/System", "/Library", "/Applications", "/Users", "/Volumes", "/private", "/cores",
    "/opt/homebrew", "/usr/local/Homebrew"};

// Locations of Linux systems that macOS does not have.
inline constexpr std::array<std::string_view, 11> linux_only_roots{
    "/lib", "/lib32", "/lib64", "/libx32", "/snap", "/proc", "/sys", "/run", "/etc/alternatives",
    "/etc/ld.so.cache", "/etc/ld.so.conf.d"};

// True when `path` (absolute, variables expanded) lies where only the other platform keeps files:
// macOS roots and ~/Library when running on Linux, Linux roots when running on macOS.
inline bool is_other_platform_path(std::string_view path, const Context& ctx) {
  const auto within_any = [&](const auto& roots) {
    return std::any_of(roots.begin(), roots.end(), [&](std::string_view root) { return path_is_within(path, root); });
  };
#if defined(__APPLE__)
  static_cast<void>(ctx);
  return within_any(linux_only_roots);
#else
  return within_any(macos_only_roots) || path_is_within(path, join_path(ctx.home, "Library"));
#endif
}

}  // namespace pmg
