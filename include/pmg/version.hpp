#pragma once

namespace pmg {

inline constexpr const char* version = "0.1.0";

}  // namespace pmg
