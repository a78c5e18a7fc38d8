// Fuzz target: the glob matcher against its regex form (differential). The input is a pattern on
// the first line and paths on the others. Each path, and a path built from the pattern by
// filling in its wildcards with choices taken from that line, is matched four ways that must all
// agree:
//   Glob::matches, std::regex (ECMAScript) and POSIX regexec (ERE, Seatbelt's dialect) of
//   glob_to_regex, and expand_globs over an in-memory filesystem holding the paths.
// Also: a matching path lies within base_directory(), and could_match_below() is true for each
// of its parent directories (a walk must never prune a match).
#include <regex.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "pmg/fs_view.hpp"
#include "pmg/glob.hpp"
#include "pmg/path.hpp"

namespace {

using pmg::fuzz::invariant_failed;
using pmg::fuzz::printable;

// std::regex matches recursively; bounded lengths keep it from exhausting the stack, which would
// be a finding about libstdc++, not about pmg.
constexpr std::size_t max_pattern = 96;
constexpr std::size_t max_path = 192;
constexpr std::size_t max_lines = 12;

// Bytes that exercise the regex escaping and the class edge cases, besides the pattern's own.
constexpr std::string_view alphabet = "ab.-/][\\^\"$()|{}+*?!\x7f\x80\xff ";

class Choices {
 public:
  explicit Choices(std::string_view bytes) : bytes_(bytes) {}
  unsigned next() { return bytes_.empty() ? 0 : static_cast<unsigned char>(bytes_[pos_++ % bytes_.size()]); }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

char pick_char(Choices& choices, std::string_view pattern) {
  const unsigned c = choices.next();
  if (c < 0x80 || pattern.empty()) return alphabet[c % alphabet.size()];
  return pattern[c % pattern.size()];
}

// One component of a path for a non-"**" pattern component: wildcards filled in, the rest copied.
std::string fill_component(std::string_view component, std::string_view pattern, Choices& choices) {
  std::string out;
  for (std::size_t i = 0; i < component.size(); ++i) {
    const char c = component[i];
    if (c == '*') {
      for (unsigned n = choices.next() % 4; n > 0; --n) out.push_back(pick_char(choices, pattern));
    } else if (c == '?') {
      out.push_back(pick_char(choices, pattern));
    } else if (c == '[') {
      // Skip to the class's closing ']' (the first one, or the second when it comes first).
      std::size_t close = component.find(']', i + 2);
      if (close == std::string_view::npos) {
        out.push_back(c);
        continue;
      }
      const std::string_view members = component.substr(i + 1, close - i - 1);
      const unsigned pick = choices.next();
      out.push_back(pick % 2 == 0 && !members.empty() ? members[pick % members.size()] : pick_char(choices, pattern));
      i = close;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// A path shaped like `pattern`, with choices deciding what each wildcard stands for.
std::string instantiate(std::string_view pattern, std::string_view choice_bytes) {
  Choices choices(choice_bytes);
  std::vector<std::string> parts;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t slash = pattern.find('/', pos);
    const std::string_view component = pattern.substr(pos, slash == std::string_view::npos ? slash : slash - pos);
    if (component == "**") {
      for (unsigned n = choices.next() % 3; n > 0; --n)
        parts.push_back(fill_component("*", pattern, choices));
    } else {
      parts.push_back(fill_component(component, pattern, choices));
    }
    if (slash == std::string_view::npos) break;
    pos = slash + 1;
  }
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) (out += i ? "/" : "") += parts[i];
  return out.substr(0, max_path);
}

struct Matchers {
  const pmg::Glob& glob;
  const std::string& regex_text;
  const std::regex& ecma;
  const regex_t& posix;
};

std::string describe(const Matchers& m, std::string_view path) {
  return "pattern: " + printable(m.glob.pattern()) + "\nregex:   " + printable(m.regex_text) +
         "\npath:    " + printable(path);
}

void check_path(const Matchers& m, const std::string& path) {
  const bool glob = m.glob.matches(path);
  if (std::regex_match(path, m.ecma) != glob)
    invariant_failed(glob ? "Glob matches, std::regex does not" : "std::regex matches, Glob does not",
                     describe(m, path));
  if (path.find('\0') == std::string::npos &&
      (::regexec(&m.posix, path.c_str(), 0, nullptr, 0) == 0) != glob)
    invariant_failed(glob ? "Glob matches, POSIX regexec does not" : "POSIX regexec matches, Glob does not",
                     describe(m, path));
  if (!glob || pmg::normalize_path(path) != path || !m.glob.pattern().starts_with('/')) return;
  if (!pmg::path_is_within(path, m.glob.base_directory()))
    invariant_failed("a match lies outside base_directory() " + printable(m.glob.base_directory()),
                     describe(m, path));
  for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    const std::string dir = slash == 0 ? "/" : path.substr(0, slash);
    if (!m.glob.could_match_below(dir))
      invariant_failed("could_match_below(" + printable(dir) + ") is false above a match", describe(m, path));
  }
}

// expand_globs over a filesystem of exactly these directories (and their parents) must report
// exactly the ones Glob::matches accepts.
void check_walk(const pmg::Glob& glob, const std::vector<std::string>& paths) {
  if (!glob.pattern().starts_with('/') || pmg::normalize_path(glob.pattern()) != glob.pattern()) return;
  pmg::FakeFs fs;
  // "/" itself is left out: Glob::matches("/") is true for "/*" and "/**" (an empty last
  // component matches '*'), while a walk reports only entries below "/". Reported in
  // docs/reliability.md (finding G1) rather than fuzzed over again and again.
  std::set<std::string> nodes;
  for (const std::string& path : paths) {
    if (path.empty() || path.front() != '/' || pmg::normalize_path(path) != path) continue;
    fs.add_dir(path);
    for (std::size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1))
      nodes.insert(path.substr(0, slash));
    nodes.insert(path);
  }
  nodes.erase("/");
  std::vector<std::string> expected;
  for (const std::string& node : nodes)
    if (glob.matches(node)) expected.push_back(node);
  const pmg::GlobLimits limits{10'000, 64, 1'000'000};
  const std::array<pmg::Glob, 1> globs{glob};
  std::vector<pmg::GlobMatches> found = pmg::expand_globs(globs, fs, limits);
  if (found.size() != 1) invariant_failed("expand_globs returned the wrong number of results", glob.pattern());
  if (found[0].truncated) return;
  std::vector<std::string> got = found[0].paths;
  std::sort(got.begin(), got.end());
  if (got != expected) {
    std::string detail = "pattern: " + printable(glob.pattern()) + "\nexpand_globs:";
    for (const auto& p : got) detail += " " + printable(p);
    detail += "\nGlob::matches:";
    for (const auto& p : expected) detail += " " + printable(p);
    invariant_failed("expand_globs and Glob::matches disagree", detail);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t eol = input.find('\n');
  const std::string pattern(input.substr(0, eol));
  if (pattern.size() > max_pattern) return 0;
  std::vector<std::string_view> lines;
  for (std::size_t pos = eol; pos != std::string_view::npos && lines.size() < max_lines;) {
    const std::size_t next = input.find('\n', pos + 1);
    lines.push_back(input.substr(pos + 1, next == std::string_view::npos ? next : next - pos - 1));
    pos = next;
  }
  if (lines.empty()) lines.push_back("");

  std::optional<pmg::Glob> glob;
  try {
    glob.emplace(pattern);
  } catch (const pmg::Error&) {
    try {
      pmg::glob_to_regex(pattern);
    } catch (const pmg::Error&) {
      return 0;
    }
    invariant_failed("glob_to_regex accepts a pattern Glob refuses", printable(pattern));
  }
  const std::string regex_text = pmg::glob_to_regex(pattern);
  std::regex ecma;
  try {
    ecma.assign(regex_text, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    invariant_failed("glob_to_regex is not a valid ECMAScript regex", printable(pattern) + " -> " + printable(regex_text));
  }
  regex_t posix;
  if (::regcomp(&posix, regex_text.c_str(), REG_EXTENDED | REG_NOSUB) != 0)
    invariant_failed("glob_to_regex is not a valid POSIX ERE", printable(pattern) + " -> " + printable(regex_text));
  const Matchers matchers{*glob, regex_text, ecma, posix};

  std::vector<std::string> paths;
  for (std::string_view line : lines) {
    if (line.size() <= max_path) paths.emplace_back(line);
    paths.push_back(instantiate(pattern, line));
  }
  for (const std::string& path : paths) check_path(matchers, path);
  ::regfree(&posix);
  check_walk(*glob, paths);
  return 0;
}
