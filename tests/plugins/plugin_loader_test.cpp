#include <catch2/catch.hpp>
#include <fstream>

#include "pmg/plugin_loader.hpp"

namespace {

std::filesystem::path test_plugins(const char* dir) {
  return std::filesystem::path(PMG_BINARY_DIR) / "test-plugins" / dir;
}

}  // namespace

TEST_CASE("loader loads a backend and a package manager and calls through the interface", "[plugin]") {
  auto set = pmg::PluginSet::load({test_plugins("good")});
  REQUIRE(set.backends().size() == 1);
  const auto* backend = set.find_backend("test");
  REQUIRE(backend != nullptr);
  CHECK(backend->record.version == "9.9.9");
  CHECK(backend->record.abi_version == pmg::plugin_abi_version);
  CHECK(backend->record.kind == "backend");
  pmg::Policy policy;
  policy.name = "p";
  pmg::Context ctx;
  ctx.cwd = "/proj";
  CHECK(backend->backend->render(policy, ctx) == "p@/proj");
  CHECK(backend->backend->launch({}) == 42);
  CHECK_FALSE(backend->backend->probe().available);

  const auto* pm = set.find_package_manager("testpmx");
  REQUIRE(pm != nullptr);
  CHECK(pm->record.name == "test-tools");
  CHECK(pm->adapter->classify("testpm", {"install", "x"}) == pmg::CommandKind::install);
  CHECK(pm->adapter->packages("testpm", {"install", "x", "y"}) == std::vector<std::string>{"x", "y"});
  CHECK(set.find_package_manager("npm") == nullptr);
}

TEST_CASE("objects created by a plugin keep its library loaded after the set is gone", "[plugin]") {
  std::shared_ptr<const pmg::BackendInterface> kept;
  {
    auto set = pmg::PluginSet::load({test_plugins("good")});
    kept = set.find_backend("test")->backend;
  }
  // Calling a virtual function would crash if the library had been unloaded.
  CHECK(kept->name() == "test");
}

TEST_CASE("loader refuses a plugin built for another ABI, naming both versions", "[plugin]") {
  CHECK_THROWS_WITH(pmg::PluginSet::load({test_plugins("mismatch")}),
                    Catch::Contains("built for plugin ABI " + std::to_string(pmg::plugin_abi_version + 1)) &&
                        Catch::Contains("this pmg uses ABI " + std::to_string(pmg::plugin_abi_version)) &&
                        Catch::Contains("libpmg-test-abi-mismatch.so"));
}

TEST_CASE("loader refuses a shared object that is not a pmg plugin", "[plugin]") {
  CHECK_THROWS_WITH(pmg::PluginSet::load({test_plugins("notpmg")}),
                    Catch::Contains("not a pmg plugin") && Catch::Contains("libpmg-test-not-a-plugin.so"));
}

TEST_CASE("loader refuses a truncated library", "[plugin]") {
  auto dir = std::filesystem::temp_directory_path() / ("pmg-truncated-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ifstream in(test_plugins("good") / "libpmg-test-backend.so", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream out(dir / "libpmg-truncated.so", std::ios::binary);
    // dlopen of this file would kill the process with SIGBUS; the loader must refuse it first.
    out.write(bytes.data(), 4096);
  }
  CHECK_THROWS_WITH(pmg::PluginSet::load({dir}), Catch::Contains("libpmg-truncated.so cannot be loaded") && Catch::Contains("truncated"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("two plugins answering to the same package manager are an error naming both", "[plugin]") {
  CHECK_THROWS_WITH(pmg::PluginSet::load({test_plugins("duplicate")}),
                    Catch::Contains("libpmg-test-pm-duplicate.so") &&
                        Catch::Contains("libpmg-test-pm-duplicate2.so") && Catch::Contains("'testpm'"));
}

TEST_CASE("an earlier directory shadows a plugin file of the same name", "[plugin]") {
  auto set = pmg::PluginSet::load({test_plugins("good"), test_plugins("good")});
  CHECK(set.backends().size() == 1);
  CHECK(set.package_managers().size() == 1);
}

TEST_CASE("PMG_PLUGIN_PATH comes first in the search path", "[plugin]") {
  ::setenv("PMG_PLUGIN_PATH", "/a:/b", 1);
  auto dirs = pmg::plugin_search_path();
  ::unsetenv("PMG_PLUGIN_PATH");
  REQUIRE(dirs.size() == 3);
  CHECK(dirs[0] == "/a");
  CHECK(dirs[1] == "/b");
  CHECK(dirs[2].string().ends_with("lib/pmg/plugins"));
}
