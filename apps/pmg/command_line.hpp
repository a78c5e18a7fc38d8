#pragma once
// A cursor over argv that understands `--flag=value` and `--flag value`. Every mistake is a
// UsageError naming the flag, so the host exits 2 with a message that says what to type.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/error.hpp"

namespace pmg::host {

class ArgCursor {
 public:
  ArgCursor(std::vector<std::string> args, std::string command)
      : args_(std::move(args)), command_(std::move(command)) {}

  bool done() const { return pos_ >= args_.size(); }
  const std::string& peek() const { return args_[pos_]; }
  std::string next() { return args_[pos_++]; }
  std::vector<std::string> rest() { return {args_.begin() + static_cast<std::ptrdiff_t>(pos_), args_.end()}; }
  bool at_option() const { return !done() && peek().size() > 1 && peek()[0] == '-'; }

  // Matches `--name` (returns true) for a flag without a value.
  bool flag(std::string_view name) {
    if (done() || peek() != name) return false;
    ++pos_;
    return true;
  }

  // Matches `--name=value` or `--name value`.
  std::optional<std::string> value(std::string_view name) {
    if (done()) return std::nullopt;
    const std::string& arg = peek();
    if (arg.size() > name.size() && arg.starts_with(name) && arg[name.size()] == '=') {
      ++pos_;
      std::string v = arg.substr(name.size() + 1);
      if (v.empty()) throw UsageError(std::string(name) + " needs a value: " + std::string(name) + "=VALUE");
      return v;
    }
    if (arg != name) return std::nullopt;
    ++pos_;
    if (done() || args_[pos_].empty())
      throw UsageError(std::string(name) + " needs a value: " + std::string(name) + " VALUE");
    return args_[pos_++];
  }

  [[noreturn]] void unknown_option() const {
    throw UsageError("unknown option '" + peek() + "' for " + command_ + "; see `" + command_ + " --help`");
  }

 private:
  std::vector<std::string> args_;
  std::string command_;
  std::size_t pos_ = 0;
};

}  // namespace pmg::host
