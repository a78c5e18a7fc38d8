#include <catch2/catch.hpp>

#include "pmg/process.hpp"

TEST_CASE("run_process returns the exit status and 128+signal", "[process]") {
  CHECK(pmg::run_process({{"/bin/sh", "-c", "exit 3"}, {}, {}}) == 3);
  CHECK(pmg::run_process({{"/bin/sh", "-c", "kill -TERM $$"}, {}, {}}) == 143);
  CHECK(pmg::run_process({{"/bin/sh", "-c", "test \"$X\" = y"}, {"X=y"}, {}}) == 0);
}

TEST_CASE("run_process names a program it cannot start", "[process]") {
  CHECK_THROWS_WITH(pmg::run_process({{"/nonexistent/prog"}, {}, {}}),
                    Catch::Contains("cannot execute /nonexistent/prog"));
}
