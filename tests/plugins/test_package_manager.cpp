#include "pmg/plugin.hpp"

struct TestTool {
  std::vector<std::string> names() const { return {"testpm", "testpmx"}; }
  std::string default_profile(std::string_view) const { return "npm-restrictive"; }
  pmg::CommandKind classify(std::string_view, const std::vector<std::string>& args) const {
    return !args.empty() && args[0] == "install" ? pmg::CommandKind::install : pmg::CommandKind::other;
  }
  std::vector<std::string> packages(std::string_view, const std::vector<std::string>& args) const {
    return args.size() > 1 ? std::vector<std::string>(args.begin() + 1, args.end()) : std::vector<std::string>{};
  }
  std::vector<std::vector<std::string>> executables(std::string_view tool) const {
    return {{std::string(tool)}};
  }
};

PMG_EXPORT_PACKAGE_MANAGER(TestTool, "test-tools", "1.2.3")
