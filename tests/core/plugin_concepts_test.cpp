#include <catch2/catch.hpp>

#include "pmg/plugin.hpp"

namespace {

struct MinimalBackend {
  static constexpr std::string_view name = "minimal";
  pmg::Availability probe() const { return {true, "", ""}; }
  std::string render(const pmg::Policy& p, const pmg::Context&) const { return p.name; }
  int launch(const pmg::LaunchRequest&) const { return 0; }
};

struct NotABackend {
  static constexpr std::string_view name = "broken";
};

}  // namespace

TEST_CASE("Backend concept accepts a complete class and rejects an incomplete one", "[plugin]") {
  STATIC_REQUIRE(pmg::Backend<MinimalBackend>);
  STATIC_REQUIRE_FALSE(pmg::Backend<NotABackend>);
  pmg::BackendModel<MinimalBackend> model;
  pmg::Policy policy;
  policy.name = "x";
  CHECK(model.name() == "minimal");
  CHECK(model.render(policy, {}) == "x");
}
