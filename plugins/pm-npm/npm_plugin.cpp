#include "npm_adapter.hpp"

PMG_EXPORT_PACKAGE_MANAGER(pmg::npm::NpmAdapter, "npm", "0.1.0")
