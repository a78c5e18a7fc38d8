#pragma once
// "Did you mean ...?" for mistyped names (policy keys, config keys, profile names).
#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pmg {

// Optimal-string-alignment distance: insertions, deletions, substitutions and transpositions of
// adjacent characters each cost 1, so the common typo "allow_wirte" is one edit from "allow_write".
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  // Three rolling rows: the transposition step looks two rows back.
  std::vector<std::size_t> before(m + 1), previous(m + 1), current(m + 1);
  for (std::size_t j = 0; j <= m; ++j) previous[j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[m];
}

// The candidate closest to `word`, if it is close enough to be a plausible typo: at most 2 edits,
// and fewer than half of the word's characters (so "x" does not suggest "name").
inline std::optional<std::string> closest_match(std::string_view word,
                                                std::span<const std::string> candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const std::string& candidate : candidates) {
    const std::size_t d = edit_distance(word, candidate);
    if (d > 2 || d * 2 >= std::max(word.size(), candidate.size())) continue;
    if (!best || d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

// "a, b, c" for messages that list what is accepted.
inline std::string join_names(std::span<const std::string> names, std::string_view separator = ", ") {
  std::string out;
  for (const std::string& name : names) {
    if (!out.empty()) out += separator;
    out += name;
  }
  return out;
}

}  // namespace pmg
