#pragma once
// Strict reading of the YAML files pmg trusts with security decisions (policies, config.yml):
// the text is checked before yaml-cpp sees it, anything yaml-cpp would expand (aliases) or
// recurse on without bound is refused, and every error names "source:line:col". The policy
// loader and the config loader both read through this header so both are equally strict.
#include <yaml-cpp/anchor.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pmg/error.hpp"
#include "pmg/suggest.hpp"

namespace pmg {

// Bounds far above any real policy or config, far below what could exhaust memory or stack.
struct YamlLimits {
  std::size_t max_bytes = 1024 * 1024;
  std::size_t max_nodes = 20'000;
  std::size_t max_depth = 32;
};

// 1-based position in a source text; 0 means unknown.
struct SourceLocation {
  std::size_t line = 0;
  std::size_t column = 0;
  bool operator==(const SourceLocation&) const = default;
};

inline SourceLocation to_location(const YAML::Mark& mark) {
  if (mark.is_null() || mark.line < 0 || mark.column < 0) return {};
  return {static_cast<std::size_t>(mark.line) + 1, static_cast<std::size_t>(mark.column) + 1};
}

// "source:line:col" (or just "source" when the position is unknown).
inline std::string describe_location(std::string_view source, SourceLocation at) {
  std::string out(source);
  if (at.line != 0) out += ":" + std::to_string(at.line) + ":" + std::to_string(at.column);
  return out;
}

[[noreturn]] inline void fail_at(std::string_view source, SourceLocation at, std::string_view message) {
  throw Error(describe_location(source, at) + ": " + std::string(message));
}

[[noreturn]] inline void fail_at(std::string_view source, const YAML::Node& node, std::string_view message) {
  fail_at(source, to_location(node.Mark()), message);
}

namespace detail {

inline std::string fmt_hex(unsigned char byte) {
  static constexpr char digits[] = "0123456789ABCDEF";
  return {digits[byte >> 4], digits[byte & 0x0F]};
}

// Rejects NUL and other control characters (YAML forbids them; they would also end up in paths)
// and byte sequences that are not UTF-8 (yaml-cpp passes them through silently).
inline void check_yaml_text(std::string_view text, std::string_view source, const YamlLimits& limits) {
  if (text.size() > limits.max_bytes)
    throw Error(std::string(source) + ": the file is " + std::to_string(text.size()) +
                " bytes; pmg reads YAML files of at most " + std::to_string(limits.max_bytes) + " bytes");
  SourceLocation at{1, 1};
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    std::size_t length = 1;
    std::uint32_t code = byte;
    if (byte >= 0x80) {
      if (byte >= 0xC2 && byte <= 0xDF) {
        length = 2;
        code = byte & 0x1Fu;
      } else if (byte >= 0xE0 && byte <= 0xEF) {
        length = 3;
        code = byte & 0x0Fu;
      } else if (byte >= 0xF0 && byte <= 0xF4) {
        length = 4;
        code = byte & 0x07u;
      } else {
        length = 0;
      }
      bool valid = length != 0 && i + length <= text.size();
      for (std::size_t k = 1; valid && k < length; ++k) {
        const auto next = static_cast<unsigned char>(text[i + k]);
        valid = (next & 0xC0u) == 0x80u;
        code = (code << 6) | (next & 0x3Fu);
      }
      // Overlong forms, UTF-16 surrogates and code points above U+10FFFF are not UTF-8 either.
      valid = valid && !(length == 3 && code < 0x800) && !(length == 4 && code < 0x10000) &&
              !(code >= 0xD800 && code <= 0xDFFF) && code <= 0x10FFFF;
      if (!valid)
        fail_at(source, at, "the file is not valid UTF-8 (byte 0x" + fmt_hex(byte) +
                                "); save it as UTF-8");
    } else if (byte == 0) {
      fail_at(source, at, "the file contains a NUL byte; YAML text cannot contain NUL");
    } else if ((byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') || byte == 0x7F) {
      fail_at(source, at, "the file contains the control character 0x" + fmt_hex(byte) +
                              "; remove it");
    }
    if (byte == '\n') {
      ++at.line;
      at.column = 1;
    } else {
      ++at.column;
    }
    i += length;
  }
}

// Walks the parser's events before any node tree exists: yaml-cpp's node builder resolves
// aliases by sharing nodes, so a few hundred bytes of nested aliases ("billion laughs") become
// an exponential tree for every walker after it. Policies never need anchors, so they are refused
// outright; node count and depth are bounded for documents without them.
class YamlGuard final : public YAML::EventHandler {
 public:
  YamlGuard(std::string_view source, const YamlLimits& limits) : source_(source), limits_(limits) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1)
      fail_at(source_, to_location(mark), "a second YAML document ('---') is not allowed; keep one document per file");
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { node(mark, anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    fail_at(source_, to_location(mark), "YAML aliases ('*name') are not allowed; write the values out");
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string&) override {
    node(mark, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { --depth_; }
  void OnAnchor(const YAML::Mark& mark, const std::string&) override { anchor_found(mark); }

 private:
  void anchor_found(const YAML::Mark& mark) {
    fail_at(source_, to_location(mark), "YAML anchors ('&name') are not allowed; write the values out");
  }
  void node(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) anchor_found(mark);
    if (++nodes_ > limits_.max_nodes)
      fail_at(source_, to_location(mark),
              "more than " + std::to_string(limits_.max_nodes) + " YAML nodes; this is not a policy or config file");
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    node(mark, anchor);
    if (++depth_ > limits_.max_depth)
      fail_at(source_, to_location(mark),
              "nesting deeper than " + std::to_string(limits_.max_depth) + " levels; this is not a policy or config file");
  }

  std::string_view source_;
  const YamlLimits& limits_;
  std::size_t documents_ = 0;
  std::size_t nodes_ = 0;
  std::size_t depth_ = 0;
};

inline std::string_view kind_name(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Null: return "nothing (null)";
    case YAML::NodeType::Undefined: break;
  }
  return "nothing";
}

}  // namespace detail

// Parses one YAML document from trusted-but-fallible text. Every failure, including yaml-cpp's
// own syntax errors, is an Error "source:line:col: ...". An empty document yields a Null node.
inline YAML::Node load_yaml_document(std::string_view text, std::string_view source,
                                     const YamlLimits& limits = {}) {
  detail::check_yaml_text(text, source, limits);
  const std::string owned(text);
  try {
    std::istringstream stream(owned);
    YAML::Parser parser(stream);
    detail::YamlGuard guard(source, limits);
    while (parser.HandleNextDocument(guard)) {
    }
    return YAML::Load(owned);
  } catch (const YAML::Exception& e) {
    fail_at(source, to_location(e.mark), "invalid YAML: " + e.msg);
  }
}

// Reads a YAML file's text for load_yaml_document. `what` names the file's role in messages
// ("policy file", "config file"). A missing, unreadable, non-regular or oversized file is an Error
// naming the path and the reason.
inline std::string read_yaml_file(const std::filesystem::path& file, std::string_view what,
                                  const YamlLimits& limits = {}) {
  const std::string name = std::string(what) + " " + file.string();
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (ec || !std::filesystem::exists(status))
    throw Error("cannot read " + name + ": " + (ec ? ec.message() : std::string("no such file")));
  if (!std::filesystem::is_regular_file(status)) throw Error("cannot read " + name + ": not a regular file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error("cannot read " + name + ": " + std::string(std::strerror(errno)));
  std::string text;
  char buffer[8192];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > limits.max_bytes)
      throw Error(name + " is larger than " + std::to_string(limits.max_bytes) +
                  " bytes; pmg reads YAML files of at most that size");
  }
  if (in.bad()) throw Error("cannot read " + name + ": read error");
  return text;
}

// One key of a mapping with the node of its key (for positions) and its value.
struct YamlField {
  std::string key;
  YAML::Node key_node;
  YAML::Node value;
};

// The entries of a mapping, in file order. `node` must be a mapping (a null value, as left by
// "filesystem:" with every line below commented out, counts as empty); keys must be plain
// strings and unique; with a non-empty `allowed_keys` every key must be one of them, and a
// near-miss gets a suggestion. `where` completes "unknown key 'x' ...", e.g. "in filesystem".
inline std::vector<YamlField> read_mapping(const YAML::Node& node, std::string_view source,
                                           std::string_view what, std::string_view where,
                                           std::span<const std::string> allowed_keys) {
  std::vector<YamlField> fields;
  if (node.IsNull()) return fields;
  if (!node.IsMap())
    fail_at(source, node, std::string(what) + " must be a mapping of 'key: value' lines, not " +
                              std::string(detail::kind_name(node)));
  std::set<std::string, std::less<>> seen;
  for (const auto& pair : node) {
    // Copies: the iterator's pair is a temporary that a reference would outlive.
    const YAML::Node key_node = pair.first;
    const YAML::Node value = pair.second;
    if (!key_node.IsScalar())
      fail_at(source, key_node, "keys " + std::string(where) + " must be plain names, not " +
                                    std::string(detail::kind_name(key_node)));
    std::string key = key_node.Scalar();
    if (!allowed_keys.empty() &&
        std::find(allowed_keys.begin(), allowed_keys.end(), key) == allowed_keys.end()) {
      std::string message = "unknown key '" + key + "' " + std::string(where);
      if (auto guess = closest_match(key, allowed_keys))
        message += "; did you mean '" + *guess + "'?";
      else
        message += "; expected one of: " + join_names(allowed_keys);
      fail_at(source, key_node, message);
    }
    if (!seen.insert(key).second)
      fail_at(source, key_node, "duplicate key '" + key + "' " + std::string(where) + "; keep one of them");
    fields.push_back({std::move(key), key_node, value});
  }
  return fields;
}

// A string value; `what` names the key in messages ("name", "sandbox.backend").
inline std::string read_string(const YAML::Node& node, std::string_view source, std::string_view what) {
  if (!node.IsScalar())
    fail_at(source, node, std::string(what) + " must be a string, not " + std::string(detail::kind_name(node)));
  return node.Scalar();
}

// Only the YAML 1.2 booleans, unquoted: "yes"/"on" are strings in YAML 1.2 and booleans in 1.1,
// and a security switch must not depend on which one the reader implements.
inline bool read_bool(const YAML::Node& node, std::string_view source, std::string_view what) {
  if (node.IsScalar() && node.Tag() == "?") {
    const std::string& text = node.Scalar();
    if (text == "true" || text == "True" || text == "TRUE") return true;
    if (text == "false" || text == "False" || text == "FALSE") return false;
  }
  std::string found = node.IsScalar() ? "'" + node.Scalar() + "'" : std::string(detail::kind_name(node));
  if (node.IsScalar() && node.Tag() != "?") found = "the quoted string " + found;
  fail_at(source, node, std::string(what) + " must be true or false (unquoted), not " + found);
}

// A list of strings, each with its position. A null value counts as an empty list.
inline std::vector<std::pair<std::string, SourceLocation>> read_string_list(
    const YAML::Node& node, std::string_view source, std::string_view what) {
  std::vector<std::pair<std::string, SourceLocation>> items;
  if (node.IsNull()) return items;
  if (!node.IsSequence())
    fail_at(source, node, std::string(what) + " must be a list ('- entry' lines), not " +
                              std::string(detail::kind_name(node)));
  for (const YAML::Node& item : node) {
    if (!item.IsScalar())
      fail_at(source, item, "entries of " + std::string(what) + " must be strings, not " +
                                std::string(detail::kind_name(item)));
    items.emplace_back(item.Scalar(), to_location(item.Mark()));
  }
  return items;
}

}  // namespace pmg
