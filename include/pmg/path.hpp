#pragma once
// Lexical path operations on '/'-separated strings. Nothing here touches the filesystem; symlinks
// are resolved by FsView::resolve (fs_view.hpp).
#include <string>
#include <string_view>
#include <vector>

namespace pmg {

// Collapses repeated '/', drops "." components, applies ".." lexically (never above "/"; a
// relative path keeps its leading ".."), and drops a trailing '/'. "" stays "", a relative path
// that cancels out becomes ".".
inline std::string normalize_path(std::string_view path) {
  if (path.empty()) return {};
  const bool absolute = path.front() == '/';
  std::vector<std::string_view> parts;
  std::size_t pos = 0;
  while (pos <= path.size()) {
    std::size_t end = path.find('/', pos);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view part = path.substr(pos, end - pos);
    pos = end + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
        continue;
      }
      if (absolute) continue;  // "/.." is "/"
    }
    parts.push_back(part);
  }
  std::string out;
  out.reserve(path.size());
  if (absolute) out.push_back('/');
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out.push_back('/');
    out.append(parts[i]);
  }
  if (out.empty()) return std::string(1, '.');  // (not `out = "."`: GCC 12 -Wrestrict false positive)
  return out;
}

// True when `path` is `dir` or lies below it, comparing normalised forms component-wise
// ("/ab" is not within "/a").
inline bool path_is_within(std::string_view path, std::string_view dir) {
  const std::string p = normalize_path(path);
  const std::string d = normalize_path(dir);
  if (p.size() < d.size() || p.compare(0, d.size(), d) != 0) return false;
  return p.size() == d.size() || d == "/" || p[d.size()] == '/';
}

// `dir` + "/" + `name`, normalised; an absolute `name` replaces `dir`.
inline std::string join_path(std::string_view dir, std::string_view name) {
  if (!name.empty() && name.front() == '/') return normalize_path(name);
  std::string joined(dir);
  joined.push_back('/');
  joined.append(name);
  return normalize_path(joined);
}

// `text` in double quotes for an error message, with NUL and newline made visible: a message
// must neither be cut short at a NUL nor have its lines faked by a newline.
inline std::string quote_for_message(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\0') out += "\\0";
    else if (c == '\n') out += "\\n";
    else out.push_back(c);
  }
  return out + "\"";
}

}  // namespace pmg
