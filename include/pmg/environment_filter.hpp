#pragma once
// Credentials live in the environment as often as in files. Before a sandboxed process starts,
// variables that commonly hold secrets are removed unless the profile (environment.allow) or a
// `--sandbox-allow env=NAME` lets them through. Names are compared case-insensitively.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/glob.hpp"
#include "pmg/policy.hpp"

namespace pmg {

// The default deny list (documented in docs/protection.md). Exact names first, then name globs
// that catch the common shapes of secrets in CI systems and .env-style setups.
inline constexpr auto credential_variables = std::to_array<std::string_view>({
    // cloud providers
    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN",
    "AWS_WEB_IDENTITY_TOKEN_FILE", "AZURE_CLIENT_SECRET", "AZURE_CLIENT_CERTIFICATE_PASSWORD",
    "AZURE_STORAGE_KEY", "AZURE_STORAGE_CONNECTION_STRING", "ARM_CLIENT_SECRET",
    "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_KEYFILE_JSON", "GCP_SERVICE_ACCOUNT_KEY",
    "CLOUDSDK_AUTH_ACCESS_TOKEN", "DIGITALOCEAN_ACCESS_TOKEN", "HCLOUD_TOKEN", "LINODE_TOKEN",
    "CLOUDFLARE_API_TOKEN", "CLOUDFLARE_API_KEY", "HEROKU_API_KEY", "VERCEL_TOKEN", "NETLIFY_AUTH_TOKEN",
    // forges and CI
    "GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_PAT", "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "GITLAB_TOKEN", "GITLAB_PRIVATE_TOKEN", "CI_JOB_TOKEN",
    "CI_JOB_JWT", "CI_REGISTRY_PASSWORD", "BITBUCKET_TOKEN", "CIRCLE_TOKEN", "TRAVIS_TOKEN",
    "BUILDKITE_AGENT_TOKEN", "SYSTEM_ACCESSTOKEN", "CODECOV_TOKEN", "SONAR_TOKEN",
    // package registries
    "NPM_TOKEN", "NODE_AUTH_TOKEN", "YARN_NPM_AUTH_TOKEN", "TWINE_PASSWORD", "TWINE_USERNAME",
    "PYPI_TOKEN", "PYPI_API_TOKEN", "UV_PUBLISH_TOKEN", "UV_PUBLISH_PASSWORD", "POETRY_PYPI_TOKEN_*",
    "POETRY_HTTP_BASIC_*_PASSWORD", "CARGO_REGISTRY_TOKEN", "GEM_HOST_API_KEY", "NUGET_API_KEY",
    // databases, Docker, Vault, SaaS API keys
    "DATABASE_URL", "PGPASSWORD", "MYSQL_PWD", "REDIS_PASSWORD", "MONGODB_URI", "DOCKER_AUTH_CONFIG",
    "DOCKER_PASSWORD", "VAULT_TOKEN", "CONSUL_HTTP_TOKEN", "NOMAD_TOKEN", "SLACK_TOKEN", "SLACK_BOT_TOKEN",
    "SLACK_WEBHOOK_URL", "STRIPE_SECRET_KEY", "STRIPE_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
    "SENTRY_AUTH_TOKEN", "SSH_AUTH_SOCK",
    // shapes
    "*_SECRET", "*_SECRET_KEY", "*_PASSWORD", "*_API_KEY", "*_ACCESS_TOKEN", "*_AUTH_TOKEN",
});

namespace detail {

inline std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Names the sandbox never removes: the process cannot work without them and they hold no secret.
inline bool essential_variable(std::string_view upper_name) {
  static constexpr auto names = std::to_array<std::string_view>(
      {"PATH", "HOME", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "SHELL", "TMPDIR", "COLORTERM",
       "NO_COLOR", "PWD"});
  return std::find(names.begin(), names.end(), upper_name) != names.end() || upper_name.starts_with("LC_");
}

inline bool matches_any(std::string_view upper_name, const std::vector<std::string>& patterns) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return Glob(upper(p)).matches(upper_name); });
}

}  // namespace detail

struct FilteredEnvironment {
  std::vector<std::string> kept;     // "NAME=value"
  std::vector<std::string> removed;  // names only: values are never logged
};

// `extra_essential` are variables the sandbox itself sets (the proxy variables): never removed.
inline FilteredEnvironment filter_environment(const std::vector<std::string>& environment, const Policy& policy,
                                              const std::vector<std::string>& extra_essential = {}) {
  std::vector<std::string> deny(credential_variables.begin(), credential_variables.end());
  deny.insert(deny.end(), policy.environment.deny.begin(), policy.environment.deny.end());
  FilteredEnvironment out;
  for (const auto& entry : environment) {
    const std::string name = entry.substr(0, entry.find('='));
    const std::string upper_name = detail::upper(name);
    const bool keep = detail::essential_variable(upper_name) || detail::matches_any(upper_name, extra_essential) ||
                      detail::matches_any(upper_name, policy.environment.allow) ||
                      !detail::matches_any(upper_name, deny);
    (keep ? out.kept : out.removed).push_back(keep ? entry : name);
  }
  return out;
}

}  // namespace pmg
