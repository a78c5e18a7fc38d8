# pmg_add_plugin(NAME SOURCES src...)
# Builds a pmg plugin: a shared object named libpmg-<NAME>.so, linked against pmg::core, placed
# where the host looks (lib/pmg/plugins/ next to bin/) and installed there.
#
# The one definition of a plugin's build: the pmg tree includes this file, and the installed CMake
# package (find_package(pmg)) includes the installed copy of it. Either defines PMG_PLUGIN_SUBDIR
# (the plugin directory relative to a prefix). Outside the pmg tree the plugin is written to
# <build dir>/lib/pmg/plugins unless PMG_PLUGIN_OUTPUT_DIR says otherwise; that directory can go
# on PMG_PLUGIN_PATH as it is.
if(NOT PMG_PLUGIN_SUBDIR)
  message(FATAL_ERROR "PmgPlugin.cmake needs PMG_PLUGIN_SUBDIR; use it through find_package(pmg)")
endif()
if(NOT PMG_PLUGIN_OUTPUT_DIR)
  set(PMG_PLUGIN_OUTPUT_DIR "${CMAKE_BINARY_DIR}/${PMG_PLUGIN_SUBDIR}")
endif()

function(pmg_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES")
  if(NOT ARG_SOURCES OR ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "usage: pmg_add_plugin(NAME SOURCES src...)")
  endif()
  add_library(pmg-${name} MODULE ${ARG_SOURCES})
  target_link_libraries(pmg-${name} PRIVATE pmg::core)
  set_target_properties(pmg-${name} PROPERTIES
    PREFIX "lib"
    # Only the Boost.DLL aliases are exported, so plugins cannot interpose each other's inline
    # functions or share their function-local statics.
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    OUTPUT_NAME "pmg-${name}"
    LIBRARY_OUTPUT_DIRECTORY "${PMG_PLUGIN_OUTPUT_DIR}")
  install(TARGETS pmg-${name} LIBRARY DESTINATION "${PMG_PLUGIN_SUBDIR}")
endfunction()
