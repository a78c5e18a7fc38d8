// Claims a future ABI: the loader must refuse it before calling anything else in it.
#include "pmg/plugin.hpp"

namespace abi_mismatch {
pmg::PluginInfo info() { return {pmg::plugin_abi_version + 1, "backend", "future", "2.0.0"}; }
}  // namespace abi_mismatch

BOOST_DLL_ALIAS(abi_mismatch::info, pmg_plugin_info)
