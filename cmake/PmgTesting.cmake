# pmg_add_test(NAME SOURCES src... [LIBS lib...])
# A Catch2 v2 test executable linked to pmg::core, each TEST_CASE registered with CTest.
find_package(Catch2 REQUIRED)
include(Catch)

add_library(pmg_catch_main OBJECT "${CMAKE_SOURCE_DIR}/tests/catch_main.cpp")
target_link_libraries(pmg_catch_main PUBLIC Catch2::Catch2)

function(pmg_add_test name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;LIBS")
  add_executable(${name} ${ARG_SOURCES} $<TARGET_OBJECTS:pmg_catch_main>)
  target_link_libraries(${name} PRIVATE pmg::core Catch2::Catch2 ${ARG_LIBS})
  target_include_directories(${name} PRIVATE "${CMAKE_SOURCE_DIR}/tests")  # support/*.hpp
  target_compile_definitions(${name} PRIVATE
    PMG_SOURCE_DIR="${CMAKE_SOURCE_DIR}" PMG_BINARY_DIR="${CMAKE_BINARY_DIR}")
  # Test code is compiled without optimisation whatever the build type: optimising the test
  # drivers (Catch2, std::regex, property tests) doubled the build and bought nothing. The code
  # under test is header-only and so is compiled here too; the shipped binaries keep the build
  # type's flags and are exercised by the e2e tests as built.
  target_compile_options(${name} PRIVATE -O0)
  # One translation unit per test executable: the test files share their heavy headers (Catch2,
  # yaml-cpp, Boost), which are then parsed once instead of once per file.
  set_target_properties(${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
  catch_discover_tests(${name})
endfunction()
