#include "sbpl_profile.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <string_view>

#include "pmg/error.hpp"
#include "pmg/glob.hpp"
#include "pmg/mandatory.hpp"
#include "pmg/path.hpp"
#include "pmg/validation.hpp"
#include "pmg/variables.hpp"
#include "sbpl_essentials.hpp"
#include "sbpl_syntax.hpp"

namespace pmg::seatbelt {

namespace {

// How a literal (glob-free) path is matched.
enum class LiteralMatch {
  subpath,  // the path and everything below it: directories named in filesystem rules
  literal,  // exactly the path: programs, sockets, the directory of a "/**" pattern
};

// What a rule covers when a path is a directory. A deny always covers everything below what it
// names: denying ${HOME}/**/.ssh must also deny ~/x/.ssh/id_rsa, which the glob alone does not
// match. Filesystem allows do the same, as a literal allow does through subpath.
enum class Coverage { itself, itself_and_below };

std::string filter_for(const std::string& form, LiteralMatch literal) {
  if (!has_glob_chars(form))
    return fmt::format("({} {})", literal == LiteralMatch::subpath ? "subpath" : "literal", sbpl_string(form));
  return fmt::format("(regex {})", sbpl_regex(glob_to_regex(form)));
}

// The filters matching `pattern` (an expanded path or glob) in each of its forms.
std::vector<std::string> path_filters(const std::string& pattern, const FsView& fs, LiteralMatch literal,
                                      Coverage coverage) {
  std::vector<std::string> filters;
  for (const std::string& form : path_forms(pattern, fs)) {
    filters.push_back(filter_for(form, literal));
    if (coverage == Coverage::itself_and_below && has_glob_chars(form) && !form.ends_with("/**"))
      filters.push_back(filter_for(form + "/**", literal));
  }
  return filters;
}

// A "/**" pattern matches only what is below its directory; allowing the directory itself as
// well lets a package manager create it (mkdir node_modules) and list it.
std::vector<std::string> directory_of_recursive_pattern(const std::string& pattern, const FsView& fs) {
  std::vector<std::string> filters;
  if (!pattern.ends_with("/**")) return filters;
  const std::string dir = pattern.size() == 3 ? "/" : pattern.substr(0, pattern.size() - 3);
  for (const std::string& form : path_forms(dir, fs)) filters.push_back(filter_for(form, LiteralMatch::literal));
  return filters;
}

// macOS gives each user a private directory /var/folders/<xx>/<yy>/ whose T/ is TMPDIR and whose
// C/ is the per-user cache (confstr _CS_DARWIN_USER_CACHE_DIR) that compilers, xcrun and
// Security.framework write to. When the policy lets the sandbox use TMPDIR, it gets this
// parent the same way; elsewhere (Linux's /tmp, a custom TMPDIR) there is no such parent and
// nothing is added - "/" must never become writable because TMPDIR is "/tmp".
std::optional<std::string> per_user_tmpdir_parent(const std::string& tmpdir) {
  std::string_view rest = tmpdir;
  if (rest.starts_with("/private/")) rest.remove_prefix(std::string_view("/private").size());
  if (!rest.starts_with("/var/folders/")) return std::nullopt;
  rest.remove_prefix(std::string_view("/var/folders/").size());
  const auto parts = detail::split_components(rest);  // <xx> <yy> T
  if (parts.size() != 3 || parts[0].empty() || parts[1].empty() || parts[2] != "T") return std::nullopt;
  return tmpdir.substr(0, tmpdir.size() - 2);
}

// True when an (expanded) allow list lets the sandbox use everything in `dir`.
bool covers_directory_contents(const std::vector<std::string>& allowed, const std::string& dir) {
  return std::any_of(allowed.begin(), allowed.end(), [&](const std::string& entry) {
    return has_glob_chars(entry) ? entry == dir + "/**" : path_is_within(dir, entry);
  });
}

// A network entry "host:port" as Seatbelt can express it: Seatbelt's address filters know only
// the hosts "localhost" (127.0.0.1 and ::1) and "*", so any other host is reported as nullopt.
struct Endpoint {
  std::string host;
  std::string port;  // a number or "*"
};

Endpoint split_endpoint(const std::string& entry) {
  const std::size_t colon = entry.rfind(':');
  return {entry.substr(0, colon), entry.substr(colon + 1)};
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "127.0.0.1" || host == "[::1]";
}

bool is_any_address(const std::string& host) { return host == "*" || host == "0.0.0.0" || host == "[::]"; }

std::optional<std::string> seatbelt_address(const Endpoint& e) {
  if (is_loopback(e.host)) return "localhost:" + e.port;
  if (is_any_address(e.host)) return "*:" + e.port;
  return std::nullopt;
}

void add_unique(std::vector<std::string>& list, std::string value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(std::move(value));
}

// The directories above a denied path, which must not be renamed or removed: `mv .git x` would
// otherwise move .git/hooks out from under its deny, to be written as x/hooks and moved back.
// For a glob, the directories from its literal base directory up (below the base, "**" matches
// wherever the path is moved to). "/" cannot be renamed and is left out.
void add_ancestors(std::vector<std::string>& out, const std::string& pattern) {
  std::string dir = has_glob_chars(pattern) ? Glob(pattern).base_directory() : pattern;
  if (!has_glob_chars(pattern)) dir = dir.substr(0, dir.rfind('/'));
  while (dir.size() > 1) {
    add_unique(out, dir);
    dir = dir.substr(0, dir.rfind('/'));
  }
}

class ProfileWriter {
 public:
  explicit ProfileWriter(std::string message) : message_(sbpl_string(message)) {}

  // A comment line per line of `text`. A line break in `text` starts a new comment line and no
  // other control character is written, so not even text derived from a policy (warnings) could
  // end the comment and begin a rule.
  void comment(std::string_view text) {
    out_ += "\n;; ";
    for (char c : text) {
      if (c == '\n') out_ += "\n;; ";
      else out_ += static_cast<unsigned char>(c) < 0x20 ? '?' : c;  // no other line ends
    }
    out_ += '\n';
  }
  void raw(std::string_view sbpl) { out_ += sbpl; }

  void allow(std::string_view operations, const std::vector<std::string>& filters) {
    rule("allow", operations, filters, "");
  }
  void deny(std::string_view operations, const std::vector<std::string>& filters) {
    rule("deny", operations, filters, fmt::format("(with message {})", message_));
  }

  const std::string& message() const { return message_; }
  std::string take() { return std::move(out_); }

 private:
  // One line when there is one filter, else one line per filter and for the message.
  void rule(std::string_view action, std::string_view operations, const std::vector<std::string>& filters,
            const std::string& suffix) {
    if (filters.empty()) return;
    out_ += fmt::format("({} {}", action, operations);
    const std::string_view separator = filters.size() == 1 ? " " : "\n  ";
    for (const std::string& f : filters) out_ += fmt::format("{}{}", separator, f);
    if (!suffix.empty()) out_ += fmt::format("{}{}", separator, suffix);
    out_ += ")\n";
  }

  std::string message_;
  std::string out_;
};

struct NetworkPlan {
  std::vector<std::string> outbound_allow;  // Seatbelt addresses for (remote ip ...)
  std::vector<std::string> outbound_deny;
  std::vector<std::string> bind_allow;      // for (local ip ...)
  bool explicit_deny_all = false;
  bool outbound = false;         // any outbound traffic is allowed
  bool direct_outbound = false;  // ... and not through the proxy
};

NetworkPlan plan_network(const Policy& policy, const SbplOptions& options, std::vector<std::string>& warnings) {
  const std::string origin = policy.source.empty() ? "policy " + policy.name : policy.source;
  const NetworkRules& net = policy.network;
  const auto checked = [&](const std::vector<std::string>& list, std::string_view field) {
    for (std::size_t i = 0; i < list.size(); ++i)
      check_endpoint_entry(list[i], fmt::format("{}: network.{}[{}]", origin, field, i));
  };
  checked(net.allow_outbound, "allow_outbound");
  checked(net.deny_outbound, "deny_outbound");
  checked(net.allow_bind, "allow_bind");

  NetworkPlan plan;
  const bool denies_everything = std::find(net.deny_outbound.begin(), net.deny_outbound.end(), "*:*") !=
                                 net.deny_outbound.end();
  if (options.proxy_port) {
    // The proxy enforces every allow and deny entry per host; the sandbox may reach only it.
    plan.outbound_allow.push_back(fmt::format("localhost:{}", *options.proxy_port));
    plan.outbound = true;
  } else if (!net.allow_outbound.empty()) {
    // Seatbelt cannot filter by host name: an entry allows its port on every host.
    for (const std::string& entry : net.allow_outbound) {
      const Endpoint e = split_endpoint(entry);
      add_unique(plan.outbound_allow, is_loopback(e.host) ? "localhost:" + e.port : "*:" + e.port);
    }
    if (std::find(plan.outbound_allow.begin(), plan.outbound_allow.end(), "*:*") != plan.outbound_allow.end())
      plan.outbound_allow = {"*:*"};
    plan.outbound = plan.direct_outbound = true;
    // "*:*" in deny_outbound means "everything not allowed" here, which (deny default) already
    // does; any other deny entry is enforced when Seatbelt can express it.
    for (const std::string& entry : net.deny_outbound) {
      if (entry == "*:*") continue;
      if (auto address = seatbelt_address(split_endpoint(entry))) {
        add_unique(plan.outbound_deny, *address);
      } else {
        warnings.push_back(fmt::format(
            "network.deny_outbound {} names a host; Seatbelt filters by port only, so it is not "
            "enforced without pmg's proxy",
            sbpl_string(entry)));
      }
    }
  } else if (denies_everything) {
    plan.explicit_deny_all = true;
  }

  if (policy.allow_network_bind.value_or(false)) add_unique(plan.bind_allow, "localhost:*");
  for (const std::string& entry : net.allow_bind) {
    if (auto address = seatbelt_address(split_endpoint(entry))) {
      add_unique(plan.bind_allow, *address);
    } else {
      warnings.push_back(fmt::format(
          "network.allow_bind {} is not applied: Seatbelt can bind only localhost or every address (*)",
          sbpl_string(entry)));
    }
  }
  return plan;
}

std::vector<std::string> address_filters(std::string_view side, const std::vector<std::string>& addresses) {
  std::vector<std::string> filters;
  for (const std::string& a : addresses) filters.push_back(fmt::format("({} ip {})", side, sbpl_string(a)));
  return filters;
}

}  // namespace

std::string log_message(const std::string& tag) {
  const bool valid = !tag.empty() && tag.size() <= 64 &&
                     std::all_of(tag.begin(), tag.end(), [](char c) {
                       return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
                     });
  if (!valid) throw Error("internal: Seatbelt log tag \"" + tag + "\" must be 1-64 letters and digits");
  return "PMG_SBX_" + tag;
}

std::vector<std::string> path_forms(const std::string& pattern, const FsView& fs) {
  std::vector<std::string> forms{pattern};
  const std::string base = has_glob_chars(pattern) ? Glob(pattern).base_directory() : pattern;
  if (base.empty() || !pattern.starts_with(base)) return forms;
  const std::string resolved = fs.resolve(base);
  if (resolved == base) return forms;
  std::string rest = pattern.substr(base.size());  // "" or "/..." (or "..." when base is "/")
  if (base == "/") rest.insert(0, "/");
  add_unique(forms, resolved == "/" ? (rest.empty() ? "/" : rest) : resolved + rest);
  return forms;
}

SbplProfile translate_to_sbpl(const Policy& unexpanded, const Context& context, const FsView& fs,
                              const SbplOptions& options) {
  const Policy policy = expand_policy(unexpanded, context);
  const MandatoryDenies mandatory = mandatory_denies(unexpanded, context);
  const FilesystemRules& files = policy.filesystem;
  SbplProfile profile;
  const NetworkPlan network = plan_network(policy, options, profile.warnings);

  ProfileWriter w(log_message(options.tag));
  w.raw("(version 1)\n");
  w.raw(fmt::format("(deny default (with message {}))\n", w.message()));
  for (const std::string& warning : profile.warnings) w.comment("warning: " + warning);

  w.comment("Essential permissions: what any package manager needs on macOS.");
  for (const EssentialGroup& group : essential_groups) {
    if ((group.when == EssentialWhen::outbound && !network.outbound) ||
        (group.when == EssentialWhen::direct_outbound && !network.direct_outbound))
      continue;
    w.comment(group.why);
    w.raw(group.rules);
  }

  // ---- allows ----
  const auto allow_paths = [&](std::string_view operations, const std::vector<std::string>& list) {
    for (const std::string& entry : list) {
      std::vector<std::string> filters = directory_of_recursive_pattern(entry, fs);
      for (std::string& f : path_filters(entry, fs, LiteralMatch::subpath, Coverage::itself_and_below))
        filters.push_back(std::move(f));
      w.allow(operations, filters);
    }
  };
  w.comment("filesystem.allow_read");
  allow_paths("file-read*", files.allow_read);
  w.comment("filesystem.allow_write");
  allow_paths("file-write*", files.allow_write);

  if (const auto parent = per_user_tmpdir_parent(context.tmpdir)) {
    std::string operations;
    if (covers_directory_contents(files.allow_read, context.tmpdir)) operations = "file-read*";
    if (covers_directory_contents(files.allow_write, context.tmpdir))
      operations += operations.empty() ? "file-write*" : " file-write*";
    if (!operations.empty()) {
      w.comment(
          "TMPDIR is /var/folders/<xx>/<yy>/T; its parent is the user's private directory, whose C/\n"
          "(per-user cache) compilers, xcrun and Security.framework use next to T/.");
      w.allow(operations, path_filters(*parent, fs, LiteralMatch::subpath, Coverage::itself_and_below));
    }
  }

  if (!files.allow_unix_sockets.empty()) {
    w.comment("filesystem.allow_unix_sockets: connecting to these sockets; every other one stays closed");
    for (const std::string& entry : files.allow_unix_sockets)
      w.allow("network-outbound", path_filters(entry, fs, LiteralMatch::literal, Coverage::itself));
  }

  if (!policy.process.allow_exec.empty()) {
    w.comment(
        "process.allow_exec: these programs may be run and loaded (an interpreter reads a script,\n"
        "dyld maps a binary) even where filesystem.allow_read does not reach them");
    for (const std::string& entry : policy.process.allow_exec)
      w.allow("process-exec file-read*", path_filters(entry, fs, LiteralMatch::literal, Coverage::itself));
  }

  if (policy.allow_pty.value_or(false)) {
    w.comment("allow_pty: allocate pseudo-terminals (/dev/ptmx) and use their ttys");
    w.raw(
        "(allow pseudo-tty)\n"
        "(allow file-read* file-write* file-ioctl\n"
        "  (literal \"/dev/ptmx\")\n"
        "  (regex #\"^/dev/ttys[0-9]+$\"))\n");
  }

  if (!network.outbound_allow.empty()) {
    w.comment(options.proxy_port ? "network: outbound only to pmg's filtering proxy, which enforces allow_outbound"
                                 : "network.allow_outbound (by port: Seatbelt cannot filter host names)");
    w.allow("network-outbound", address_filters("remote", network.outbound_allow));
  }
  if (!network.bind_allow.empty()) {
    w.comment("allow_network_bind / network.allow_bind: listen and accept connections");
    w.allow("network-bind network-inbound", address_filters("local", network.bind_allow));
  }

  // ---- denies: after every allow, so they win ----
  const auto deny_paths = [&](std::string_view operations, const std::vector<std::string>& list,
                              LiteralMatch literal) {
    for (const std::string& entry : list)
      w.deny(operations, path_filters(entry, fs, literal, Coverage::itself_and_below));
  };
  if (!files.deny_read.empty())
    w.comment("filesystem.deny_read; unlinking is denied too, or a file could be moved out and read");
  deny_paths("file-read* file-write-unlink", files.deny_read, LiteralMatch::subpath);
  if (!files.deny_write.empty()) w.comment("filesystem.deny_write");
  deny_paths("file-write*", files.deny_write, LiteralMatch::subpath);
  if (!policy.process.deny_exec.empty()) w.comment("process.deny_exec");
  deny_paths("process-exec*", policy.process.deny_exec, LiteralMatch::subpath);

  if (network.explicit_deny_all) {
    w.comment("network.deny_outbound \"*:*\" and nothing allowed: no outbound connections");
    w.deny("network-outbound", address_filters("remote", {"*:*"}));
  }
  if (!network.outbound_deny.empty()) {
    w.comment("network.deny_outbound");
    w.deny("network-outbound", address_filters("remote", network.outbound_deny));
  }

  w.comment("Mandatory denies (credentials, .git/hooks, .git/config): last, so nothing above undoes them");
  deny_paths("file-read* file-write*", mandatory.deny_read_write, LiteralMatch::subpath);
  deny_paths("file-write*", mandatory.deny_write, LiteralMatch::subpath);

  std::vector<std::string> ancestors;
  for (const auto* list : {&files.deny_read, &files.deny_write, &mandatory.deny_read_write, &mandatory.deny_write})
    for (const std::string& entry : *list) add_ancestors(ancestors, entry);
  std::vector<std::string> ancestor_filters;
  for (const std::string& dir : ancestors)
    for (const std::string& form : path_forms(dir, fs)) add_unique(ancestor_filters, filter_for(form, LiteralMatch::literal));
  w.comment("The directories above every denied path may not be renamed or removed (mv .git x)");
  w.deny("file-write-unlink", ancestor_filters);

  profile.text = w.take();
  return profile;
}

}  // namespace pmg::seatbelt
