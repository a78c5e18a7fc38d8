#pragma once
// Quoting for the `Bubblewrap arguments:` debug line, so a user can paste it into a shell.
#include <string>
#include <string_view>
#include <vector>

namespace pmg::bubblewrap {

// A word a POSIX shell reads back as exactly `word`: unchanged when it holds only characters no
// shell treats specially, else in single quotes (a single quote becomes '\'').
inline std::string shell_quote(std::string_view word) {
  constexpr std::string_view plain =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=./:,@%";
  if (!word.empty() && word.find_first_not_of(plain) == std::string_view::npos) return std::string(word);
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

inline std::string shell_join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += ' ';
    out += shell_quote(w);
  }
  return out;
}

}  // namespace pmg::bubblewrap
