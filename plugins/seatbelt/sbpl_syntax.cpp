#include "sbpl_syntax.hpp"

#include <fmt/core.h>

#include "pmg/error.hpp"

namespace pmg::seatbelt {

namespace {

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

// The text as it can be shown in an error message: control bytes replaced, long text cut.
std::string printable(std::string_view text) {
  std::string out;
  for (char ch : text.substr(0, 200)) out += is_control(static_cast<unsigned char>(ch)) ? '?' : ch;
  return out;
}

}  // namespace

std::string sbpl_string(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (is_control(c))
          throw Error(fmt::format(
              "\"{}\" contains the control character 0x{:02x}, which pmg does not write into a "
              "Seatbelt profile; rename the path or remove it from the policy",
              printable(text), static_cast<unsigned>(c)));
        out += ch;
    }
  }
  out += '"';
  return out;
}

std::string sbpl_regex(std::string_view regex) {
  bool raw_safe = regex.empty() || regex.back() != '\\';
  for (char ch : regex)
    if (ch == '"' || is_control(static_cast<unsigned char>(ch))) raw_safe = false;
  if (!raw_safe) return sbpl_string(regex);
  std::string out = "#\"";
  out += regex;
  out += '"';
  return out;
}

}  // namespace pmg::seatbelt
