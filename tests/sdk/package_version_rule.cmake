# The compatibility rule of pmgConfigVersion.cmake: a request for pmg X is compatible exactly when
# X used this package's plugin ABI (ABI_SINCE <= X <= PACKAGE_VERSION).
#   cmake -DTEMPLATE=... -DGENERATED=... -DPLUGIN_HPP=... -DWORK_DIR=... -P package_version_rule.cmake

# A package as a future release would generate it: pmg 1.4.0 whose plugin ABI 3 came with 1.2.0.
set(PROJECT_VERSION 1.4.0)
set(PMG_PLUGIN_ABI_VERSION 3)
set(PMG_PLUGIN_ABI_SINCE 1.2.0)
set(CMAKE_SIZEOF_VOID_P 8)
configure_file("${TEMPLATE}" "${WORK_DIR}/pmgConfigVersion.cmake" @ONLY)

set(failures 0)
# expect(REQUEST COMPATIBLE EXACT): REQUEST is "", "X" or a range "A...B" / "A...<B".
function(expect request compatible exact)
  unset(PACKAGE_FIND_VERSION)
  unset(PACKAGE_FIND_VERSION_RANGE)
  if(request MATCHES "^(.*)\\.\\.\\.(<?)(.*)$")
    set(PACKAGE_FIND_VERSION_RANGE "${request}")
    set(PACKAGE_FIND_VERSION_MIN "${CMAKE_MATCH_1}")
    set(PACKAGE_FIND_VERSION_MAX "${CMAKE_MATCH_3}")
    set(PACKAGE_FIND_VERSION_RANGE_MAX INCLUDE)
    if(CMAKE_MATCH_2)
      set(PACKAGE_FIND_VERSION_RANGE_MAX EXCLUDE)
    endif()
    set(PACKAGE_FIND_VERSION "${CMAKE_MATCH_1}")
  elseif(NOT request STREQUAL "")
    set(PACKAGE_FIND_VERSION "${request}")
  endif()
  include("${WORK_DIR}/pmgConfigVersion.cmake")
  if(NOT "${PACKAGE_VERSION_COMPATIBLE}" STREQUAL "${compatible}" OR NOT "${PACKAGE_VERSION_EXACT}" STREQUAL "${exact}")
    message(SEND_ERROR "find_package(pmg ${request}) against pmg 1.4.0 (ABI 3 since 1.2.0): compatible "
                       "${PACKAGE_VERSION_COMPATIBLE} exact ${PACKAGE_VERSION_EXACT}, expected ${compatible} ${exact}")
  endif()
endfunction()

expect("" TRUE FALSE)             # no version asked: whatever ABI the headers declare
expect("1.2" TRUE FALSE)          # the first release of ABI 3
expect("1.3.7" TRUE FALSE)
expect("1.4.0" TRUE TRUE)
expect("1.1.9" FALSE FALSE)       # written for ABI 2
expect("0.1" FALSE FALSE)
expect("1.5" FALSE FALSE)         # newer than this package: may use API it lacks
expect("1.2...2.0" TRUE FALSE)
expect("1.3...<1.4" FALSE FALSE)  # 1.4.0 is outside the range
expect("1.0...2.0" FALSE FALSE)   # written for 1.0, an earlier ABI

# Another bitness is unsuitable whatever the version.
set(CMAKE_SIZEOF_VOID_P 4)
set(PACKAGE_FIND_VERSION 1.4)
include("${WORK_DIR}/pmgConfigVersion.cmake")
if(NOT PACKAGE_VERSION_UNSUITABLE)
  message(SEND_ERROR "a 32-bit project accepted the 64-bit package")
endif()

# The generated file carries the ABI plugin.hpp declares.
file(STRINGS "${PLUGIN_HPP}" abi_line REGEX "^inline constexpr int plugin_abi_version = [0-9]+")
string(REGEX MATCH "[0-9]+" abi "${abi_line}")
file(READ "${GENERATED}" generated)
if(NOT generated MATCHES "plugin ABI ${abi},")
  message(SEND_ERROR "${GENERATED} does not describe plugin ABI ${abi} of ${PLUGIN_HPP}")
endif()
