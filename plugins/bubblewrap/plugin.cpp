// The plugin's only export: the backend, wrapped by the core's macro.
#include "bubblewrap_backend.hpp"

PMG_EXPORT_BACKEND(pmg::bubblewrap::BubblewrapBackend, "0.1.0")
