// The plugin's only export: SkeletonBackend wrapped in the interface the host calls, with an
// info record (kind "backend", name SkeletonBackend::name, version "0.1.0", plugin ABI).
// TEACHING EXAMPLE: this backend does not sandbox (see skeleton_backend.hpp).
#include "skeleton_backend.hpp"

// guide:begin skeleton-export
PMG_EXPORT_BACKEND(skeleton::SkeletonBackend, "0.1.0")
// guide:end skeleton-export
