#pragma once
// Finding the real package-manager executable on PATH. pmg itself is skipped, so a user who puts
// a `npm -> pmg` link first on PATH (or aliases npm to pmg) gets the real npm, not a loop.
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace pmg {

inline std::optional<std::filesystem::path> find_executable(std::string_view name, std::string_view path_env,
                                                            const std::filesystem::path& self) {
  std::error_code ec;
  const auto self_real = std::filesystem::weakly_canonical(self, ec);
  auto usable = [&](const std::filesystem::path& candidate) {
    std::error_code e;
    if (!std::filesystem::is_regular_file(candidate, e)) return false;
    if (::access(candidate.c_str(), X_OK) != 0) return false;
    return std::filesystem::weakly_canonical(candidate, e) != self_real;
  };
  if (name.find('/') != std::string_view::npos) {
    std::filesystem::path direct(name);
    if (usable(direct)) return std::filesystem::absolute(direct).lexically_normal();
    return std::nullopt;
  }
  while (true) {
    auto colon = path_env.find(':');
    std::string_view dir = path_env.substr(0, colon);
    if (!dir.empty() && dir.front() == '/') {  // relative PATH entries are a hijack risk
      std::filesystem::path candidate = std::filesystem::path(dir) / name;
      if (usable(candidate)) return candidate.lexically_normal();
    }
    if (colon == std::string_view::npos) break;
    path_env.remove_prefix(colon + 1);
  }
  return std::nullopt;
}

}  // namespace pmg
