#pragma once
// Words a user can paste into a POSIX shell: suggested commands (`--sandbox-allow write=...`),
// re-run lines and debug output must survive spaces and quotes in paths.
#include <string>
#include <string_view>
#include <vector>

namespace pmg {

// `word` unchanged when no shell treats any of its characters specially, else single-quoted
// (an embedded single quote becomes '\'').
inline std::string shell_quote(std::string_view word) {
  constexpr std::string_view plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=./:,@%";
  if (!word.empty() && word.find_first_not_of(plain) == std::string_view::npos) return std::string(word);
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The words quoted and joined by spaces.
inline std::string shell_join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : " ") + shell_quote(word);
  return out;
}

}  // namespace pmg
