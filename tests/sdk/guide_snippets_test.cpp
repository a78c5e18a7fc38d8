// docs/plugin-guide.md shows no code that CI does not compile or run: every fenced block in it is
// preceded by `<!-- snippet: FILE#REGION -->` and is, verbatim, the lines between
// `guide:begin REGION` and `guide:end REGION` in FILE (less their common indentation), where FILE
// is an example, a test or a script that CI builds and runs. Every marked region is shown.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path source_dir = PMG_SOURCE_DIR;
constexpr std::string_view snippet_marker = "<!-- snippet: ";

std::vector<std::string> read_lines(const fs::path& file) {
  std::ifstream in(file);
  INFO("cannot read " << file.string());
  REQUIRE(in);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

// The lines between the region's markers, less the indentation they all share.
std::string region(const fs::path& file, const std::string& name) {
  const auto lines = read_lines(source_dir / file);
  std::vector<std::string> body;
  bool inside = false, found = false;
  for (const auto& line : lines) {
    if (line.ends_with("guide:end " + name)) {
      inside = false;
      continue;
    }
    if (inside) body.push_back(line);
    if (line.ends_with("guide:begin " + name)) {
      INFO(file.string() << " marks region " << name << " twice");
      REQUIRE_FALSE(found);
      inside = found = true;
    }
  }
  INFO(file.string() << " has no region " << name << " (or it is not closed)");
  REQUIRE((found && !inside));
  std::size_t indent = std::string::npos;
  for (const auto& line : body)
    if (!line.empty()) indent = std::min(indent, line.find_first_not_of(' '));
  for (auto& line : body) line = line.empty() ? line : line.substr(indent);
  return join(body);
}

struct Snippet {
  std::string file;
  std::string name;
  std::string text;  // the fenced block's contents
  std::size_t line;  // in the guide
};

std::vector<Snippet> guide_snippets() {
  const auto lines = read_lines(source_dir / "docs/plugin-guide.md");
  std::vector<Snippet> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].starts_with("```")) continue;
    INFO("docs/plugin-guide.md:" << i + 1 << ": a code block without a <!-- snippet: FILE#REGION --> line above");
    REQUIRE(i > 0);
    const std::string& marker = lines[i - 1];
    REQUIRE(marker.starts_with(snippet_marker));
    REQUIRE(marker.ends_with(" -->"));
    const std::string ref = marker.substr(snippet_marker.size(), marker.size() - snippet_marker.size() - 4);
    const auto hash = ref.find('#');
    REQUIRE(hash != std::string::npos);
    std::vector<std::string> body;
    std::size_t end = i + 1;
    while (end < lines.size() && lines[end] != "```") body.push_back(lines[end++]);
    REQUIRE(end < lines.size());
    out.push_back({ref.substr(0, hash), ref.substr(hash + 1), join(body), i + 1});
    i = end;
  }
  return out;
}

}  // namespace

TEST_CASE("every code block of the plugin guide is a region of a file CI compiles or runs", "[sdk][guide]") {
  const auto snippets = guide_snippets();
  REQUIRE(snippets.size() >= 10);
  for (const auto& s : snippets) {
    INFO("docs/plugin-guide.md:" << s.line << " shows " << s.file << "#" << s.name);
    CHECK(s.text == region(s.file, s.name));
  }
}

TEST_CASE("every region marked for the guide is shown in it", "[sdk][guide]") {
  std::set<std::string> shown;
  for (const auto& s : guide_snippets()) shown.insert(s.file + "#" + s.name);
  for (const char* dir : {"examples", "tests/sdk"}) {
    for (const auto& entry : fs::recursive_directory_iterator(source_dir / dir)) {
      if (!entry.is_regular_file()) continue;
      const std::string file = fs::relative(entry.path(), source_dir).string();
      for (const auto& line : read_lines(entry.path())) {
        const auto at = line.find("guide:begin ");
        if (at == std::string::npos || file == "tests/sdk/guide_snippets_test.cpp") continue;
        const std::string name = line.substr(at + 12);
        INFO(file << " marks region " << name << " but docs/plugin-guide.md does not show it");
        CHECK(shown.count(file + "#" + name) == 1);
      }
    }
  }
}
