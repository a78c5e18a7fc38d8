#pragma once
// How a value is written into Seatbelt's profile language (SBPL, a TinyScheme dialect). Every
// path, message and regex that reaches a profile goes through these two functions, so escaping
// is decided in one place: a path can never end a string early and so can never add a rule.
#include <string>
#include <string_view>

namespace pmg::seatbelt {

// A double-quoted SBPL string literal holding exactly `text`. `"` and `\` are backslash-escaped;
// newline, tab and carriage return use their Scheme escapes. Any other control byte (NUL, DEL,
// 0x01-0x1f) throws Error: no real path needs one, and dialects of the reader disagree on how
// to spell them, so refusing is the only choice that cannot go wrong.
std::string sbpl_string(std::string_view text);

// A literal for the `regex` filter holding exactly `regex`. SBPL's `#"..."` form passes its
// content to the regex engine unchanged, which keeps profiles readable (no doubled
// backslashes), but it has no escape for `"` itself; a regex containing `"`, a control byte or
// ending in a backslash is therefore written as an ordinary escaped string instead, which the
// `regex` filter accepts the same way.
std::string sbpl_regex(std::string_view regex);

}  // namespace pmg::seatbelt
