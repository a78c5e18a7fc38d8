#include <catch2/catch.hpp>

#include "pmg/proxy_environment.hpp"

using namespace pmg;

TEST_CASE("proxy_environment names the bridge for every client and exempts nothing") {
  const auto env = proxy_environment({3128, true});
  for (const char* entry :
       {"HTTP_PROXY=http://127.0.0.1:3128", "HTTPS_PROXY=http://127.0.0.1:3128", "http_proxy=http://127.0.0.1:3128",
        "https_proxy=http://127.0.0.1:3128", "npm_config_proxy=http://127.0.0.1:3128",
        "npm_config_https_proxy=http://127.0.0.1:3128", "PIP_PROXY=http://127.0.0.1:3128",
        "YARN_HTTPS_PROXY=http://127.0.0.1:3128", "ALL_PROXY=socks5h://127.0.0.1:3128", "NO_PROXY=", "no_proxy=",
        "npm_config_noproxy="}) {
    CAPTURE(entry);
    CHECK(std::count(env.begin(), env.end(), entry) == 1);
  }
  const auto no_socks = proxy_environment({3128, false});
  CHECK(std::none_of(no_socks.begin(), no_socks.end(),
                     [](const std::string& e) { return e.starts_with("ALL_PROXY") || e.starts_with("all_proxy"); }));
}

TEST_CASE("apply_proxy_environment replaces the user's proxy settings in any case") {
  std::vector<std::string> env = {"PATH=/usr/bin", "HTTPS_PROXY=http://corp:8080", "Npm_Config_Https_Proxy=http://corp",
                                  "NO_PROXY=internal.corp", "all_proxy=socks5://corp:1080", "HOME=/home/u"};
  apply_proxy_environment(env, {4000, false});
  CHECK(std::count(env.begin(), env.end(), "PATH=/usr/bin") == 1);
  CHECK(std::count(env.begin(), env.end(), "HOME=/home/u") == 1);
  CHECK(std::count(env.begin(), env.end(), "HTTPS_PROXY=http://127.0.0.1:4000") == 1);
  CHECK(std::count(env.begin(), env.end(), "NO_PROXY=") == 1);
  for (const std::string& e : env) {
    CAPTURE(e);
    CHECK(e.find("corp") == std::string::npos);
  }
}
