#pragma once
// The denies no policy and no --sandbox-allow can remove (spec, Security Model). They are computed
// from the Context alone (plus allow_git_config), never from a policy's lists, and backends apply
// them after every user rule, so there is nothing an override could take out of them.
// docs/mandatory-denies.md explains each entry.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/context.hpp"
#include "pmg/policy.hpp"
#include "pmg/variables.hpp"

namespace pmg {

// Credential stores, relative to a root directory. The first eight are the spec's list; the rest
// are well-known stores of tokens and passwords that no package install needs to read.
inline constexpr std::array<std::string_view, 24> credential_names = {
    ".env", ".env.*", ".aws", ".gcloud", ".kube", ".ssh", ".gnupg", ".docker/config.json",
    ".netrc", ".git-credentials", ".config/git/credentials", ".pgpass", ".my.cnf",
    ".config/gh", ".azure", ".config/gcloud", ".pypirc", ".gem/credentials",
    ".cargo/credentials", ".cargo/credentials.toml", ".terraform.d/credentials.tfrc.json",
    ".vault-token", ".password-store", ".s3cfg",
};

// Under these roots; CWD first since a project's own .env is the likeliest target.
inline constexpr std::array<std::string_view, 2> mandatory_deny_roots = {"${CWD}", "${HOME}"};

struct MandatoryDenies {
  // Neither readable nor writable: ROOT/NAME and ROOT/**/NAME for every credential name.
  std::vector<std::string> deny_read_write;
  // Not writable: ROOT/.git/hooks always, ROOT/.git/config unless allow_git_config is true.
  std::vector<std::string> deny_write;

  bool operator==(const MandatoryDenies&) const = default;
};

// Expanded, normalised absolute paths and globs; the same root twice (CWD == HOME) is listed once.
inline MandatoryDenies mandatory_denies(const Policy& policy, const Context& ctx) {
  MandatoryDenies out;
  const auto add = [&](std::vector<std::string>& list, const std::string& unexpanded) {
    std::string path = expand_variables(unexpanded, ctx, "mandatory deny");
    for (const std::string& existing : list)
      if (existing == path) return;
    list.push_back(std::move(path));
  };
  for (std::string_view root : mandatory_deny_roots) {
    for (std::string_view name : credential_names) {
      add(out.deny_read_write, std::string(root) + "/" + std::string(name));
      add(out.deny_read_write, std::string(root) + "/**/" + std::string(name));
    }
  }
  for (std::string_view root : mandatory_deny_roots) add(out.deny_write, std::string(root) + "/.git/hooks");
  if (policy.allow_git_config != true)
    for (std::string_view root : mandatory_deny_roots) add(out.deny_write, std::string(root) + "/.git/config");
  return out;
}

}  // namespace pmg
