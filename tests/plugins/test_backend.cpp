// A backend that runs nothing: it exists to prove the loader and the export macro.
#include "pmg/plugin.hpp"

struct TestBackend {
  static constexpr std::string_view name = "test";
  pmg::Availability probe() const { return {false, "test backend never sandboxes", "none"}; }
  std::string render(const pmg::Policy& policy, const pmg::Context& context) const {
    return policy.name + "@" + context.cwd;
  }
  int launch(const pmg::LaunchRequest&) const { return 42; }
};

PMG_EXPORT_BACKEND(TestBackend, "9.9.9")
