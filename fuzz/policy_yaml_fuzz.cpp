// Fuzz target: policy files. Whatever the bytes, parse_policy_yaml either throws pmg::Error or
// returns a policy for which these hold (any other exception, crash or sanitizer report is a bug):
//   - emit_policy_yaml round-trips it exactly;
//   - ProfileRegistry::resolve of the same text as a file (inheritance against the built-in
//     profiles) either throws pmg::Error or yields the child's rules united with its parent's;
//   - the resolved policy expands (expand_policy) against any absolute Context, since loading
//     already checked every entry, into absolute, normalised paths without NUL or newline;
//   - every glob entry compiles or throws pmg::Error.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "pmg/glob.hpp"
#include "pmg/policy_schema.hpp"
#include "pmg/policy_yaml.hpp"
#include "pmg/profile_registry.hpp"
#include "pmg/variables.hpp"

namespace {

using pmg::fuzz::invariant_failed;

// A private directory for the file ProfileRegistry::resolve reads; one per fuzzing process.
std::filesystem::path scratch_file() {
  static const std::filesystem::path file = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp != nullptr && tmp[0] == '/' ? tmp : "/tmp") + "/pmg-fuzz-policy.XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) invariant_failed("setup", "mkdtemp failed");
    static const std::filesystem::path dir = templ;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    });
    return dir / "policy.yml";
  }();
  return file;
}

bool contains(const std::vector<std::string>& list, const std::string& entry) {
  return std::find(list.begin(), list.end(), entry) != list.end();
}

void check_resolved(const pmg::Policy& child, const pmg::Policy& resolved) {
  if (resolved.name != child.name || resolved.package_managers != child.package_managers)
    invariant_failed("resolve changed the name or package managers", pmg::emit_policy_yaml(resolved));
  pmg::Policy parent;
  if (child.inherits) parent = pmg::ProfileRegistry::builtin_only().builtin(*child.inherits);
  // Every rule of the child and of its parent is in the result, and nothing else is.
  pmg::for_each_list_field(
      [&](const pmg::ListField& field, const std::vector<std::string>& out, const std::vector<std::string>& from_child,
          const std::vector<std::string>& from_parent) {
        for (const auto* side : {&from_child, &from_parent})
          for (const std::string& entry : *side)
            if (!contains(out, entry))
              invariant_failed("resolve dropped a rule", field.name() + ": " + pmg::fuzz::printable(entry));
        for (const std::string& entry : out)
          if (!contains(from_child, entry) && !contains(from_parent, entry))
            invariant_failed("resolve invented a rule", field.name() + ": " + pmg::fuzz::printable(entry));
      },
      resolved, child, parent);
  pmg::for_each_bool_field(
      [&](std::string_view key, const std::optional<bool>& out, const std::optional<bool>& from_child,
          const std::optional<bool>& from_parent) {
        if (out != (from_child ? from_child : from_parent))
          invariant_failed("resolve got a boolean wrong", std::string(key));
      },
      resolved, child, parent);
}

void check_expansion(const pmg::Policy& resolved) {
  pmg::Policy expanded;
  try {
    expanded = pmg::expand_policy(resolved, pmg::fuzz::fuzz_context());
  } catch (const pmg::Error& e) {
    invariant_failed("a loaded policy does not expand against an absolute Context", e.what());
  }
  pmg::for_each_list_field(
      [&](const pmg::ListField& field, const std::vector<std::string>& list) {
        if (field.kind != pmg::EntryKind::path) return;
        for (const std::string& path : list) {
          if (path.empty() || path.front() != '/' || pmg::normalize_path(path) != path ||
              path.find_first_of(std::string_view("\0\n", 2)) != std::string::npos)
            invariant_failed("expansion produced a bad path", field.name() + ": " + pmg::fuzz::printable(path));
          if (!pmg::has_glob_chars(path)) continue;
          try {
            pmg::Glob glob(path);
          } catch (const pmg::Error&) {
            // A malformed glob is refused with a message; that is the expected outcome.
          }
        }
      },
      expanded);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  pmg::Policy policy;
  try {
    policy = pmg::parse_policy_yaml(text, "fuzz.yml");
  } catch (const pmg::Error&) {
    return 0;
  }

  const std::string emitted = pmg::emit_policy_yaml(policy);
  try {
    if (pmg::parse_policy_yaml(emitted, "fuzz.yml") != policy)
      invariant_failed("emit_policy_yaml does not round-trip", emitted);
  } catch (const pmg::Error& e) {
    invariant_failed("emit_policy_yaml wrote a policy that does not load", std::string(e.what()) + "\n" + emitted);
  }

  const std::filesystem::path file = scratch_file();
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  pmg::Policy resolved;
  try {
    resolved = pmg::ProfileRegistry::builtin_only().resolve(file.string());
  } catch (const pmg::Error&) {
    return 0;  // e.g. an unknown parent, or a policy that allows nothing
  }
  pmg::Policy child = policy;
  child.source = file.string();
  check_resolved(child, resolved);
  check_expansion(resolved);
  return 0;
}
