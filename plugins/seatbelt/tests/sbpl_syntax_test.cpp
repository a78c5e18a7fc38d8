#include <catch2/catch.hpp>

#include "pmg/error.hpp"
#include "sbpl_syntax.hpp"
#include "sexpr.hpp"

using namespace pmg::seatbelt;
using pmg::seatbelt::test::Node;
using pmg::seatbelt::test::read_sexprs;

namespace {

// What the reader makes of a literal written as the single argument of a list.
Node read_back(const std::string& literal) {
  const auto forms = read_sexprs("(f " + literal + ")");
  REQUIRE(forms.size() == 1);
  REQUIRE(forms[0].children.size() == 2);
  return forms[0].children[1];
}

}  // namespace

TEST_CASE("sbpl_string escapes quotes, backslashes and line breaks", "[seatbelt][syntax]") {
  CHECK(sbpl_string("/usr/lib") == "\"/usr/lib\"");
  CHECK(sbpl_string("a\"b") == "\"a\\\"b\"");
  CHECK(sbpl_string("a\\b") == "\"a\\\\b\"");
  CHECK(sbpl_string("a\nb\tc\rd") == "\"a\\nb\\tc\\rd\"");
  CHECK(sbpl_string("") == "\"\"");
}

TEST_CASE("sbpl_string round-trips hostile text as one string atom", "[seatbelt][syntax]") {
  for (const std::string& text : {
           std::string("/tmp/a\") (allow default) (\""),
           std::string("/tmp/x\n(allow file-write* (subpath \"/\"))"),
           std::string("/tmp/\\\")(allow default)"),
           std::string("/tmp/trailing\\"),
           std::string("; comment\n)"),
           std::string("/tmp/caf\xc3\xa9 . + $ | { } ( ) [ ] ^ * ?"),
       }) {
    const Node atom = read_back(sbpl_string(text));
    CHECK(atom.kind == Node::Kind::string);
    CHECK(atom.text == text);
  }
}

TEST_CASE("sbpl_string refuses control characters it cannot spell portably", "[seatbelt][syntax]") {
  CHECK_THROWS_AS(sbpl_string(std::string("a\0b", 3)), pmg::Error);
  CHECK_THROWS_AS(sbpl_string("a\x01" "b"), pmg::Error);
  CHECK_THROWS_AS(sbpl_string("a\x1b[31m"), pmg::Error);
  CHECK_THROWS_AS(sbpl_string("a\x7f"), pmg::Error);
  CHECK_THROWS_WITH(sbpl_string("/tmp/a\x01"), Catch::Contains("0x01") && Catch::Contains("/tmp/a?"));
}

TEST_CASE("sbpl_regex uses #\"...\" when it can and an escaped string when it must", "[seatbelt][syntax]") {
  SECTION("plain regexes stay readable") {
    CHECK(sbpl_regex("^/a/b\\.js$") == "#\"^/a/b\\.js$\"");
    const Node atom = read_back(sbpl_regex("^/a/b\\.js$"));
    CHECK(atom.kind == Node::Kind::regex_literal);
    CHECK(atom.text == "^/a/b\\.js$");
  }
  SECTION("a quote, a control character or a trailing backslash forces the string form") {
    for (const std::string& regex : {std::string("^/a\\\"b$"), std::string("^/a\nb$"), std::string("^/a\\"),
                                    std::string("^/a\") (allow default) (\"$")}) {
      const std::string literal = sbpl_regex(regex);
      CHECK(literal.front() == '"');
      const Node atom = read_back(literal);
      CHECK(atom.kind == Node::Kind::string);
      CHECK(atom.text == regex);
    }
  }
}
