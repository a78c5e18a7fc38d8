#pragma once
// What the fuzz targets share: a fixed run-time Context and the one way to report a broken
// invariant. libFuzzer treats an abort as a crash and saves the input, so a violated property is
// found, minimised and replayed exactly like a memory error.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "pmg/context.hpp"

namespace pmg::fuzz {

// The Context every target expands against: absolute, normalised, distinct directories.
inline const Context& fuzz_context() {
  static const Context ctx{"/home/fuzz", "/home/fuzz/project", "/tmp", 1000, 1000};
  return ctx;
}

// Prints what broke and aborts (the input is saved by libFuzzer as crash-<sha1>).
[[noreturn]] inline void invariant_failed(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "\n*** pmg fuzz invariant violated: %.*s\n%.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// `text` with non-printable bytes escaped, for invariant messages.
inline std::string printable(std::string_view text) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7F && c != '\\') out.push_back(c);
    else (out += "\\x") += std::string{digits[byte >> 4], digits[byte & 0x0F]};
  }
  return out;
}

}  // namespace pmg::fuzz
