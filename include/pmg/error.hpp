#pragma once
// The one exception type of pmg. Every message names the input that was wrong and the fix,
// because the user reads it on a terminal with nothing else to go on.
#include <stdexcept>
#include <string>

namespace pmg {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A command-line mistake: the host exits 2 for these, 1 for every other Error.
class UsageError : public Error {
 public:
  using Error::Error;
};

}  // namespace pmg
