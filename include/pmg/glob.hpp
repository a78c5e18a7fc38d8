#pragma once
// The one glob implementation of pmg: matching, conversion to a regex (Seatbelt), and bounded
// expansion against a filesystem (bubblewrap).
//
// Syntax, over '/'-separated components:
//   *        any run of characters except '/'
//   ?        one character except '/'
//   [abc] [a-z] [!x] [^x]
//            one character (byte) from / not from the set, never '/'. ']' first in the set and '-'
//            first or last are literal. ASCII only. There is no backslash escape: write [*] for a
//            literal '*' and [[] for a literal '['.
//   **       as a whole component: zero or more components ("/a/**/b" matches /a/b and /a/x/y/b);
//            as the last component: one or more components, i.e. everything strictly below the
//            directory but not the directory itself. Elsewhere ("a**b") it is the same as '*'.
// Matching is on the exact string: callers pass normalised paths (normalize_path).
#include <algorithm>
#include <bitset>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pmg/error.hpp"
#include "pmg/fs_view.hpp"
#include "pmg/path.hpp"

namespace pmg {

inline bool has_glob_chars(std::string_view pattern) {
  return pattern.find_first_of("*?[") != std::string_view::npos;
}

namespace detail {

// Splits on every '/', keeping empty components: "/a/b" -> "", "a", "b"; "" -> "".
inline std::vector<std::string_view> split_components(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) {
      parts.push_back(path.substr(pos));
      return parts;
    }
    parts.push_back(path.substr(pos, slash - pos));
    pos = slash + 1;
  }
}

// A set of NFA states (pattern component indices). Patterns of up to 63 components keep their
// states inline, so stepping through a large directory tree does not allocate per entry.
class StateSet {
 public:
  StateSet() = default;
  explicit StateSet(std::size_t states) { reset(states); }

  void reset(std::size_t states) {
    inline_ = 0;
    if (states > 64) heap_.assign((states + 63) / 64, 0);
    else heap_.clear();
  }
  void insert(std::size_t i) { words()[i / 64] |= std::uint64_t{1} << (i % 64); }
  bool contains(std::size_t i) const { return (words()[i / 64] >> (i % 64)) & 1U; }
  bool empty() const {
    const std::uint64_t* w = words();
    return std::all_of(w, w + word_count(), [](std::uint64_t x) { return x == 0; });
  }
  bool operator==(const StateSet& other) const {
    return inline_ == other.inline_ && heap_ == other.heap_;
  }
  template <class F>
  void for_each(F&& f) const {
    const std::uint64_t* w = words();
    for (std::size_t k = 0; k < word_count(); ++k)
      for (std::uint64_t bits = w[k]; bits != 0; bits &= bits - 1)
        f(k * 64 + static_cast<std::size_t>(__builtin_ctzll(bits)));
  }

 private:
  std::uint64_t* words() { return heap_.empty() ? &inline_ : heap_.data(); }
  const std::uint64_t* words() const { return heap_.empty() ? &inline_ : heap_.data(); }
  std::size_t word_count() const { return heap_.empty() ? 1 : heap_.size(); }

  std::uint64_t inline_ = 0;
  std::vector<std::uint64_t> heap_;
};

struct GlobToken {
  enum class Kind { literal, any_char, any_run, char_class };
  Kind kind;
  std::string text;       // literal
  std::bitset<256> set;   // char_class: the bytes that match; never '/'
};

struct GlobComponent {
  enum class Kind { literal, wildcard, any_components };
  Kind kind;
  std::string text;               // literal
  std::vector<GlobToken> tokens;  // wildcard
};

// One character class starting at pattern[at] == '['; returns the index after its ']'.
inline std::size_t parse_char_class(std::string_view pattern, std::string_view component,
                                    std::size_t at, std::bitset<256>& set) {
  const auto fail = [&](const std::string& problem) -> Error {
    return Error("glob pattern " + quote_for_message(pattern) + ": " + problem);
  };
  std::size_t i = at + 1;
  const bool negated = i < component.size() && (component[i] == '!' || component[i] == '^');
  if (negated) ++i;
  bool first = true;
  for (;;) {
    if (i >= component.size())
      throw fail("unbalanced '[' in \"" + std::string(component) +
                 "\"; close the class with ']' or write [[] for a literal '['");
    const unsigned char c = static_cast<unsigned char>(component[i]);
    if (c == ']' && !first) break;
    first = false;
    if (c >= 0x80) throw fail("character classes accept ASCII characters only");
    if (c == '[' && i + 1 < component.size() &&
        (component[i + 1] == ':' || component[i + 1] == '.' || component[i + 1] == '='))
      throw fail("POSIX classes such as [[:alpha:]] are not supported; list the characters");
    if (i + 2 < component.size() && component[i + 1] == '-' && component[i + 2] != ']') {
      const unsigned char hi = static_cast<unsigned char>(component[i + 2]);
      if (hi >= 0x80) throw fail("character classes accept ASCII characters only");
      if (hi < c)
        throw fail("reversed range " + std::string(component.substr(i, 3)) + " in a character class");
      for (unsigned v = c; v <= hi; ++v) set.set(v);
      i += 3;
      continue;
    }
    set.set(c);
    ++i;
  }
  if (negated) set.flip();
  set.reset('/');
  if (set.none())
    throw fail("character class " + std::string(component.substr(at, i + 1 - at)) +
               " can never match (a class never matches '/')");
  return i + 1;
}

inline GlobComponent parse_component(std::string_view pattern, std::string_view component) {
  if (component == "**") return {GlobComponent::Kind::any_components, {}, {}};
  if (!has_glob_chars(component)) return {GlobComponent::Kind::literal, std::string(component), {}};
  GlobComponent out{GlobComponent::Kind::wildcard, {}, {}};
  std::size_t i = 0;
  while (i < component.size()) {
    const char c = component[i];
    if (c == '*') {
      if (out.tokens.empty() || out.tokens.back().kind != GlobToken::Kind::any_run)
        out.tokens.push_back({GlobToken::Kind::any_run, {}, {}});
      ++i;
    } else if (c == '?') {
      out.tokens.push_back({GlobToken::Kind::any_char, {}, {}});
      ++i;
    } else if (c == '[') {
      GlobToken token{GlobToken::Kind::char_class, {}, {}};
      i = parse_char_class(pattern, component, i, token.set);
      out.tokens.push_back(std::move(token));
    } else {
      if (out.tokens.empty() || out.tokens.back().kind != GlobToken::Kind::literal)
        out.tokens.push_back({GlobToken::Kind::literal, {}, {}});
      out.tokens.back().text.push_back(c);
      ++i;
    }
  }
  return out;
}

// Wildcard matching within one component. Every token but '*' has a fixed width, so remembering
// only the last '*' is enough: O(pattern * name) at worst, never exponential.
inline bool match_tokens(const std::vector<GlobToken>& tokens, std::string_view name) {
  std::size_t t = 0, n = 0;
  std::size_t star_t = std::string::npos, star_n = 0;
  while (n < name.size()) {
    if (t < tokens.size()) {
      const GlobToken& token = tokens[t];
      switch (token.kind) {
        case GlobToken::Kind::any_run:
          star_t = t++;
          star_n = n;
          continue;
        case GlobToken::Kind::literal:
          if (name.compare(n, token.text.size(), token.text) == 0) {
            n += token.text.size();
            ++t;
            continue;
          }
          break;
        case GlobToken::Kind::any_char:
          ++n;
          ++t;
          continue;
        case GlobToken::Kind::char_class:
          if (token.set.test(static_cast<unsigned char>(name[n]))) {
            ++n;
            ++t;
            continue;
          }
          break;
      }
    }
    if (star_t == std::string::npos) return false;
    t = star_t + 1;
    n = ++star_n;
  }
  while (t < tokens.size() && tokens[t].kind == GlobToken::Kind::any_run) ++t;
  return t == tokens.size();
}

inline bool component_matches(const GlobComponent& c, std::string_view name) {
  switch (c.kind) {
    case GlobComponent::Kind::literal: return name == c.text;
    case GlobComponent::Kind::wildcard: return match_tokens(c.tokens, name);
    case GlobComponent::Kind::any_components: return true;
  }
  return false;
}

// A pattern compiled to components, run as an NFA over path components. State i means
// "components [0, i) matched"; state size() accepts. A trailing "**" is stored as "*" "**", which
// is exactly "one or more components".
class GlobProgram {
 public:
  GlobProgram() = default;
  // `components` as compiled (see compile()), used as they are.
  explicit GlobProgram(std::vector<GlobComponent> components) : components_(std::move(components)) {}

  // The program of a pattern's components: a trailing "**" becomes "*" "**".
  static GlobProgram compile(std::vector<GlobComponent> components) {
    if (!components.empty() && components.back().kind == GlobComponent::Kind::any_components)
      components.insert(components.end() - 1,
                        GlobComponent{GlobComponent::Kind::wildcard, {}, {{GlobToken::Kind::any_run, {}, {}}}});
    return GlobProgram(std::move(components));
  }

  const std::vector<GlobComponent>& components() const { return components_; }
  std::size_t state_count() const { return components_.size() + 1; }

  StateSet start() const {
    StateSet s(state_count());
    enter(s, 0);
    return s;
  }
  // Adds state i, and the states after every "**" that follows it (a "**" may match nothing).
  void enter(StateSet& s, std::size_t i) const {
    s.insert(i);
    while (i < components_.size() && components_[i].kind == GlobComponent::Kind::any_components) s.insert(++i);
  }
  // `out` = states after consuming one path component `name` from `in`.
  void step(const StateSet& in, std::string_view name, StateSet& out) const {
    out.reset(state_count());
    in.for_each([&](std::size_t i) {
      if (i == components_.size()) return;
      const GlobComponent& c = components_[i];
      if (c.kind == GlobComponent::Kind::any_components) enter(out, i);
      else if (component_matches(c, name)) enter(out, i + 1);
    });
  }
  // The part of step() that does not depend on the name: the "**" states staying put.
  void stay(const StateSet& in, StateSet& out) const {
    out.reset(state_count());
    in.for_each([&](std::size_t i) {
      if (i < components_.size() && components_[i].kind == GlobComponent::Kind::any_components) enter(out, i);
    });
  }
  bool accepts(const StateSet& s) const { return s.contains(components_.size()); }
  // Some state still has a component to consume: a path below could match.
  bool can_continue(const StateSet& s) const {
    bool any = false;
    s.for_each([&](std::size_t i) { any = any || i < components_.size(); });
    return any;
  }
  StateSet run(std::span<const std::string_view> names) const {
    StateSet current = start(), next;
    for (std::string_view name : names) {
      step(current, name, next);
      std::swap(current, next);
      if (current.empty()) break;
    }
    return current;
  }

 private:
  std::vector<GlobComponent> components_;
};

// Characters that have a meaning outside brackets in POSIX ERE, ECMAScript or SBPL (whose regex
// sits in a "..." string).
inline constexpr std::string_view regex_specials = ".+$|{}()^\\[]*?\"";

inline void append_escaped(std::string& out, char c) {
  if (regex_specials.find(c) != std::string_view::npos) out.push_back('\\');
  out.push_back(c);
}

// Inside brackets the dialects disagree on '\' (ECMAScript escape, POSIX literal), ']' and '"'.
// So no bracket holds a backslash escape other than "\\" (a backslash in both: POSIX just lists it
// twice), ']' and '"' never appear raw, '-' goes first, '[' last, '^' never first.
inline bool bracket_awkward(unsigned c) {
  return c == ']' || c == '\\' || c == '^' || c == '-' || c == '[' || c == '"';
}

// Appends the plain members of `set` (ASCII, not awkward) as single characters and ranges.
inline void append_plain_members(std::string& out, const std::bitset<256>& set) {
  unsigned c = 1;
  while (c < 128) {
    if (!set.test(c) || bracket_awkward(c)) {
      ++c;
      continue;
    }
    unsigned end = c;
    while (end + 1 < 128 && set.test(end + 1) && !bracket_awkward(end + 1)) ++end;
    out.push_back(static_cast<char>(c));
    if (end >= c + 2) out.push_back('-');
    if (end >= c + 1) out.push_back(static_cast<char>(end));
    c = end + 1;
  }
}

inline std::string class_to_regex(const std::bitset<256>& match) {
  std::vector<std::string> alternatives;
  std::string bracket;
  bool ascii_only = !match.test(0);
  for (unsigned c = 128; c < 256 && ascii_only; ++c) ascii_only = !match.test(c);
  if (ascii_only) {
    // Positive bracket; ']' '^' '"' go outside it, escaped.
    for (char c : {']', '^', '"'})
      if (match.test(static_cast<unsigned char>(c))) alternatives.push_back(std::string("\\") + c);
    std::string members;
    if (match.test('-')) members += '-';
    append_plain_members(members, match);
    if (match.test('\\')) members += "\\\\";
    if (match.test('[')) members += '[';
    if (!members.empty()) bracket = "[" + members + "]";
  } else {
    // Negated bracket over the excluded set (ASCII, contains '/'). ']' and '"' are excluded via a
    // range over them and their neighbours; neighbours that should match are added back.
    std::bitset<256> excluded = ~match;
    excluded.reset(0);
    std::string tail;
    const auto cover = [&](unsigned char c, const char* range) {
      if (!excluded.test(c)) return;
      tail += range;
      for (unsigned char n : {static_cast<unsigned char>(c - 1), static_cast<unsigned char>(c + 1)}) {
        if (!excluded.test(n)) {
          std::string alt;
          append_escaped(alt, static_cast<char>(n));
          alternatives.push_back(alt);
          excluded.set(n);
        }
      }
    };
    cover(']', "\\\\-^");
    cover('"', "!-#");
    std::string members;
    if (excluded.test('-')) members += '-';
    members += '/';
    std::bitset<256> plain = excluded;
    plain.reset('/');
    if (excluded.test(']')) {  // covered above, together with '\' and '^'
      plain.reset('\\');
      plain.reset('^');
    }
    if (excluded.test('"')) {
      plain.reset('!');
      plain.reset('#');
    }
    append_plain_members(members, plain);
    members += tail;
    if (!excluded.test(']')) {
      if (excluded.test('\\')) members += "\\\\";
      if (excluded.test('^')) members += '^';
    }
    if (excluded.test('[')) members += '[';
    bracket = "[^" + members + "]";
  }
  if (alternatives.empty()) return bracket;
  std::string out = "(";
  if (!bracket.empty()) alternatives.insert(alternatives.begin(), bracket);
  for (std::size_t i = 0; i < alternatives.size(); ++i) out += (i ? "|" : "") + alternatives[i];
  return out + ")";
}

inline void append_component_regex(std::string& out, const GlobComponent& c) {
  if (c.kind == GlobComponent::Kind::literal) {
    for (char ch : c.text) append_escaped(out, ch);
    return;
  }
  for (const GlobToken& token : c.tokens) {
    switch (token.kind) {
      case GlobToken::Kind::literal:
        for (char ch : token.text) append_escaped(out, ch);
        break;
      case GlobToken::Kind::any_char: out += "[^/]"; break;
      case GlobToken::Kind::any_run: out += "[^/]*"; break;
      case GlobToken::Kind::char_class: out += class_to_regex(token.set); break;
    }
  }
}

}  // namespace detail

class Glob {
 public:
  // Throws Error naming the pattern when it is malformed (unbalanced '[', reversed range, a class
  // that can never match, a NUL byte).
  explicit Glob(std::string pattern) : pattern_(std::move(pattern)) {
    if (pattern_.find('\0') != std::string::npos)
      throw Error("glob pattern " + quote_for_message(pattern_) + " contains a NUL byte");
    std::vector<detail::GlobComponent> components;
    for (std::string_view part : detail::split_components(pattern_))
      components.push_back(detail::parse_component(pattern_, part));
    program_ = detail::GlobProgram::compile(std::move(components));
  }

  bool matches(std::string_view path) const {
    const std::vector<std::string_view> names = detail::split_components(path);
    return program_.accepts(program_.run(names));
  }

  const std::string& pattern() const { return pattern_; }

  // The leading whole components without glob characters, normalised: "/a/b/*.js" -> "/a/b",
  // "/*" -> "/", a pattern without glob characters -> itself, "*.js" -> "".
  std::string base_directory() const {
    std::string base;
    const std::vector<std::string_view> parts = detail::split_components(pattern_);
    for (std::size_t i = 0; i < parts.size() && !has_glob_chars(parts[i]); ++i) {
      if (i > 0) base.push_back('/');
      base.append(parts[i]);
    }
    if (base.empty()) return pattern_.starts_with('/') ? "/" : "";
    return normalize_path(base);
  }

  // False when no path strictly below `dir` can match, so a walk need not enter it.
  bool could_match_below(std::string_view dir) const {
    const std::string normal = normalize_path(dir);
    std::vector<std::string_view> names = detail::split_components(normal);
    if (normal == "/") names.pop_back();  // "/" is the root component alone
    return program_.can_continue(program_.run(names));
  }

  const detail::GlobProgram& program() const { return program_; }

 private:
  std::string pattern_;
  detail::GlobProgram program_;
};

// An anchored regex matching exactly the paths Glob(pattern).matches accepts; valid as POSIX ERE
// (SBPL's dialect) and as std::regex ECMAScript. Every literal character special in any of them
// is escaped. Throws like Glob's constructor.
inline std::string glob_to_regex(std::string_view pattern) {
  const Glob glob{std::string(pattern)};
  const std::vector<detail::GlobComponent>& cs = glob.program().components();
  using Kind = detail::GlobComponent::Kind;
  std::string out = "^";
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const bool after_any = i > 0 && cs[i - 1].kind == Kind::any_components;  // it ends in '/'
    if (cs[i].kind == Kind::any_components && i + 1 == cs.size()) {
      out += "(/[^/]*)*";  // the "**" of a trailing "*" "**": further components
      continue;
    }
    if (i > 0 && !after_any) out += '/';
    if (cs[i].kind == Kind::any_components) out += "([^/]*/)*";
    else detail::append_component_regex(out, cs[i]);
  }
  return out + "$";
}

struct GlobLimits {
  std::size_t max_matches = 100;     // the spec's per-pattern threshold for bubblewrap
  std::size_t max_depth = 64;        // directories below the pattern's base directory
  std::size_t max_visited = 1'000'000;  // directory entries examined by one walk, all globs
};

struct GlobMatches {
  std::vector<std::string> paths;  // sorted; at most max_matches
  bool truncated = false;          // a limit was hit: paths is incomplete
  std::string reason;              // which limit, for the debug log

  bool operator==(const GlobMatches&) const = default;
};

namespace detail {

// One depth-first walk serving every glob. A directory is listed once however many globs need it;
// a directory below which no glob can match is never entered; a directory where every glob wants
// only literal names is probed with type() instead of listed.
//
// Speed on large trees comes from a Plan: everything about a set of active globs that does not
// depend on the entry name, computed once and shared. Below a "**" the globs usually stay in the
// same states, so one plan serves a whole subtree and an entry costs one hash lookup.
class GlobWalk {
 public:
  GlobWalk(std::span<const Glob> globs, const FsView& fs, const GlobLimits& limits)
      : fs_(fs), limits_(limits), results_(globs.size()), programs_(globs.size()),
        depth_limit_(globs.size()), done_(globs.size(), false) {
    std::vector<Active> root;
    std::map<std::string, std::string> resolved;  // base directories shared by several globs
    for (std::size_t g = 0; g < globs.size(); ++g) {
      const Glob& glob = globs[g];
      if (!glob.pattern().starts_with('/'))
        throw Error("cannot expand glob \"" + glob.pattern() + "\": not an absolute path");
      // Symlinks in the literal leading directories are followed (the policy named that place);
      // below them the walk does not follow symlinks. The last component is never resolved, so
      // a matching symlink is reported as itself.
      const std::vector<GlobComponent>& cs = glob.program().components();
      std::size_t literal = 1;
      while (literal + 1 < cs.size() && cs[literal].kind == GlobComponent::Kind::literal) ++literal;
      std::string prefix = "/";
      for (std::size_t i = 1; i < literal; ++i) prefix += (i > 1 ? "/" : "") + cs[i].text;
      auto [it, inserted] = resolved.try_emplace(prefix);
      if (inserted) {
        try {
          it->second = fs.resolve(prefix);
        } catch (const Error&) {
          it->second.clear();  // a symlink loop: nothing can be opened below it
        }
      }
      const std::string& base = it->second;
      if (base.empty()) continue;
      std::vector<GlobComponent> rooted{GlobComponent{GlobComponent::Kind::literal, "", {}}};
      if (base != "/")
        for (std::string_view name : split_components(std::string_view(base).substr(1)))
          rooted.push_back(GlobComponent{GlobComponent::Kind::literal, std::string(name), {}});
      depth_limit_[g] = rooted.size() - 1 + limits.max_depth;
      rooted.insert(rooted.end(), cs.begin() + static_cast<std::ptrdiff_t>(literal), cs.end());
      programs_[g] = GlobProgram(std::move(rooted));
      StateSet at_root;
      programs_[g].step(programs_[g].start(), "", at_root);
      if (programs_[g].can_continue(at_root)) root.push_back({g, std::move(at_root)});
    }
    if (!root.empty()) visit("/", 0, make_plan(std::move(root)));
    for (GlobMatches& r : results_) std::sort(r.paths.begin(), r.paths.end());
  }

  std::vector<GlobMatches> take() { return std::move(results_); }

 private:
  struct Active {
    std::size_t glob;
    StateSet states;
  };
  struct Transition {
    std::size_t active;  // index into Plan::active
    std::size_t state;   // a state whose component consumed the name
  };
  struct Plan {
    std::vector<Active> active;
    std::vector<StateSet> stay;              // per active: states after a name that fires nothing
    std::vector<std::size_t> stay_accepting;  // actives whose stay states accept
    std::unordered_map<std::string_view, std::vector<Transition>> literal;
    std::vector<Transition> wildcard;
    bool probe_only = true;                  // every live state wants a literal name
    std::vector<std::string_view> probe_names;
    std::size_t depth_limit = 0;             // deepest directory every glob here may list
    std::shared_ptr<Plan> stay_plan;         // the children's plan when nothing fires (null: none)
    bool stay_is_self = false;
    bool stay_built = false;
    std::size_t live_generation = ~std::size_t{0};
    bool live = true;
  };
  using PlanPtr = std::shared_ptr<Plan>;

  PlanPtr make_plan(std::vector<Active> active) const {
    auto plan = std::make_shared<Plan>();
    plan->active = std::move(active);
    plan->depth_limit = ~std::size_t{0};
    for (std::size_t k = 0; k < plan->active.size(); ++k) {
      const Active& a = plan->active[k];
      const GlobProgram& program = programs_[a.glob];
      plan->depth_limit = std::min(plan->depth_limit, depth_limit_[a.glob]);
      StateSet stay;
      program.stay(a.states, stay);
      if (program.accepts(stay)) plan->stay_accepting.push_back(k);
      plan->stay.push_back(std::move(stay));
      a.states.for_each([&](std::size_t i) {
        if (i == program.components().size()) return;
        const GlobComponent& c = program.components()[i];
        if (c.kind == GlobComponent::Kind::literal) {
          plan->literal[c.text].push_back({k, i});
          plan->probe_names.push_back(c.text);
        } else {
          plan->probe_only = false;
          if (c.kind == GlobComponent::Kind::wildcard) plan->wildcard.push_back({k, i});
        }
      });
    }
    std::sort(plan->probe_names.begin(), plan->probe_names.end());
    plan->probe_names.erase(std::unique(plan->probe_names.begin(), plan->probe_names.end()), plan->probe_names.end());
    return plan;
  }

  // The plan for a directory entry that fired no transition: the "**" states carried down.
  PlanPtr stay_plan(const PlanPtr& plan) {
    if (!plan->stay_built) {
      plan->stay_built = true;
      std::vector<Active> below;
      for (std::size_t k = 0; k < plan->active.size(); ++k)
        if (programs_[plan->active[k].glob].can_continue(plan->stay[k]))
          below.push_back({plan->active[k].glob, plan->stay[k]});
      const bool same = below.size() == plan->active.size() &&
                        std::equal(below.begin(), below.end(), plan->active.begin(), [](const Active& x, const Active& y) {
                          return x.glob == y.glob && x.states == y.states;
                        });
      if (same) plan->stay_is_self = true;
      else if (!below.empty()) plan->stay_plan = make_plan(std::move(below));
    }
    return plan->stay_is_self ? plan : plan->stay_plan;
  }

  bool live(Plan& plan) {
    if (plan.live_generation != done_generation_) {
      plan.live_generation = done_generation_;
      plan.live = std::any_of(plan.active.begin(), plan.active.end(), [&](const Active& a) { return !done_[a.glob]; });
    }
    return plan.live;
  }

  void visit(const std::string& dir, std::size_t depth, const PlanPtr& plan) {
    std::vector<DirEntry> entries;
    if (plan->probe_only) {
      for (std::string_view name : plan->probe_names) {
        // A literal name may be "", "." or ".." (an odd pattern): never an entry of a listing.
        if (name.empty() || name == "." || name == "..") continue;
        const FileType t = fs_.type(child_path(dir, name));
        if (t != FileType::missing) entries.push_back({std::string(name), t});
      }
    } else {
      entries = fs_.list(dir);
    }
    std::vector<Transition> fired;
    for (const DirEntry& entry : entries) {
      if (++visited_ > limits_.max_visited) {
        aborted_ = true;
        abort_reason_ = "visited more than " + std::to_string(limits_.max_visited) + " directory entries";
        truncate(*plan, abort_reason_);
        return;
      }
      fired.clear();
      if (const auto it = plan->literal.find(entry.name); it != plan->literal.end()) fired = it->second;
      for (const Transition& t : plan->wildcard)
        if (component_matches(programs_[plan->active[t.active].glob].components()[t.state], entry.name))
          fired.push_back(t);
      const bool is_dir = entry.type == FileType::directory;
      if (fired.empty() && plan->stay_accepting.empty() && !is_dir) continue;  // the common file
      const std::string path = child_path(dir, entry.name);
      PlanPtr below;
      if (fired.empty()) {
        for (std::size_t k : plan->stay_accepting) add_match(plan->active[k].glob, path);
        if (is_dir) below = stay_plan(plan);
      } else {
        std::vector<StateSet> states = plan->stay;
        for (const Transition& t : fired) programs_[plan->active[t.active].glob].enter(states[t.active], t.state + 1);
        std::vector<Active> next;
        for (std::size_t k = 0; k < states.size(); ++k) {
          const std::size_t g = plan->active[k].glob;
          if (programs_[g].accepts(states[k])) add_match(g, path);
          if (is_dir && programs_[g].can_continue(states[k])) next.push_back({g, std::move(states[k])});
        }
        if (!next.empty()) below = make_plan(std::move(next));
      }
      if (below == nullptr || !live(*below)) continue;
      if (depth + 1 > below->depth_limit) below = within_depth(below, depth + 1);
      if (below == nullptr) continue;
      visit(path, depth + 1, below);
      if (aborted_) {
        truncate(*plan, abort_reason_);
        return;
      }
    }
  }

  // `plan` without the globs that may not list a directory at `depth`; those are truncated.
  PlanPtr within_depth(const PlanPtr& plan, std::size_t depth) {
    std::vector<Active> kept;
    for (const Active& a : plan->active) {
      if (depth <= depth_limit_[a.glob]) kept.push_back(a);
      else truncate_one(a.glob, "deeper than " + std::to_string(limits_.max_depth) + " directories below the base directory");
    }
    return kept.empty() ? nullptr : make_plan(std::move(kept));
  }

  static std::string child_path(const std::string& dir, std::string_view name) {
    std::string path;
    path.reserve(dir.size() + 1 + name.size());
    path = dir;
    if (dir != "/") path.push_back('/');
    path.append(name);
    return path;
  }

  void add_match(std::size_t g, const std::string& path) {
    if (done_[g]) return;
    if (results_[g].paths.size() >= limits_.max_matches) {
      truncate_one(g, "more than " + std::to_string(limits_.max_matches) + " matches");
      return;
    }
    results_[g].paths.push_back(path);
  }

  void truncate_one(std::size_t g, const std::string& reason) {
    if (done_[g]) return;
    done_[g] = true;
    ++done_generation_;
    results_[g].truncated = true;
    results_[g].reason = reason;
  }

  void truncate(const Plan& plan, const std::string& reason) {
    for (const Active& a : plan.active) truncate_one(a.glob, reason);
  }

  const FsView& fs_;
  const GlobLimits& limits_;
  std::vector<GlobMatches> results_;
  std::vector<GlobProgram> programs_;
  std::vector<std::size_t> depth_limit_;  // per glob: base directory depth + max_depth
  std::vector<bool> done_;
  std::size_t done_generation_ = 0;
  std::size_t visited_ = 0;
  bool aborted_ = false;
  std::string abort_reason_;
};

}  // namespace detail

// Expands every glob against `fs` in one walk; result i belongs to globs[i]. Patterns must be
// absolute. The walk does not descend through symlinks (except in the literal leading
// directories, which are resolved first, so results under them use the resolved path) and
// reports matching symlinks like any other entry. When a limit is hit the glob's result is
// `truncated` with a reason, and the caller falls back to its base_directory().
inline std::vector<GlobMatches> expand_globs(std::span<const Glob> globs, const FsView& fs,
                                             const GlobLimits& limits = {}) {
  return detail::GlobWalk(globs, fs, limits).take();
}

}  // namespace pmg
