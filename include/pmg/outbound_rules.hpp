#pragma once
// What `network.allow_outbound` / `deny_outbound` mean for one outbound connection, decided by
// the filtering proxy (network_proxy.hpp). Pure: no lookups, no I/O; the proxy passes in the
// addresses it resolved and the host's interface addresses.
//
// Entries are "host:port". host is a DNS name ("registry.npmjs.org"), a wildcard for its
// subdomains ("*.example.com": a.example.com and a.b.example.com, not example.com itself), "*"
// for every host, an IPv4 literal or a bracketed IPv6 literal; port is 1-65535 or "*".
//
// The order of checks:
//   1. a deny_outbound entry matching the host as requested refuses it (deny wins);
//   2. otherwise the first matching allow_outbound entry admits it; no match refuses it;
//   3. every address the proxy would dial is screened again: an address named by a deny entry,
//      or a loopback / link-local / unspecified / multicast / metadata address or one of the
//      host's own, is refused unless an allow entry names that literal address and port. This is
//      what keeps an allowed *name* (or "*") from reaching 127.0.0.1 or 169.254.169.254.
// "*:*" in deny_outbound states the default ("everything not allowed is denied") and is not
// matched as a rule, the same meaning the Seatbelt backend gives it.
#include <arpa/inet.h>

#include <boost/asio/ip/address.hpp>
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/error.hpp"
#include "pmg/policy.hpp"
#include "pmg/validation.hpp"

namespace pmg {

using IpAddress = boost::asio::ip::address;

// A host as written in a request or an entry: a DNS name or an address literal. Literals are
// canonical: an IPv4-mapped IPv6 literal ([::ffff:10.0.0.1]) is its IPv4 address, so a deny entry
// for 10.0.0.1 cannot be sidestepped by spelling.
struct Host {
  std::string name;                  // lower case, no trailing dot; empty for a literal
  std::optional<IpAddress> address;  // set for a literal

  bool is_literal() const { return address.has_value(); }
  // "example.com", "10.0.0.1", "[2001:db8::1]"
  std::string to_string() const {
    if (!address) return name;
    return address->is_v6() ? "[" + address->to_string() + "]" : address->to_string();
  }
  bool operator==(const Host&) const = default;
};

// "host:port" of a destination, for logs and messages.
inline std::string endpoint_string(const Host& host, std::uint16_t port) {
  return host.to_string() + ":" + std::to_string(port);
}

// The IPv4 address inside an IPv4-mapped IPv6 address, or the address itself.
inline IpAddress canonical_address(const IpAddress& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped())
    return boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, address.to_v6());
  return address;
}

namespace detail {

inline bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
}

// DNS names: labels of letters, digits, '-' and '_' (1-63 characters), 253 characters at most.
// A string that inet_aton would read as an IPv4 address ("127.1", "0x7f.0.0.1", "2130706433")
// but is not a dotted quad is refused: it is not a name, and as an address it is ambiguous.
inline std::optional<std::string> normalize_host_name(std::string_view text) {
  if (!text.empty() && text.back() == '.') text.remove_suffix(1);
  if (text.empty() || text.size() > 253) return std::nullopt;
  std::string name;
  name.reserve(text.size());
  std::size_t label = 0;
  for (const char c : text) {
    if (c == '.') {
      if (label == 0) return std::nullopt;
      label = 0;
    } else if (is_name_char(c)) {
      if (++label > 63) return std::nullopt;
    } else {
      return std::nullopt;
    }
    name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (label == 0) return std::nullopt;
  in_addr ignored{};
  if (::inet_aton(name.c_str(), &ignored) != 0) return std::nullopt;
  return name;
}

}  // namespace detail

// Reads a host as it appears before ":port": a name, a dotted-quad IPv4 literal, or a bracketed
// IPv6 literal (no zone index). nullopt when it is none of these.
inline std::optional<Host> parse_host(std::string_view text) {
  boost::system::error_code ec;
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    const std::string inner(text.substr(1, text.size() - 2));
    if (inner.find('%') != std::string::npos) return std::nullopt;
    const auto v6 = boost::asio::ip::make_address_v6(inner, ec);
    if (ec) return std::nullopt;
    return Host{"", canonical_address(IpAddress(v6))};
  }
  if (text.find_first_not_of("0123456789.") == std::string_view::npos) {
    in_addr parsed{};
    const std::string quad(text);
    // inet_pton accepts exactly four decimal parts: the unambiguous spelling.
    if (::inet_pton(AF_INET, quad.c_str(), &parsed) != 1) return std::nullopt;
    return Host{"", IpAddress(boost::asio::ip::make_address_v4(quad, ec))};
  }
  if (auto name = detail::normalize_host_name(text)) return Host{std::move(*name), std::nullopt};
  return std::nullopt;
}

// A port as text: 1-65535, decimal digits only.
inline std::optional<std::uint16_t> parse_port(std::string_view text) {
  if (text.empty() || text.size() > 5) return std::nullopt;
  unsigned value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value == 0 || value > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(value);
}

// One allow_outbound or deny_outbound entry.
struct OutboundRule {
  enum class HostKind { any, subdomains, name, address };

  std::string entry;  // as written, for the log
  HostKind kind = HostKind::any;
  std::string name;  // subdomains: ".example.com"; name: "example.com"
  std::optional<IpAddress> address;
  std::optional<std::uint16_t> port;  // nullopt: any port

  bool matches_port(std::uint16_t p) const { return !port || *port == p; }

  // Names match names, literals match literals: no lookup is implied in either direction.
  bool matches(const Host& host, std::uint16_t p) const {
    if (!matches_port(p)) return false;
    switch (kind) {
      case HostKind::any: return true;
      case HostKind::subdomains: return !host.is_literal() && host.name.ends_with(name);
      case HostKind::name: return !host.is_literal() && host.name == name;
      case HostKind::address: return host.is_literal() && *host.address == *address;
    }
    return false;
  }
  bool matches_address(const IpAddress& a, std::uint16_t p) const {
    return kind == HostKind::address && *address == canonical_address(a) && matches_port(p);
  }
};

// Parses one entry; `where` names it in the error ("npm.yml: network.allow_outbound[2]").
inline OutboundRule parse_outbound_rule(std::string_view entry, std::string_view where) {
  check_endpoint_entry(entry, where);  // the policy loader's syntax check, same messages
  const std::size_t colon = entry.rfind(':');
  const std::string_view host = entry.substr(0, colon);
  const std::string_view port = entry.substr(colon + 1);
  OutboundRule rule;
  rule.entry = std::string(entry);
  if (port != "*") rule.port = parse_port(port);
  const auto fail = [&](std::string_view problem) {
    return Error(std::string(where) + ": " + quote_for_message(entry) + ": " + std::string(problem) +
                 "; write host:port, e.g. registry.npmjs.org:443, *.example.com:443, 10.0.0.5:8080, [::1]:8080");
  };
  if (host == "*") {
    rule.kind = OutboundRule::HostKind::any;
  } else if (host.starts_with("*.")) {
    const auto parsed = parse_host(host.substr(2));
    if (!parsed || parsed->is_literal())
      throw fail("a wildcard must be '*' or stand for the subdomains of a name, as in *.example.com");
    rule.kind = OutboundRule::HostKind::subdomains;
    rule.name = "." + parsed->name;
  } else if (host.find('*') != std::string_view::npos) {
    throw fail("'*' may only be the whole host or its first label, as in *.example.com");
  } else if (const auto parsed = parse_host(host)) {
    if (parsed->is_literal()) {
      rule.kind = OutboundRule::HostKind::address;
      rule.address = parsed->address;
    } else {
      rule.kind = OutboundRule::HostKind::name;
      rule.name = parsed->name;
    }
  } else {
    throw fail("the host is not a DNS name, a dotted-quad IPv4 address or a bracketed IPv6 address");
  }
  return rule;
}

// A verdict with the reason, for the 403 body, the debug log and the violation record.
struct OutboundDecision {
  bool allowed = false;
  std::string rule;    // "allow_outbound registry.npmjs.org:443", "deny_outbound *:25", or "" (none matched)
  std::string reason;  // one line
};

// Why connecting to `address` is refused whatever name led to it, or nullopt. The host's own
// interface addresses are passed in (the proxy reads them per connection, they change).
inline std::optional<std::string> forbidden_address_reason(const IpAddress& address,
                                                            std::span<const IpAddress> host_addresses) {
  const IpAddress a = canonical_address(address);
  const auto own = [&]() -> std::optional<std::string> {
    for (const IpAddress& o : host_addresses)
      if (canonical_address(o) == a) return "an address of this machine";
    return std::nullopt;
  };
  if (a.is_v4()) {
    const auto b = a.to_v4().to_bytes();
    if (b[0] == 127) return "a loopback address";
    if (b[0] == 0) return "an unspecified address";
    if (b[0] == 169 && b[1] == 254) return "a link-local address (cloud metadata lives here)";
    if (b[0] >= 224 && b[0] <= 239) return "a multicast address";
    if (b[0] >= 240) return "a reserved or broadcast address";
    if (b == boost::asio::ip::address_v4::bytes_type{100, 100, 100, 200}) return "a cloud metadata address";
    return own();
  }
  const auto v6 = a.to_v6();
  const auto b = v6.to_bytes();
  if (v6.is_loopback()) return "a loopback address";
  if (v6.is_unspecified()) return "an unspecified address";
  if (v6.is_link_local()) return "a link-local address";
  if (v6.is_multicast()) return "a multicast address";
  static const auto aws_metadata_v6 = boost::asio::ip::make_address_v6("fd00:ec2::254");
  if (v6 == aws_metadata_v6) return "a cloud metadata address";
  // IPv4-compatible (::a.b.c.d, deprecated) and NAT64 (64:ff9b::a.b.c.d) addresses carry an
  // IPv4 address that a translator may reach: screen that one too.
  const bool compatible = std::all_of(b.begin(), b.begin() + 12, [](unsigned char x) { return x == 0; });
  const bool nat64 = b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b &&
                     std::all_of(b.begin() + 4, b.begin() + 12, [](unsigned char x) { return x == 0; });
  if (compatible || nat64) {
    const boost::asio::ip::address_v4 inner({b[12], b[13], b[14], b[15]});
    if (auto reason = forbidden_address_reason(IpAddress(inner), host_addresses))
      return *reason + " (embedded in " + v6.to_string() + ")";
  }
  return own();
}

inline bool is_forbidden_address(const IpAddress& address, std::span<const IpAddress> host_addresses) {
  return forbidden_address_reason(address, host_addresses).has_value();
}

// The addresses a destination may be dialled at, in the resolver's order, and why the others
// were dropped.
struct ScreenedAddresses {
  std::vector<IpAddress> permitted;
  std::vector<std::string> refusals;  // one line per dropped address
};

class OutboundRules {
 public:
  OutboundRules() = default;  // allows nothing

  // `origin` names the policy in errors ("builtin:npm-restrictive").
  OutboundRules(const NetworkRules& network, std::string_view origin) {
    for (std::size_t i = 0; i < network.allow_outbound.size(); ++i)
      allow_.push_back(parse_outbound_rule(network.allow_outbound[i],
                                           std::string(origin) + ": network.allow_outbound[" + std::to_string(i) + "]"));
    for (std::size_t i = 0; i < network.deny_outbound.size(); ++i) {
      if (network.deny_outbound[i] == "*:*") continue;  // the default, see the header comment
      deny_.push_back(parse_outbound_rule(network.deny_outbound[i],
                                          std::string(origin) + ": network.deny_outbound[" + std::to_string(i) + "]"));
    }
  }

  const std::vector<OutboundRule>& allow() const { return allow_; }
  const std::vector<OutboundRule>& deny() const { return deny_; }

  // Steps 1 and 2: the destination as the client named it.
  OutboundDecision decide(const Host& host, std::uint16_t port) const {
    const std::string destination = endpoint_string(host, port);
    for (const OutboundRule& rule : deny_)
      if (rule.matches(host, port))
        return {false, "deny_outbound " + rule.entry, destination + " is denied by deny_outbound " + rule.entry};
    for (const OutboundRule& rule : allow_)
      if (rule.matches(host, port))
        return {true, "allow_outbound " + rule.entry, destination + " is allowed by allow_outbound " + rule.entry};
    return {false, "", destination + " matches no allow_outbound entry"};
  }

  // Step 3: one address about to be dialled for `port`.
  OutboundDecision check_address(const IpAddress& address, std::uint16_t port,
                                 std::span<const IpAddress> host_addresses) const {
    const Host literal{"", canonical_address(address)};
    const std::string destination = endpoint_string(literal, port);
    for (const OutboundRule& rule : deny_)
      if (rule.matches(literal, port))
        return {false, "deny_outbound " + rule.entry, destination + " is denied by deny_outbound " + rule.entry};
    const auto forbidden = forbidden_address_reason(address, host_addresses);
    if (!forbidden) return {true, "", destination + " is a public address"};
    for (const OutboundRule& rule : allow_)
      if (rule.matches_address(address, port))
        return {true, "allow_outbound " + rule.entry,
                destination + " is " + *forbidden + " but allowed by allow_outbound " + rule.entry};
    return {false, "", destination + " is " + *forbidden + "; allow " + destination + " itself to reach it"};
  }

  ScreenedAddresses screen(std::span<const IpAddress> resolved, std::uint16_t port,
                           std::span<const IpAddress> host_addresses) const {
    ScreenedAddresses out;
    for (const IpAddress& address : resolved) {
      const IpAddress a = canonical_address(address);
      if (std::find(out.permitted.begin(), out.permitted.end(), a) != out.permitted.end()) continue;
      OutboundDecision d = check_address(a, port, host_addresses);
      if (d.allowed) out.permitted.push_back(a);
      else out.refusals.push_back(std::move(d.reason));
    }
    return out;
  }

 private:
  std::vector<OutboundRule> allow_;
  std::vector<OutboundRule> deny_;
};

}  // namespace pmg
