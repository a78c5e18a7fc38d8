// Rule parsing, matching and address screening, table-driven.
#include <catch2/catch.hpp>

#include "pmg/outbound_rules.hpp"

using namespace pmg;

namespace {

Host host(std::string_view text) {
  auto h = parse_host(text);
  REQUIRE(h);
  return *h;
}

IpAddress ip(const std::string& text) { return boost::asio::ip::make_address(text); }

OutboundRules rules(std::vector<std::string> allow, std::vector<std::string> deny = {}) {
  NetworkRules n;
  n.allow_outbound = std::move(allow);
  n.deny_outbound = std::move(deny);
  return OutboundRules(n, "test.yml");
}

}  // namespace

TEST_CASE("parse_host reads names and canonical literals only") {
  struct Case {
    std::string text;
    std::optional<std::string> expected;  // Host::to_string(), nullopt: refused
    bool literal;
  };
  const std::vector<Case> cases = {
      {"registry.npmjs.org", "registry.npmjs.org", false},
      {"Registry.NPMJS.org.", "registry.npmjs.org", false},  // case and the root dot do not matter
      {"localhost", "localhost", false},
      {"_dmarc.example.com", "_dmarc.example.com", false},
      {"10.0.0.1", "10.0.0.1", true},
      {"[::1]", "[::1]", true},
      {"[2001:DB8::1]", "[2001:db8::1]", true},
      {"[::ffff:127.0.0.1]", "127.0.0.1", true},  // IPv4-mapped is the IPv4 address
      {"", std::nullopt, false},
      {".", std::nullopt, false},
      {"a..b", std::nullopt, false},
      {"::1", std::nullopt, false},              // IPv6 needs brackets
      {"[fe80::1%eth0]", std::nullopt, false},   // no zone index
      {"[not-an-address]", std::nullopt, false},
      {"127.1", std::nullopt, false},            // inet_aton shorthand: not a name, not canonical
      {"2130706433", std::nullopt, false},
      {"0x7f.0.0.1", std::nullopt, false},
      {"1.2.3.4.5", std::nullopt, false},
      {"256.1.1.1", std::nullopt, false},
      {"user@host", std::nullopt, false},
      {"host name", std::nullopt, false},
      {"a/b", std::nullopt, false},
      {std::string(64, 'a') + ".com", std::nullopt, false},  // a label over 63
      {std::string(63, 'a') + ".com", std::string(63, 'a') + ".com", false},
      {std::string(254, 'a'), std::nullopt, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const auto h = parse_host(c.text);
    REQUIRE(h.has_value() == c.expected.has_value());
    if (h) {
      CHECK(h->to_string() == *c.expected);
      CHECK(h->is_literal() == c.literal);
    }
  }
}

TEST_CASE("parse_outbound_rule accepts the documented forms and names bad entries") {
  CHECK(parse_outbound_rule("registry.npmjs.org:443", "w").kind == OutboundRule::HostKind::name);
  CHECK(parse_outbound_rule("*.example.com:443", "w").kind == OutboundRule::HostKind::subdomains);
  CHECK(parse_outbound_rule("*:*", "w").kind == OutboundRule::HostKind::any);
  CHECK(parse_outbound_rule("10.0.0.5:8080", "w").kind == OutboundRule::HostKind::address);
  CHECK(parse_outbound_rule("[::1]:8080", "w").kind == OutboundRule::HostKind::address);
  CHECK_FALSE(parse_outbound_rule("host:*", "w").port.has_value());
  CHECK(parse_outbound_rule("host:65535", "w").port == 65535);

  for (const char* bad : {"host", "host:0", "host:65536", "host:http", ":443", "::1:443", "a*.example.com:443",
                          "*.*.example.com:443", "*.10.0.0.1:443", "127.1:80", "ex ample.com:80", "[zz]:80",
                          "foo*:80"}) {
    CAPTURE(bad);
    try {
      parse_outbound_rule(bad, "npm.yml: network.allow_outbound[3]");
      FAIL("accepted");
    } catch (const Error& e) {
      const std::string message = e.what();
      CHECK(message.find("npm.yml: network.allow_outbound[3]") != std::string::npos);
      CHECK(message.find("e.g.") != std::string::npos);
    }
  }
  CHECK_THROWS_WITH(rules({"ok.com:443", "bad"}), Catch::Contains("test.yml: network.allow_outbound[1]"));
}

TEST_CASE("decide: matching by name, wildcard, port and literal; deny wins") {
  const OutboundRules r = rules({"registry.npmjs.org:443", "*.example.com:443", "files.example.org:*",
                                 "10.0.0.5:8080", "[2001:db8::7]:443", "*.blocked.test:443"},
                                {"evil.example.com:*", "*.blocked.test:443", "*:25"});
  struct Case {
    std::string host;
    std::uint16_t port;
    bool allowed;
    std::string rule;
  };
  const std::vector<Case> cases = {
      {"registry.npmjs.org", 443, true, "allow_outbound registry.npmjs.org:443"},
      {"REGISTRY.npmjs.org.", 443, true, "allow_outbound registry.npmjs.org:443"},
      {"registry.npmjs.org", 80, false, ""},
      {"npmjs.org", 443, false, ""},
      {"xregistry.npmjs.org", 443, false, ""},
      {"a.example.com", 443, true, "allow_outbound *.example.com:443"},
      {"a.b.example.com", 443, true, "allow_outbound *.example.com:443"},
      {"example.com", 443, false, ""},          // the wildcard stands for subdomains only
      {"badexample.com", 443, false, ""},
      {"a.example.com", 8443, false, ""},
      {"files.example.org", 1, true, "allow_outbound files.example.org:*"},
      {"files.example.org", 65535, true, "allow_outbound files.example.org:*"},
      {"10.0.0.5", 8080, true, "allow_outbound 10.0.0.5:8080"},
      {"[::ffff:10.0.0.5]", 8080, true, "allow_outbound 10.0.0.5:8080"},
      {"10.0.0.5", 8081, false, ""},
      {"[2001:db8::7]", 443, true, "allow_outbound [2001:db8::7]:443"},
      {"[2001:db8:0:0::7]", 443, true, "allow_outbound [2001:db8::7]:443"},
      {"evil.example.com", 443, false, "deny_outbound evil.example.com:*"},  // deny beats *.example.com
      {"x.blocked.test", 443, false, "deny_outbound *.blocked.test:443"},  // in both lists: deny wins
      {"registry.npmjs.org", 25, false, "deny_outbound *:25"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.host, c.port);
    const OutboundDecision d = r.decide(host(c.host), c.port);
    CHECK(d.allowed == c.allowed);
    CHECK(d.rule == c.rule);
    CHECK_FALSE(d.reason.empty());
  }
  CHECK(r.decide(host("nowhere.test"), 443).reason == "nowhere.test:443 matches no allow_outbound entry");
}

TEST_CASE("decide: names never match literals and the reverse") {
  const OutboundRules r = rules({"localhost:8080", "127.0.0.1:9090"});
  CHECK_FALSE(r.decide(host("127.0.0.1"), 8080).allowed);
  CHECK_FALSE(r.decide(host("localhost"), 9090).allowed);
}

TEST_CASE("an empty policy and deny '*:*' alone allow nothing; '*:*' in deny keeps the allow list") {
  CHECK_FALSE(OutboundRules().decide(host("registry.npmjs.org"), 443).allowed);
  CHECK_FALSE(rules({}, {"*:*"}).decide(host("registry.npmjs.org"), 443).allowed);
  const OutboundRules r = rules({"registry.npmjs.org:443"}, {"*:*"});
  CHECK(r.decide(host("registry.npmjs.org"), 443).allowed);
  CHECK_FALSE(r.decide(host("example.org"), 443).allowed);
  CHECK(rules({"*:*"}).decide(host("anything.test"), 1).allowed);
}

TEST_CASE("is_forbidden_address: local, link-local, metadata and the host's own addresses") {
  const std::vector<IpAddress> own = {ip("192.168.1.20"), ip("2001:db8:1::20")};
  struct Case {
    std::string address;
    bool forbidden;
  };
  const std::vector<Case> cases = {
      {"127.0.0.1", true},       {"127.255.255.254", true}, {"0.0.0.0", true},         {"0.1.2.3", true},
      {"169.254.169.254", true}, {"169.254.0.1", true},     {"224.0.0.1", true},       {"239.255.255.250", true},
      {"255.255.255.255", true}, {"100.100.100.200", true}, {"192.168.1.20", true},    {"::1", true},
      {"::", true},              {"fe80::1", true},         {"febf::1", true},         {"ff02::1", true},
      {"fd00:ec2::254", true},   {"2001:db8:1::20", true},  {"::ffff:127.0.0.1", true}, {"::ffff:169.254.169.254", true},
      {"::ffff:192.168.1.20", true}, {"::127.0.0.1", true}, {"64:ff9b::169.254.169.254", true},
      {"104.16.0.35", false},    {"10.0.0.5", false},       {"192.168.1.21", false},   {"172.16.0.1", false},
      {"100.64.0.1", false},     {"2606:4700::6810:2223", false}, {"fec0::1", false},  {"::ffff:104.16.0.35", false},
      {"64:ff9b::8.8.8.8", false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.address);
    CHECK(is_forbidden_address(ip(c.address), own) == c.forbidden);
  }
  CHECK(forbidden_address_reason(ip("169.254.169.254"), {})->find("link-local") != std::string::npos);
  CHECK(forbidden_address_reason(ip("192.168.1.20"), own) == "an address of this machine");
}

TEST_CASE("screen: an allowed name's forbidden addresses are dropped unless the literal is allowed") {
  const std::vector<IpAddress> own = {ip("192.168.1.20")};
  const OutboundRules r = rules({"localhost:8080", "127.0.0.1:9090", "*.corp.test:443", "*:*"}, {"10.9.9.9:443"});

  SECTION("loopback behind an allowed name is refused, with a reason") {
    const auto s = r.screen(std::vector{ip("127.0.0.1"), ip("::1")}, 8080, own);
    CHECK(s.permitted.empty());
    REQUIRE(s.refusals.size() == 2);
    CHECK(s.refusals[0] == "127.0.0.1:8080 is a loopback address; allow 127.0.0.1:8080 itself to reach it");
  }
  SECTION("the literal address and port allowed explicitly passes, on that port only") {
    CHECK(r.screen(std::vector{ip("127.0.0.1")}, 9090, own).permitted == std::vector{ip("127.0.0.1")});
    CHECK(r.screen(std::vector{ip("::ffff:127.0.0.1")}, 9090, own).permitted == std::vector{ip("127.0.0.1")});
    CHECK(r.screen(std::vector{ip("127.0.0.1")}, 9091, own).permitted.empty());
  }
  SECTION("'*:*' does not make a forbidden address reachable") {
    CHECK(r.screen(std::vector{ip("169.254.169.254")}, 80, own).permitted.empty());
    CHECK(r.screen(std::vector{ip("192.168.1.20")}, 22, own).permitted.empty());
  }
  SECTION("public addresses pass, forbidden ones among them are dropped, duplicates collapse") {
    const auto s = r.screen(std::vector{ip("127.0.0.1"), ip("104.16.0.35"), ip("::ffff:104.16.0.35")}, 443, own);
    CHECK(s.permitted == std::vector{ip("104.16.0.35")});
    CHECK(s.refusals.size() == 1);
  }
  SECTION("a deny entry naming an address applies to resolved addresses too") {
    const auto s = r.screen(std::vector{ip("10.9.9.9")}, 443, own);
    CHECK(s.permitted.empty());
    CHECK(s.refusals.at(0).find("deny_outbound 10.9.9.9:443") != std::string::npos);
  }
}
