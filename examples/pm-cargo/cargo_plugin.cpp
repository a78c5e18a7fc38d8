// The plugin's only export. The macro wraps CargoAdapter in the interface the host calls and
// exports it with an info record: kind "package-manager", plugin name "cargo", version "0.1.0"
// and the plugin ABI of the pmg headers this file was compiled against.
#include "cargo_adapter.hpp"

// guide:begin cargo-export
PMG_EXPORT_PACKAGE_MANAGER(pm_cargo::CargoAdapter, "cargo", "0.1.0")
// guide:end cargo-export
