# What `cmake --install` puts under a prefix, and the CMake package that lets a third party build a
# plugin against that prefix without the pmg sources:
#
#   include/pmg/*.hpp                  the header-only core, with the generated builtin_profiles_data.hpp
#   bin/pmg                            the host (apps/pmg installs it)
#   lib/pmg/plugins/libpmg-*.so        plugins (pmg_add_plugin installs them)
#   lib/cmake/pmg/                     find_package(pmg CONFIG): pmg::core, pmg_add_plugin()
#   share/pmg/profiles/*.yml           reference copy of the built-in profiles (the host embeds them)
#   share/doc/pmg/                     README and docs/
#
# The host finds its plugins relative to its own path, so an install works from any prefix.
include(CMakePackageConfigHelpers)

# ---- the plugin ABI the package is compatible with ---------------------------------------------
# pmg::plugin_abi_version in plugin.hpp is the one source of the ABI number; it is read here so the
# version file can never disagree with the headers it ships.
file(STRINGS "${PROJECT_SOURCE_DIR}/include/pmg/plugin.hpp" pmg_abi_line
     REGEX "^inline constexpr int plugin_abi_version = [0-9]+;")
if(NOT pmg_abi_line MATCHES "= ([0-9]+)")
  message(FATAL_ERROR "cannot read `inline constexpr int plugin_abi_version = N;` from include/pmg/plugin.hpp")
endif()
set(PMG_PLUGIN_ABI_VERSION "${CMAKE_MATCH_1}")

# The first pmg release that used each plugin ABI. A plugin written for pmg X loads into this pmg
# when X used the same ABI, i.e. when ABI_SINCE <= X <= this version (see pmgConfigVersion.cmake.in).
# Bumping plugin_abi_version means adding a line here with the release that introduces it.
set(PMG_PLUGIN_ABI_1_SINCE 0.1.0)
if(NOT DEFINED PMG_PLUGIN_ABI_${PMG_PLUGIN_ABI_VERSION}_SINCE)
  message(FATAL_ERROR "include/pmg/plugin.hpp declares plugin ABI ${PMG_PLUGIN_ABI_VERSION} but "
                      "cmake/PmgPackage.cmake does not say which release introduced it: add "
                      "set(PMG_PLUGIN_ABI_${PMG_PLUGIN_ABI_VERSION}_SINCE ${PROJECT_VERSION})")
endif()
set(PMG_PLUGIN_ABI_SINCE "${PMG_PLUGIN_ABI_${PMG_PLUGIN_ABI_VERSION}_SINCE}")
if(PMG_PLUGIN_ABI_SINCE VERSION_GREATER PROJECT_VERSION)
  message(FATAL_ERROR "PMG_PLUGIN_ABI_${PMG_PLUGIN_ABI_VERSION}_SINCE (${PMG_PLUGIN_ABI_SINCE}) is newer than "
                      "pmg ${PROJECT_VERSION}")
endif()

# ---- headers, profiles, docs -------------------------------------------------------------------
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/pmg" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILES_MATCHING PATTERN "*.hpp")
install(FILES "${PMG_GENERATED_INCLUDE}/pmg/builtin_profiles_data.hpp"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/pmg")
install(FILES ${PMG_BUILTIN_PROFILES} DESTINATION "${CMAKE_INSTALL_DATADIR}/pmg/profiles")
install(FILES "${PROJECT_SOURCE_DIR}/README.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/" DESTINATION "${CMAKE_INSTALL_DOCDIR}")

# ---- the CMake package -------------------------------------------------------------------------
set(PMG_PACKAGE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/pmg")
set_target_properties(pmg_core PROPERTIES EXPORT_NAME core)
install(TARGETS pmg_core EXPORT pmgTargets)
install(EXPORT pmgTargets NAMESPACE pmg:: DESTINATION "${PMG_PACKAGE_DIR}")

configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/pmgConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/package/pmgConfig.cmake"
  INSTALL_DESTINATION "${PMG_PACKAGE_DIR}"
  PATH_VARS PMG_PLUGIN_SUBDIR)
configure_file("${PROJECT_SOURCE_DIR}/cmake/pmgConfigVersion.cmake.in"
               "${PROJECT_BINARY_DIR}/package/pmgConfigVersion.cmake" @ONLY)
install(FILES
  "${PROJECT_BINARY_DIR}/package/pmgConfig.cmake"
  "${PROJECT_BINARY_DIR}/package/pmgConfigVersion.cmake"
  # The same file the pmg tree builds its own plugins with: one definition of a plugin's build.
  "${PROJECT_SOURCE_DIR}/cmake/PmgPlugin.cmake"
  DESTINATION "${PMG_PACKAGE_DIR}")
