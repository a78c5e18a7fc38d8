#include "pip_adapter.hpp"

PMG_EXPORT_PACKAGE_MANAGER(pmg::pip::PipAdapter, "pip", "0.1.0")
