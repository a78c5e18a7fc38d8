// The proxy's request parser: accepted forms, bounds, malformed input, byte-at-a-time equivalence.
#include <catch2/catch.hpp>

#include "pmg/proxy_request.hpp"

using namespace pmg;

namespace {

HttpRequestReader read_all(std::string_view input, RequestLimits limits = {}) {
  HttpRequestReader reader(limits);
  reader.feed(input);
  return reader;
}

// The same input fed one byte at a time reaches the same result.
ParseState read_bytewise(std::string_view input, RequestLimits limits = {}) {
  HttpRequestReader reader(limits);
  ParseState state = ParseState::need_more;
  for (char c : input) {
    state = reader.feed(std::string_view(&c, 1));
    if (state != ParseState::need_more) break;
  }
  return state;
}

}  // namespace

TEST_CASE("CONNECT host:port with headers, and bytes after the head kept") {
  const std::string input =
      "CONNECT registry.npmjs.org:443 HTTP/1.1\r\nHost: registry.npmjs.org:443\r\nUser-Agent:  npm/11 \r\n"
      "Proxy-Connection: keep-alive\r\n\r\n\x16\x03\x01";
  auto reader = read_all(input);
  REQUIRE(reader.state() == ParseState::complete);
  const ProxyRequest& r = reader.request();
  CHECK(r.protocol == ProxyProtocol::http_connect);
  CHECK(r.host.name == "registry.npmjs.org");
  CHECK(r.port == 443);
  CHECK(r.version == "HTTP/1.1");
  REQUIRE(r.headers.size() == 3);
  CHECK(r.headers[1] == HttpHeader{"User-Agent", "npm/11"});
  CHECK(reader.remainder() == "\x16\x03\x01");
  CHECK(read_bytewise(input) == ParseState::complete);
}

TEST_CASE("CONNECT to literals, and a head without headers") {
  auto v4 = read_all("CONNECT 10.0.0.1:8443 HTTP/1.0\r\n\r\n");
  REQUIRE(v4.state() == ParseState::complete);
  CHECK(v4.request().host.to_string() == "10.0.0.1");
  auto v6 = read_all("CONNECT [2001:db8::1]:443 HTTP/1.1\r\n\r\n");
  REQUIRE(v6.state() == ParseState::complete);
  CHECK(v6.request().host.to_string() == "[2001:db8::1]");
  CHECK(v6.request().port == 443);
  CHECK(v6.remainder().empty());
}

TEST_CASE("absolute-URI plain HTTP becomes an origin-form request for the origin") {
  auto reader = read_all(
      "GET http://Example.com:8080/a/b?c=d HTTP/1.1\r\nHost: wrong.test\r\nAccept: */*\r\n"
      "Connection: keep-alive, X-Hop\r\nX-Hop: 1\r\nProxy-Authorization: Basic eA==\r\n"
      "Proxy-Connection: keep-alive\r\nKeep-Alive: 5\r\n\r\nbody");
  REQUIRE(reader.state() == ParseState::complete);
  const ProxyRequest& r = reader.request();
  CHECK(r.protocol == ProxyProtocol::http_forward);
  CHECK(r.host.name == "example.com");
  CHECK(r.port == 8080);
  CHECK(r.target == "/a/b?c=d");
  CHECK(reader.remainder() == "body");
  CHECK(origin_form_head(r) ==
        "GET /a/b?c=d HTTP/1.1\r\nHost: example.com:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n");

  struct Case {
    std::string uri;
    std::string host;
    std::uint16_t port;
    std::string target;
  };
  for (const Case& c : std::vector<Case>{{"http://example.com", "example.com", 80, "/"},
                                         {"HTTP://example.com/", "example.com", 80, "/"},
                                         {"http://example.com?q", "example.com", 80, "/?q"},
                                         {"http://example.com#frag", "example.com", 80, "/"},
                                         {"http://[::1]:81/x", "[::1]", 81, "/x"},
                                         {"http://10.1.2.3/x", "10.1.2.3", 80, "/x"}}) {
    CAPTURE(c.uri);
    auto parsed = read_all("POST " + c.uri + " HTTP/1.1\r\n\r\n");
    REQUIRE(parsed.state() == ParseState::complete);
    CHECK(parsed.request().host.to_string() == c.host);
    CHECK(parsed.request().port == c.port);
    CHECK(parsed.request().target == c.target);
  }
  CHECK(origin_form_head(read_all("GET http://example.com/ HTTP/1.0\r\n\r\n").request()) ==
        "GET / HTTP/1.0\r\nHost: example.com\r\nConnection: close\r\n\r\n");
}

TEST_CASE("malformed requests are refused with a status and a reason") {
  struct Case {
    std::string input;
    int status;
  };
  const std::vector<Case> cases = {
      {"CONNECT registry.npmjs.org HTTP/1.1\r\n\r\n", 400},         // no port
      {"CONNECT registry.npmjs.org: HTTP/1.1\r\n\r\n", 400},
      {"CONNECT registry.npmjs.org:0 HTTP/1.1\r\n\r\n", 400},
      {"CONNECT registry.npmjs.org:65536 HTTP/1.1\r\n\r\n", 400},
      {"CONNECT registry.npmjs.org:44x HTTP/1.1\r\n\r\n", 400},
      {"CONNECT ::1:443 HTTP/1.1\r\n\r\n", 400},                     // unbracketed IPv6
      {"CONNECT [::1:443 HTTP/1.1\r\n\r\n", 400},
      {"CONNECT [::1]x:443 HTTP/1.1\r\n\r\n", 400},
      {"CONNECT user@host:443 HTTP/1.1\r\n\r\n", 400},
      {"CONNECT https://host:443 HTTP/1.1\r\n\r\n", 400},
      {"CONNECT 127.1:443 HTTP/1.1\r\n\r\n", 400},                   // ambiguous shorthand
      {"CONNECT :443 HTTP/1.1\r\n\r\n", 400},
      {"CONNECT host:443 HTTP/2\r\n\r\n", 400},
      {"CONNECT  host:443 HTTP/1.1\r\n\r\n", 400},                   // two spaces
      {"CONNECT host:443\r\n\r\n", 400},
      {"CONNECT host:443 HTTP/1.1 extra\r\n\r\n", 400},
      {"GET /relative HTTP/1.1\r\n\r\n", 400},
      {"GET https://host/ HTTP/1.1\r\n\r\n", 501},
      {"GET ftp://host/ HTTP/1.1\r\n\r\n", 501},
      {"GET http://user:pw@host/ HTTP/1.1\r\n\r\n", 400},
      {"GET http://host:99999/ HTTP/1.1\r\n\r\n", 400},
      {"GET http:///path HTTP/1.1\r\n\r\n", 400},
      {"G(T http://host/ HTTP/1.1\r\n\r\n", 400},                    // method not a token
      {"GET http://ho\x01st/ HTTP/1.1\r\n\r\n", 400},
      {"\r\nCONNECT host:443 HTTP/1.1\r\n\r\n", 400},
      {"CONNECT host:443 HTTP/1.1\nHost: x\r\n\r\n", 400},           // bare LF
      {"CONNECT host:443 HTTP/1.1\r\nHost: x\rY\r\n\r\n", 400},      // bare CR
      {"CONNECT host:443 HTTP/1.1\r\nNo colon\r\n\r\n", 400},
      {"CONNECT host:443 HTTP/1.1\r\nBad Name: x\r\n\r\n", 400},
      {"CONNECT host:443 HTTP/1.1\r\n: empty name\r\n\r\n", 400},
      {"CONNECT host:443 HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", 400},
      {std::string("CONNECT host:443 HTTP/1.1\r\nA: b\0c\r\n\r\n", 37), 400},  // NUL in a value
  };
  for (const Case& c : cases) {
    CAPTURE(c.input);
    auto reader = read_all(c.input);
    REQUIRE(reader.state() == ParseState::invalid);
    CHECK(reader.error().code == c.status);
    CHECK_FALSE(reader.error().reason.empty());
    CHECK(read_bytewise(c.input) == ParseState::invalid);
  }
}

TEST_CASE("bounds: request line, header block and header count") {
  const std::string long_host = std::string(60, 'a') + "." + std::string(60, 'b') + ".test";
  SECTION("a request line of exactly the limit is read; one byte more is 414, before the line ends") {
    RequestLimits limits;
    limits.max_request_line = 64;
    const std::string prefix = "GET http://h/";
    const std::string suffix = " HTTP/1.1";
    const std::string path(limits.max_request_line - prefix.size() - suffix.size(), 'p');
    CHECK(read_all(prefix + path + suffix + "\r\n\r\n", limits).state() == ParseState::complete);
    CHECK(read_all(prefix + path + "p" + suffix + "\r\n\r\n", limits).error().code == 414);
    // Without any line end, the reader gives up as soon as the limit is passed.
    auto endless = read_all(std::string(limits.max_request_line + 2, 'G'), limits);
    CHECK(endless.error().code == 414);
    CHECK(read_all(std::string(limits.max_request_line + 1, 'G'), limits).state() == ParseState::need_more);
  }
  SECTION("the default limit is 8 KiB") {
    CHECK(read_all("GET http://h/" + std::string(9000, 'p') + " HTTP/1.1\r\n\r\n").error().code == 414);
    CHECK(read_all(std::string(8 * 1024 + 2, 'x')).error().code == 414);
    CHECK(read_bytewise(std::string(100 * 1024, 'x')) == ParseState::invalid);
  }
  SECTION("header block over 32 KiB is 431, also while it is still arriving") {
    std::string head = "CONNECT " + long_host + ":443 HTTP/1.1\r\n";
    const std::string field = "X-Big: " + std::string(1000, 'v') + "\r\n";
    std::string fits = head;
    for (int i = 0; i < 32; ++i) fits += field;  // 32 * 1009 bytes < 32 KiB
    CHECK(read_all(fits + "\r\n").state() == ParseState::complete);
    std::string over = fits + field + field + field;
    CHECK(read_all(over + "\r\n").error().code == 431);
    CHECK(read_all(over).error().code == 431);  // no blank line yet: refused anyway
    CHECK(read_bytewise(head + std::string(64 * 1024, 'h')) == ParseState::invalid);
  }
  SECTION("header bomb: more than 100 fields is 431") {
    std::string head = "CONNECT host.test:443 HTTP/1.1\r\n";
    for (int i = 0; i < 100; ++i) head += "A: b\r\n";
    CHECK(read_all(head + "\r\n").state() == ParseState::complete);
    CHECK(read_all(head + "A: b\r\n\r\n").error().code == 431);
  }
  SECTION("a header line split across reads at every position parses the same") {
    const std::string input = "CONNECT host.test:443 HTTP/1.1\r\nA: b\r\nCc: dd\r\n\r\nrest";
    for (std::size_t cut = 1; cut < input.size(); ++cut) {
      HttpRequestReader reader;
      reader.feed(std::string_view(input).substr(0, cut));
      reader.feed(std::string_view(input).substr(cut));
      CAPTURE(cut);
      REQUIRE(reader.state() == ParseState::complete);
      CHECK(reader.request().headers.size() == 2);
      CHECK(reader.remainder() == "rest");
    }
  }
}

TEST_CASE("http_response is a complete one-line response") {
  const std::string r = http_response(403, "pmg: evil.test:443 matches no allow_outbound entry\r\nX-Injected: 1");
  CHECK(r.starts_with("HTTP/1.1 403 Forbidden\r\n"));
  CHECK(r.find("Connection: close\r\n") != std::string::npos);
  const std::string body = r.substr(r.find("\r\n\r\n") + 4);
  CHECK(body == "pmg: evil.test:443 matches no allow_outbound entry??X-Injected: 1\n");
  CHECK(r.find("Content-Length: " + std::to_string(body.size()) + "\r\n") != std::string::npos);
}

TEST_CASE("SOCKS5 greeting and CONNECT requests") {
  using namespace std::string_literals;
  SECTION("greeting") {
    CHECK(parse_socks5_greeting("\x05"s).state == ParseState::need_more);
    CHECK(parse_socks5_greeting("\x05\x02\x00"s).state == ParseState::need_more);
    auto g = parse_socks5_greeting("\x05\x02\x02\x00"s);
    REQUIRE(g.state == ParseState::complete);
    CHECK(g.value.offers_no_authentication);
    CHECK(g.size == 4);
    CHECK_FALSE(parse_socks5_greeting("\x05\x01\x02"s).value.offers_no_authentication);
    CHECK(parse_socks5_greeting("\x04\x01\x00"s).state == ParseState::invalid);
    CHECK(parse_socks5_greeting("\x05\x00"s).state == ParseState::invalid);
  }
  SECTION("domain, IPv4 and IPv6 destinations") {
    auto d = parse_socks5_request("\x05\x01\x00\x03\x12registry.npmjs.org\x01\xbbXY"s);
    REQUIRE(d.state == ParseState::complete);
    CHECK(d.value.protocol == ProxyProtocol::socks5);
    CHECK(d.value.host.name == "registry.npmjs.org");
    CHECK(d.value.port == 443);
    CHECK(d.size == 4 + 1 + 18 + 2);
    auto v4 = parse_socks5_request("\x05\x01\x00\x01\x7f\x00\x00\x01\x1f\x90"s);
    REQUIRE(v4.state == ParseState::complete);
    CHECK(v4.value.host.to_string() == "127.0.0.1");
    CHECK(v4.value.port == 8080);
    auto v6 = parse_socks5_request("\x05\x01\x00\x04"s + std::string(15, '\0') + "\x01\x00\x50"s);
    REQUIRE(v6.state == ParseState::complete);
    CHECK(v6.value.host.to_string() == "[::1]");
    auto v6name = parse_socks5_request("\x05\x01\x00\x03\x03::1\x00\x50"s);
    REQUIRE(v6name.state == ParseState::complete);
    CHECK(v6name.value.host.to_string() == "[::1]");
  }
  SECTION("incomplete and refused requests") {
    CHECK(parse_socks5_request("\x05\x01\x00\x03\x12registry"s).state == ParseState::need_more);
    CHECK(parse_socks5_request("\x05\x02\x00\x01\x7f\x00\x00\x01\x1f\x90"s).error.code ==
          socks5_reply_code::command_not_supported);  // BIND
    CHECK(parse_socks5_request("\x05\x01\x00\x09"s).error.code == socks5_reply_code::address_type_not_supported);
    CHECK(parse_socks5_request("\x05\x01\x00\x03\x00\x00\x50"s).state == ParseState::invalid);  // empty name
    CHECK(parse_socks5_request("\x05\x01\x00\x03\x05" "a b c\x00\x50"s).state == ParseState::invalid);
    CHECK(parse_socks5_request("\x05\x01\x00\x01\x01\x02\x03\x04\x00\x00"s).state == ParseState::invalid);  // port 0
    CHECK(parse_socks5_request("\x05\x01\x01\x01\x01\x02\x03\x04\x00\x50"s).state == ParseState::invalid);
  }
  CHECK(socks5_reply(socks5_reply_code::not_allowed) == "\x05\x02\x00\x01\x00\x00\x00\x00\x00\x00"s);
}
