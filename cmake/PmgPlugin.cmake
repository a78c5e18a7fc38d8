# pmg_add_plugin(NAME SOURCES src...)
# Builds a pmg plugin: a shared object named libpmg-<NAME>.so, linked against pmg::core, placed
# where the host looks (lib/pmg/plugins/ next to bin/) and installed there.
function(pmg_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES")
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
