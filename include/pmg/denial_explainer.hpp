#pragma once
// "Why was this denied, and how do I allow it?" Bubblewrap enforces with mounts and namespaces, so
// the kernel's refusals are never reported to pmg; what a user sees is the sandboxed program's
// own error message. This header reads those messages (npm/node, Python, sh, bash, coreutils,
// curl, pip) for a denied path or host, and matches it against the policy to name the rule that
// denied it and the --sandbox-allow flag that would allow it, or why none can.
//
// Pure: inputs are one output line, the policy the run enforced, the Context and a filesystem
// view (to tell a hidden path from a missing one). The flag is checked by applying it with
// apply_overrides, the function the host uses for real flags, before it is suggested.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <regex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/access_risks.hpp"
#include "pmg/context.hpp"
#include "pmg/fs_view.hpp"
#include "pmg/glob.hpp"
#include "pmg/mandatory.hpp"
#include "pmg/outbound_rules.hpp"
#include "pmg/overrides.hpp"
#include "pmg/path.hpp"
#include "pmg/policy.hpp"
#include "pmg/shell_quote.hpp"
#include "pmg/variables.hpp"

namespace pmg {

enum class Operation { read, write, exec, connect, unknown };

inline std::string_view to_string(Operation operation) {
  switch (operation) {
    case Operation::read: return "read";
    case Operation::write: return "write";
    case Operation::exec: return "exec";
    case Operation::connect: return "connect";
    case Operation::unknown: break;
  }
  return "access";
}

// One refusal as a program reported it.
struct Denial {
  Operation operation = Operation::unknown;  // unknown: the message does not say (open(2), EACCES)
  std::string error;                         // EACCES, EPERM, EROFS, ENOENT, EAI_AGAIN, ENETUNREACH, ...
  std::string target;                        // absolute normalised path, or the host for connect
  std::optional<std::uint16_t> port;         // connect only, when the message names it
  std::string evidence;                      // the line, terminal escapes removed, at most 500 bytes

  bool operator==(const Denial&) const = default;
};

// Which rule of the policy refused it.
enum class RuleKind {
  mandatory,           // a mandatory deny (credentials, .git/hooks, .git/config)
  deny_read,
  deny_write,
  deny_exec,
  not_in_allow_read,
  not_in_allow_write,
  not_in_allow_exec,
  network,             // no allow_outbound entry admits the host, or a deny_outbound entry refuses it
};

inline std::string_view to_string(RuleKind kind) {
  switch (kind) {
    case RuleKind::mandatory: return "mandatory";
    case RuleKind::deny_read: return "deny_read";
    case RuleKind::deny_write: return "deny_write";
    case RuleKind::deny_exec: return "deny_exec";
    case RuleKind::not_in_allow_read: return "not in allow_read";
    case RuleKind::not_in_allow_write: return "not in allow_write";
    case RuleKind::not_in_allow_exec: return "not in allow_exec";
    case RuleKind::network: return "network";
  }
  return "?";
}

inline std::optional<RuleKind> rule_kind_from_string(std::string_view text) {
  for (RuleKind k : {RuleKind::mandatory, RuleKind::deny_read, RuleKind::deny_write, RuleKind::deny_exec,
                     RuleKind::not_in_allow_read, RuleKind::not_in_allow_write, RuleKind::not_in_allow_exec,
                     RuleKind::network})
    if (to_string(k) == text) return k;
  return std::nullopt;
}

inline std::optional<Operation> operation_from_string(std::string_view text) {
  for (Operation o : {Operation::read, Operation::write, Operation::exec, Operation::connect, Operation::unknown})
    if (to_string(o) == text) return o;
  return std::nullopt;
}

struct Violation {
  Operation operation = Operation::unknown;  // never unknown once explained
  std::string target;                        // the path, or host:port
  RuleKind rule = RuleKind::not_in_allow_read;
  std::string rule_entry;  // the policy entry that denied it as written (mandatory: expanded); may be empty
  std::string why;         // what the rule means for this target, one or two sentences
  std::string allow;       // the --sandbox-allow value that allows it ("write=/p/out"), empty when none can
  std::string note;        // caveats about that flag, or why no flag can allow it
  std::string error;       // from the Denial
  std::string evidence;    // from the Denial

  // "--sandbox-allow 'write=/my dir'": ready to paste.
  std::string allow_flag() const { return allow.empty() ? std::string() : "--sandbox-allow " + shell_quote(allow); }
  bool operator==(const Violation&) const = default;
};

// What the explainer may look at besides the policy.
struct ExplainContext {
  Context context;
  const FsView& fs;
  std::vector<std::string> path_dirs;  // the user's PATH, to caution against flags that make it writable
};

namespace detail {

// Terminal colour and cursor sequences (ESC [ ... letter) and carriage returns, which progress
// output mixes into lines; typographic quotes as plain ones (coreutils in a UTF-8 locale).
inline std::string plain_text(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      i += 2;
      while (i < line.size() && !(line[i] >= '@' && line[i] <= '~')) ++i;
      continue;
    }
    if (c == '\r') continue;
    if (line.compare(i, 3, "\xE2\x80\x98") == 0 || line.compare(i, 3, "\xE2\x80\x99") == 0) {
      out += '\'';
      i += 2;
      continue;
    }
    out += c;
  }
  return out;
}

inline std::string error_for_message(std::string_view message) {
  if (message == "Permission denied") return "EACCES";
  if (message == "Read-only file system") return "EROFS";
  if (message == "Operation not permitted") return "EPERM";
  return "ENOENT";
}

// Node's fs syscall names by what they do to the path.
inline Operation operation_of_syscall(std::string_view syscall) {
  static constexpr std::string_view writes[] = {"mkdir", "rmdir", "rename", "unlink", "symlink", "link",
                                                "copyfile", "cp", "chmod", "chown", "lchown", "utime",
                                                "lutime", "futime", "mkdtemp", "write", "truncate",
                                                "ftruncate", "fchmod", "fchown", "rm"};
  static constexpr std::string_view reads[] = {"scandir", "stat", "lstat", "access", "readlink", "realpath",
                                               "opendir", "read", "watch", "fstat", "statfs"};
  for (std::string_view w : writes)
    if (w == syscall) return Operation::write;
  for (std::string_view r : reads)
    if (r == syscall) return Operation::read;
  return Operation::unknown;
}

// coreutils and shells say what they tried: "cannot create", "cannot touch", "cannot open" ...
inline Operation operation_of_phrase(std::string_view phrase) {
  if (phrase.starts_with("cannot open") || phrase.starts_with("cannot access") ||
      phrase.starts_with("cannot stat") || phrase.starts_with("cannot read"))
    return Operation::read;
  if (phrase.starts_with("cannot execute")) return Operation::exec;
  return Operation::write;
}

}  // namespace detail

// A cheap test for lines worth parsing, for capturing output without keeping all of it.
inline bool may_report_denial(std::string_view line) {
  static constexpr std::string_view markers[] = {
      "EACCES", "EPERM", "EROFS", "ENOENT", "Errno", "Permission denied", "Read-only file system",
      "Operation not permitted", "No such file or directory", "EAI_AGAIN", "ENOTFOUND", "ENETUNREACH",
      "EHOSTUNREACH", "Could not resolve host", "ConnectionPool(host="};
  for (std::string_view m : markers)
    if (line.find(m) != std::string_view::npos) return true;
  return false;
}

// The refusal `line` reports, if it reports one on a path or host. Relative paths are taken
// relative to ctx.cwd (where the sandboxed command started; a script that changed directory
// first is misread, which is why paths are only taken relative when the message is explicit).
inline std::optional<Denial> parse_denial_line(std::string_view line, const Context& ctx) {
  if (!may_report_denial(line)) return std::nullopt;
  Denial d;
  d.evidence = detail::plain_text(line.substr(0, 4096));
  if (d.evidence.size() > 500) d.evidence = d.evidence.substr(0, 500) + "...";
  const std::string text = detail::plain_text(line);
  std::smatch m;
  const auto path_at = [&](const std::string& path) { return join_path(ctx.cwd, path); };

  // node: "EACCES: permission denied, open '/x'", "EROFS: read-only file system, mkdir '/x'".
  static const std::regex node_fs(R"(\b(EACCES|EPERM|EROFS|ENOENT): [^,']*, ([a-zA-Z]+) '([^']+)')");
  // node: "Error: spawn /usr/bin/curl EACCES".
  static const std::regex node_spawn(R"(\bspawn(?:Sync)? (\S+) (EACCES|EPERM|ENOENT)\b)");
  // Python: "PermissionError: [Errno 13] Permission denied: '/x'".
  static const std::regex python(R"re(\[Errno (1|2|13|30)\] [^:\[\]]*: (?:'([^']+)'|"([^"]+)"))re");
  // sh, coreutils: "sh: 1: cannot create out.txt: Read-only file system", "touch: cannot touch '/x': ...".
  static const std::regex phrase(
      R"(: ((?:cannot|failed to|unable to) [a-z ]*?) '?([^':]+?)'?(?: for [a-z]+)?: (Permission denied|Read-only file system|Operation not permitted|No such file or directory)\s*$)");
  // bash, sh, cat: "bash: /x: Permission denied", "sh: 1: /x: Permission denied"; a relative path
  // only right after a program's name at the start of the line ("cat: .env: Permission denied",
  // "/usr/bin/cat: .env: Permission denied").
  static const std::regex plain(
      R"((?:^|\s)(/[^:]*): (Permission denied|Read-only file system|Operation not permitted|No such file or directory)\s*$)");
  static const std::regex program_relative(
      R"(^(?:/[^\s:]*/)?[a-z][a-z0-9_.+-]*: (?:(?:line )?[0-9]+: )?([^:/\s][^:]*): (Permission denied|Read-only file system|Operation not permitted|No such file or directory)\s*$)");
  // Name resolution and connections: node, curl, pip (urllib3).
  static const std::regex getaddrinfo(R"(\bgetaddrinfo (EAI_AGAIN|ENOTFOUND) ([A-Za-z0-9._-]+))");
  static const std::regex node_connect(R"(\bconnect (ENETUNREACH|EHOSTUNREACH|EACCES|EPERM) ([0-9A-Fa-f.:]+):([0-9]+))");
  static const std::regex curl(R"(Could not resolve host: ([A-Za-z0-9._-]+))");
  static const std::regex urllib3(
      R"(ConnectionPool\(host='([^']+)', port=([0-9]+)\).*(name resolution|Name or service not known|Network is unreachable))");

  if (std::regex_search(text, m, node_fs)) {
    d.error = m[1];
    d.operation = d.error == "EROFS" ? Operation::write : detail::operation_of_syscall(m[2].str());
    d.target = path_at(m[3]);
  } else if (std::regex_search(text, m, node_spawn)) {
    d.error = m[2];
    d.operation = Operation::exec;
    if (m[1].str().front() != '/') return std::nullopt;  // a bare name: PATH lookup, not a path
    d.target = normalize_path(m[1].str());
  } else if (std::regex_search(text, m, python)) {
    static constexpr std::string_view names[] = {"", "EPERM", "ENOENT"};
    const int code = std::stoi(m[1]);
    d.error = code == 13 ? "EACCES" : code == 30 ? "EROFS" : std::string(names[code]);
    d.operation = code == 30 ? Operation::write : Operation::unknown;
    d.target = path_at(m[2].matched ? m[2].str() : m[3].str());
  } else if (std::regex_search(text, m, phrase)) {
    d.error = detail::error_for_message(m[3].str());
    d.operation = d.error == "EROFS" ? Operation::write : detail::operation_of_phrase(m[1].str());
    d.target = path_at(m[2]);
  } else if (std::regex_search(text, m, plain) || std::regex_search(text, m, program_relative)) {
    d.error = detail::error_for_message(m[2].str());
    d.operation = d.error == "EROFS" ? Operation::write : Operation::unknown;
    d.target = path_at(m[1].str());
  } else if (std::regex_search(text, m, getaddrinfo) || std::regex_search(text, m, curl)) {
    d.error = m.size() > 2 ? m[1].str() : "EAI_AGAIN";
    d.operation = Operation::connect;
    d.target = m[m.size() - 1];
  } else if (std::regex_search(text, m, node_connect)) {
    d.error = m[1];
    d.operation = Operation::connect;
    d.target = m[2];
    d.port = parse_port(m[3].str());
  } else if (std::regex_search(text, m, urllib3)) {
    d.error = "EAI_AGAIN";
    d.operation = Operation::connect;
    d.target = m[1];
    d.port = parse_port(m[2].str());
  } else {
    return std::nullopt;
  }
  if (d.target.empty()) return std::nullopt;
  return d;
}

namespace detail {

// The first entry of `written` (a policy list as written) whose expansion covers `path`.
struct Cover {
  std::string written;
  std::string expanded;
};

inline std::optional<Cover> first_cover(const std::vector<std::string>& written, const std::string& path,
                                        const Context& ctx) {
  for (const std::string& entry : written) {
    std::string expanded = expand_variables(entry, ctx, "policy entry");
    if (rule_covers(expanded, path)) return Cover{entry, std::move(expanded)};
  }
  return std::nullopt;
}

inline std::optional<Cover> first_mandatory(const std::vector<std::string>& expanded, const std::string& path) {
  for (const std::string& entry : expanded)
    if (rule_covers(entry, path)) return Cover{entry, entry};
  return std::nullopt;
}

// What blocks one operation on one path under one policy.
struct Block {
  RuleKind kind;
  Operation operation;
  std::optional<Cover> cover;  // the deny entry; none for not-in-allow (except unbound_allow)
  bool mandatory_write = false;  // a mandatory write deny (.git/hooks, .git/config), not a credential store
  bool unbound_allow = false;    // `cover` is an allow_write entry naming a path that does not exist
};

inline std::optional<Block> read_block(const Policy& p, const std::string& path, const Context& ctx) {
  const MandatoryDenies mandatory = mandatory_denies(p, ctx);
  if (auto c = first_mandatory(mandatory.deny_read_write, path)) return Block{RuleKind::mandatory, Operation::read, c};
  if (auto c = first_cover(p.filesystem.deny_read, path, ctx)) return Block{RuleKind::deny_read, Operation::read, c};
  if (!first_cover(p.filesystem.allow_read, path, ctx) && !first_cover(p.filesystem.allow_write, path, ctx))
    return Block{RuleKind::not_in_allow_read, Operation::read, std::nullopt};
  return std::nullopt;
}

inline std::optional<Block> write_block(const Policy& p, const std::string& path, const Context& ctx) {
  const MandatoryDenies mandatory = mandatory_denies(p, ctx);
  if (auto c = first_mandatory(mandatory.deny_read_write, path)) return Block{RuleKind::mandatory, Operation::write, c};
  if (auto c = first_mandatory(mandatory.deny_write, path))
    return Block{RuleKind::mandatory, Operation::write, c, true};
  if (auto c = first_cover(p.filesystem.deny_write, path, ctx)) return Block{RuleKind::deny_write, Operation::write, c};
  if (auto c = first_cover(p.filesystem.deny_read, path, ctx)) return Block{RuleKind::deny_read, Operation::write, c};
  if (!first_cover(p.filesystem.allow_write, path, ctx))
    return Block{RuleKind::not_in_allow_write, Operation::write, std::nullopt};
  return std::nullopt;
}

inline std::optional<Block> exec_block(const Policy& p, const std::string& path, const Context& ctx) {
  const MandatoryDenies mandatory = mandatory_denies(p, ctx);
  if (auto c = first_mandatory(mandatory.deny_read_write, path)) return Block{RuleKind::mandatory, Operation::exec, c};
  if (auto c = first_cover(p.process.deny_exec, path, ctx)) return Block{RuleKind::deny_exec, Operation::exec, c};
  if (auto c = first_cover(p.filesystem.deny_read, path, ctx)) return Block{RuleKind::deny_read, Operation::exec, c};
  if (!p.process.allow_exec.empty() && !first_cover(p.process.allow_exec, path, ctx))
    return Block{RuleKind::not_in_allow_exec, Operation::exec, std::nullopt};
  return std::nullopt;
}

// For a message that does not say what was tried: an explicit deny explains it best, then a
// missing read permission (the path is not even visible), then a missing write permission.
inline std::optional<Block> any_block(const Policy& p, const std::string& path, const Context& ctx) {
  const auto read = read_block(p, path, ctx);
  if (read && read->kind != RuleKind::not_in_allow_read) return read;
  if (auto c = first_cover(p.process.deny_exec, path, ctx)) return Block{RuleKind::deny_exec, Operation::exec, c};
  const auto write = write_block(p, path, ctx);
  if (write && write->kind != RuleKind::not_in_allow_write) return write;
  return read ? read : write;
}

inline std::optional<Block> block_for(Operation op, const Policy& p, const std::string& path, const Context& ctx) {
  switch (op) {
    case Operation::read: return read_block(p, path, ctx);
    case Operation::write: return write_block(p, path, ctx);
    case Operation::exec: return exec_block(p, path, ctx);
    case Operation::connect:
    case Operation::unknown: break;
  }
  return any_block(p, path, ctx);
}

inline bool exists_on_host(const FsView& fs, const std::string& path) {
  return fs.type(fs.resolve(path)) != FileType::missing;
}

// `path` if the host has it, else its nearest existing ancestor.
inline std::string nearest_existing(const FsView& fs, std::string path) {
  while (path != "/" && !exists_on_host(fs, path)) path = join_path(path, "..");
  return path;
}

// The path among `path` and its ancestors through which `entry` (expanded) covers it.
inline std::string covering_point(const std::string& entry, std::string path) {
  if (!has_glob_chars(entry)) return entry;
  const Glob glob(entry);
  while (!glob.matches(path) && path != "/") path = join_path(path, "..");
  return path;
}

// A backend that grants access by binding paths (bubblewrap) expands a pattern against the files
// present when the sandbox starts (a literal path and a whole `DIR/**` tree it creates first). A
// write the policy allows on paper can therefore still be refused: creating a file that only a
// pattern like `${CWD}/package.json.*` allows. That refusal is explained against the entry.
inline std::optional<Block> unbound_write(const Policy& p, const std::string& path, const Context& ctx,
                                          const FsView& fs) {
  if (exists_on_host(fs, path)) return std::nullopt;
  std::optional<Cover> first;
  for (const std::string& entry : p.filesystem.allow_write) {
    const std::string expanded = expand_variables(entry, ctx, "policy entry");
    if (!rule_covers(expanded, path)) continue;
    if (!has_glob_chars(expanded) || is_whole_tree(expanded) || exists_on_host(fs, covering_point(expanded, path)))
      return std::nullopt;
    if (!first) first = Cover{entry, expanded};
  }
  if (!first) return std::nullopt;
  return Block{RuleKind::not_in_allow_write, Operation::write, first, false, true};
}

// What refuses `op` on `path`: the policy's rules, then, for a write the policy allows, an allow
// entry that a binding backend cannot apply.
inline std::optional<Block> effective_block(Operation op, const Policy& p, const std::string& path, const Context& ctx,
                                            const FsView& fs) {
  if (auto b = block_for(op, p, path, ctx)) return b;
  if (op == Operation::write || op == Operation::unknown) return unbound_write(p, path, ctx, fs);
  return std::nullopt;
}

inline std::string_view override_type_for(Operation op) {
  return op == Operation::write ? "write" : op == Operation::exec ? "exec" : "read";
}

inline std::string mandatory_why(const Block& b) {
  const std::string entry = b.cover->written;
  if (b.mandatory_write && entry.ends_with("/.git/config"))
    return "pmg's mandatory deny \"" + entry + "\": settings in .git/config (core.hooksPath, core.fsmonitor, "
           "aliases) run code on your next git command";
  if (b.mandatory_write)
    return "pmg's mandatory deny \"" + entry + "\": a hook planted in .git/hooks runs code on your next git "
           "command, outside any sandbox";
  return "pmg's mandatory deny \"" + entry + "\": credential stores (.ssh, .aws, .env, .netrc, ...) are "
         "hidden from every sandboxed process";
}

inline std::string mandatory_note(const Block& b) {
  if (b.mandatory_write && b.cover->written.ends_with("/.git/config"))
    return "cannot be allowed with --sandbox-allow; a profile with `allow_git_config: true` permits writing "
           ".git/config (pmg sandbox profile init NAME --from BUILTIN, then add it)";
  return "cannot be allowed: mandatory denies are not part of any profile, and neither a profile nor "
         "--sandbox-allow can lift them (docs/mandatory-denies.md); run a command you trust this much outside pmg";
}

}  // namespace detail

// The rule that refused `denial` under `policy` (the policy the run enforced: resolved, with
// that run's overrides applied), or nullopt when the policy allows the operation (the refusal
// came from file permissions or a real network failure, not from the sandbox) or when an ENOENT
// is a path that simply does not exist.
inline std::optional<Violation> explain_denial(const Denial& denial, const Policy& policy, const ExplainContext& ec) {
  const Context& ctx = ec.context;
  Violation v;
  v.error = denial.error;
  v.evidence = denial.evidence;

  if (denial.operation == Operation::connect) {
    const std::optional<Host> host = parse_host(denial.target);
    if (!host) return std::nullopt;
    const std::uint16_t port = denial.port.value_or(443);
    const OutboundRules rules(policy.network, policy.source);
    const OutboundDecision decision = rules.decide(*host, port);
    if (decision.allowed) return std::nullopt;
    v.operation = Operation::connect;
    v.target = endpoint_string(*host, port);
    v.rule = RuleKind::network;
    v.rule_entry = decision.rule;
    v.why = decision.reason;
    Policy allowed = policy;
    const Override o = parse_override("net-connect=" + v.target, ctx);
    apply_overrides(allowed, std::span(&o, 1), ctx);
    if (OutboundRules(allowed.network, policy.source).decide(*host, port).allowed) {
      v.allow = o.raw;
      if (!denial.port) v.note = "the message does not name the port; 443 (HTTPS) is assumed";
    } else {
      v.note = "cannot be allowed with --sandbox-allow: " + decision.rule +
               " is a pattern, and an override lifts only an exact entry; edit the profile";
    }
    return v;
  }

  const std::string& path = denial.target;
  Operation op = denial.operation;
  const bool on_host = detail::exists_on_host(ec.fs, path);
  if (denial.error == "ENOENT") {
    // A hidden path looks missing inside the sandbox. Only a path the host has is evidence, or,
    // for a path the host lacks too, creating it in a directory the host has but the sandbox does
    // not show (reading a path that exists nowhere fails with or without a sandbox).
    if (!on_host) {
      const std::string parent = join_path(path, "..");
      if (op == Operation::read || op == Operation::exec || !detail::exists_on_host(ec.fs, parent) ||
          !detail::read_block(policy, parent, ctx))
        return std::nullopt;
      op = Operation::write;
    } else if (op == Operation::unknown) {
      op = Operation::read;
    }
  }
  const std::optional<detail::Block> block = detail::effective_block(op, policy, path, ctx, ec.fs);
  if (!block) return std::nullopt;
  v.operation = block->operation;
  v.target = path;
  v.rule = block->kind;
  if (block->cover && !block->unbound_allow) v.rule_entry = block->cover->written;
  const std::string profile = policy.name.empty() ? policy.source : "profile " + policy.name;

  if (block->kind == RuleKind::mandatory) {
    v.why = detail::mandatory_why(*block);
    v.note = detail::mandatory_note(*block);
    return v;
  }
  const std::string type(detail::override_type_for(block->operation));
  std::string value;
  std::vector<std::string> notes;
  if (block->unbound_allow) {
    value = detail::nearest_existing(ec.fs, path);
    v.why = "the filesystem.allow_write pattern \"" + block->cover->written + "\" of " + profile + " matches it, but "
            "it did not exist when the sandbox started, and a backend that binds paths (bubblewrap) applies a pattern "
            "to the files present then: the write fell to " + value + ", which is not writable";
    notes.push_back("narrower: create " + path + " before the run (touch it), then the pattern applies to it");
  } else if (block->cover) {
    const std::string list = block->kind == RuleKind::deny_exec ? "process.deny_exec" : "filesystem." + std::string(to_string(block->kind));
    v.why = "denied by the " + list + " entry \"" + block->cover->written + "\" of " + profile;
    if (has_glob_chars(block->cover->written)) {
      v.note = "cannot be allowed with --sandbox-allow: \"" + block->cover->written +
               "\" is a pattern, and an override lifts only an exact entry; use a profile without it "
               "(pmg sandbox profile init NAME --from BUILTIN creates one to edit)";
      return v;
    }
    value = block->cover->expanded;
    if (value != path) notes.push_back("this lifts the whole entry \"" + block->cover->written + "\"");
  } else {
    const std::string list = block->kind == RuleKind::not_in_allow_read    ? "filesystem.allow_read"
                             : block->kind == RuleKind::not_in_allow_write ? "filesystem.allow_write"
                                                                           : "process.allow_exec";
    v.why = "no " + list + " entry of " + profile + " covers it";
    value = block->operation == Operation::exec ? path : detail::nearest_existing(ec.fs, path);
    if (value != path)
      notes.push_back(path + " does not exist yet and a sandbox can only open up paths that exist, so the flag "
                      "names " + value + "; narrower: create " + path + " first and allow just it");
  }

  // Suggest the flag only if applying it, exactly as the host will, allows the operation.
  Override o;
  try {
    o = parse_override(type + "=" + value, ctx);
  } catch (const Error& e) {
    v.note = std::string("no --sandbox-allow flag can name this path: ") + e.what();
    return v;
  }
  Policy allowed = policy;
  apply_overrides(allowed, std::span(&o, 1), ctx);
  if (const auto still = detail::effective_block(block->operation, allowed, path, ctx, ec.fs)) {
    v.note = "cannot be allowed with --sandbox-allow: it would stay denied by " +
             (still->cover ? "\"" + still->cover->written + "\"" : std::string(to_string(still->kind)));
    return v;
  }
  v.allow = o.raw;
  for (const AccessRisk& risk : access_risks(value, block->operation == Operation::write, ctx, ec.path_dirs))
    notes.push_back("caution: the flag " + risk.what + "; " + risk.why);
  for (const std::string& n : notes) v.note += (v.note.empty() ? "" : "; ") + n;
  return v;
}

// The distinct violations reported by `lines` (one per operation and target, first report kept).
inline std::vector<Violation> violations_in_output(std::span<const std::string> lines, const Policy& policy,
                                                   const ExplainContext& ec) {
  std::vector<Violation> out;
  for (const std::string& line : lines) {
    const std::optional<Denial> denial = parse_denial_line(line, ec.context);
    if (!denial) continue;
    std::optional<Violation> v = explain_denial(*denial, policy, ec);
    if (!v) continue;
    const bool seen = std::any_of(out.begin(), out.end(), [&](const Violation& o) {
      return o.operation == v->operation && o.target == v->target;
    });
    if (!seen) out.push_back(std::move(*v));
  }
  return out;
}

}  // namespace pmg
