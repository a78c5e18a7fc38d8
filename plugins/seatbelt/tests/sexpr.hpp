#pragma once
// A small, strict reader for the SBPL the translation writes, used to check generated profiles
// the way Seatbelt's reader would see them: balanced parentheses, terminated strings, known
// escapes only. It yields atoms with their kind, so a test can tell text inside a string literal
// from text that would be read as code.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pmg::seatbelt::test {

struct Node {
  enum class Kind { list, symbol, string, regex_literal };
  Kind kind = Kind::list;
  std::string text;            // symbol name, or the decoded content of a string / #"..." literal
  std::vector<Node> children;  // list

  bool is_list() const { return kind == Kind::list; }
  bool is_symbol(std::string_view name) const { return kind == Kind::symbol && text == name; }
  bool is_text() const { return kind == Kind::string || kind == Kind::regex_literal; }
};

class SexprError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads every top-level form of `text`. Throws SexprError with the offset on malformed input.
inline std::vector<Node> read_sexprs(std::string_view text) {
  std::size_t pos = 0;
  const auto fail = [&](const std::string& what) -> SexprError {
    return SexprError(what + " at offset " + std::to_string(pos));
  };
  const auto is_delimiter = [](char c) {
    return c == '(' || c == ')' || c == '"' || c == ';' || c == ' ' || c == '\n' || c == '\t' || c == '\r';
  };
  std::vector<Node> stack(1);  // stack[0] collects the top-level forms
  while (pos < text.size()) {
    const char c = text[pos];
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      ++pos;
    } else if (c == ';') {
      while (pos < text.size() && text[pos] != '\n') ++pos;
    } else if (c == '(') {
      stack.emplace_back();
      ++pos;
    } else if (c == ')') {
      if (stack.size() == 1) throw fail("unbalanced ')'");
      Node done = std::move(stack.back());
      stack.pop_back();
      stack.back().children.push_back(std::move(done));
      ++pos;
    } else if (c == '"') {
      Node atom{Node::Kind::string, {}, {}};
      ++pos;
      for (;;) {
        if (pos >= text.size()) throw fail("unterminated string");
        const char s = text[pos++];
        if (s == '"') break;
        if (s == '\n' || (static_cast<unsigned char>(s) < 0x20 && s != '\t'))
          throw fail("raw control character in a string");
        if (s != '\\') {
          atom.text += s;
          continue;
        }
        if (pos >= text.size()) throw fail("unterminated escape");
        const char e = text[pos++];
        switch (e) {
          case '"': atom.text += '"'; break;
          case '\\': atom.text += '\\'; break;
          case 'n': atom.text += '\n'; break;
          case 't': atom.text += '\t'; break;
          case 'r': atom.text += '\r'; break;
          default: throw fail(std::string("unknown escape \\") + e);
        }
      }
      stack.back().children.push_back(std::move(atom));
    } else if (c == '#' && pos + 1 < text.size() && text[pos + 1] == '"') {
      // #"..." passes its content to the regex engine verbatim and ends at the next '"'.
      const std::size_t end = text.find('"', pos + 2);
      if (end == std::string_view::npos) throw fail("unterminated #\"...\" literal");
      Node atom{Node::Kind::regex_literal, std::string(text.substr(pos + 2, end - pos - 2)), {}};
      for (char r : atom.text)
        if (static_cast<unsigned char>(r) < 0x20) throw fail("control character in a #\"...\" literal");
      stack.back().children.push_back(std::move(atom));
      pos = end + 1;
    } else {
      const std::size_t start = pos;
      while (pos < text.size() && !is_delimiter(text[pos])) ++pos;
      stack.back().children.push_back(Node{Node::Kind::symbol, std::string(text.substr(start, pos - start)), {}});
    }
  }
  if (stack.size() != 1) throw fail("unbalanced '(': " + std::to_string(stack.size() - 1) + " list(s) left open");
  return std::move(stack.front().children);
}

// Every atom below `node`, depth first.
inline void collect_atoms(const Node& node, std::vector<const Node*>& out) {
  if (!node.is_list()) {
    out.push_back(&node);
    return;
  }
  for (const Node& child : node.children) collect_atoms(child, out);
}

}  // namespace pmg::seatbelt::test
