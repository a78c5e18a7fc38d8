#pragma once
// Run-time expansion of ${HOME}, ${CWD} and ${TMPDIR} in policy paths (spec: "Variable expansion
// is runtime-only"). Values come from a Context, never from the environment, so a variable in a
// trusted policy file can only ever mean one of these three directories.
#include <string>
#include <string_view>
#include <vector>

#include "pmg/context.hpp"
#include "pmg/error.hpp"
#include "pmg/path.hpp"
#include "pmg/policy.hpp"

namespace pmg {

inline constexpr std::string_view valid_variables_text = "${HOME}, ${CWD} and ${TMPDIR}";

// Expands the variables in `text` and normalises the result (normalize_path). Throws Error
// naming `where` and `text` for: an unknown or unterminated variable, a leading '~', a context
// value that is not absolute, a result that is not absolute, a NUL or newline.
inline std::string expand_variables(std::string_view text, const Context& ctx, std::string_view where) {
  const auto fail = [&](std::string_view problem) -> Error {
    return Error(std::string(where) + ": " + quote_for_message(text) + ": " + std::string(problem));
  };
  if (text.empty()) throw fail("empty path; write an absolute path, e.g. ${CWD}/node_modules");
  if (text.front() == '~')
    throw fail("'~' is not expanded in policies; write ${HOME} instead, e.g. ${HOME}/.npm");
  std::string out;
  out.reserve(text.size() + 32);
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t start = text.find("${", pos);
    if (start == std::string_view::npos) {
      out.append(text.substr(pos));
      break;
    }
    out.append(text.substr(pos, start - pos));
    const std::size_t close = text.find('}', start + 2);
    if (close == std::string_view::npos)
      throw fail("unterminated \"${\"; valid variables are " + std::string(valid_variables_text));
    const std::string_view name = text.substr(start + 2, close - start - 2);
    const std::string* value = nullptr;
    if (name == "HOME") value = &ctx.home;
    else if (name == "CWD") value = &ctx.cwd;
    else if (name == "TMPDIR") value = &ctx.tmpdir;
    else
      throw fail("unknown variable ${" + std::string(name) + "}; valid variables are " +
                 std::string(valid_variables_text));
    if (value->empty() || value->front() != '/')
      throw fail("${" + std::string(name) + "} is \"" + *value +
                 "\" in this run, not an absolute path");
    out.append(*value);
    pos = close + 1;
  }
  if (out.find('\0') != std::string::npos || out.find('\n') != std::string::npos)
    throw fail("contains a NUL or newline character");
  if (out.front() != '/') {
    const std::string hint = out.front() == '$' ? "; variables are written ${NAME}, e.g. ${HOME}"
                                                : "; start it with /, ${HOME}, ${CWD} or ${TMPDIR}";
    throw fail("is not an absolute path" + hint);
  }
  return normalize_path(out);
}

// A copy of `policy` with every filesystem and process path expanded. Network and environment
// entries are not paths and are left as they are.
inline Policy expand_policy(const Policy& policy, const Context& ctx) {
  Policy out = policy;
  const std::string origin = policy.source.empty() ? "policy " + policy.name : policy.source;
  const auto expand_list = [&](std::vector<std::string>& list, std::string_view field) {
    for (std::size_t i = 0; i < list.size(); ++i)
      list[i] = expand_variables(list[i], ctx,
                                 origin + ": " + std::string(field) + "[" + std::to_string(i) + "]");
  };
  expand_list(out.filesystem.allow_read, "filesystem.allow_read");
  expand_list(out.filesystem.allow_write, "filesystem.allow_write");
  expand_list(out.filesystem.deny_read, "filesystem.deny_read");
  expand_list(out.filesystem.deny_write, "filesystem.deny_write");
  expand_list(out.filesystem.allow_unix_sockets, "filesystem.allow_unix_sockets");
  expand_list(out.process.allow_exec, "process.allow_exec");
  expand_list(out.process.deny_exec, "process.deny_exec");
  return out;
}

}  // namespace pmg
