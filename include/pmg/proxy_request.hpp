#pragma once
// The first request a client sends the filtering proxy, parsed with a bound on every length.
// Pure: bytes in, a request or a refusal out. Only what the proxy needs is parsed: the request
// line and header fields of an HTTP proxy request (CONNECT host:port, or an absolute-URI request
// for plain HTTP), and the SOCKS5 greeting and CONNECT request. Bodies are never interpreted.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pmg/outbound_rules.hpp"

namespace pmg {

struct RequestLimits {
  std::size_t max_request_line = 8 * 1024;   // without its CRLF
  std::size_t max_header_block = 32 * 1024;  // the header lines, CRLFs included
  std::size_t max_headers = 100;
};

enum class ProxyProtocol { http_connect, http_forward, socks5 };

struct HttpHeader {
  std::string name;
  std::string value;
  bool operator==(const HttpHeader&) const = default;
};

struct ProxyRequest {
  ProxyProtocol protocol = ProxyProtocol::http_connect;
  Host host;
  std::uint16_t port = 0;
  // HTTP only:
  std::string method;
  std::string target;   // http_forward: origin-form ("/path?query"); http_connect: "host:port"
  std::string version;  // "HTTP/1.1" or "HTTP/1.0"
  std::vector<HttpHeader> headers;
};

enum class ParseState { need_more, complete, invalid };

// A refusal of malformed input: the HTTP status to answer with (400, 414, 431, 501) or, for
// SOCKS5, the reply code (1 general failure, 7 command not supported, 8 address type not supported).
struct RequestError {
  int code = 0;
  std::string reason;  // one line
};

template <class T>
struct Parsed {
  ParseState state = ParseState::need_more;
  T value{};
  RequestError error;
  std::size_t size = 0;  // bytes the message took, when complete
};

namespace detail {

inline bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}
inline bool is_token(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_token_char); }
inline bool is_visible(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}
inline bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// "host:port" or "[v6]:port"; the port is required unless `default_port` is given.
inline std::optional<std::pair<Host, std::uint16_t>> parse_authority(std::string_view authority,
                                                                     std::optional<std::uint16_t> default_port) {
  std::string_view host = authority;
  std::string_view port;
  bool has_port = false;
  if (authority.starts_with('[')) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = authority.substr(0, close + 1);
    const std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port = rest.substr(1);
      has_port = true;
    }
  } else if (const std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    has_port = true;
  }
  auto parsed_host = parse_host(host);
  if (!parsed_host) return std::nullopt;
  std::optional<std::uint16_t> parsed_port = has_port ? parse_port(port) : default_port;
  if (!parsed_port) return std::nullopt;
  return std::pair{std::move(*parsed_host), *parsed_port};
}

inline RequestError bad_request(std::string reason) { return {400, std::move(reason)}; }

// The complete head (request line, header lines, blank line) of an HTTP proxy request.
inline Parsed<ProxyRequest> parse_http_head(std::string_view head, std::size_t line_end, const RequestLimits& limits) {
  Parsed<ProxyRequest> out;
  out.state = ParseState::invalid;
  const std::string_view line = head.substr(0, line_end);
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    out.error = bad_request("the request line is not 'METHOD target HTTP/1.1'");
    return out;
  }
  ProxyRequest& r = out.value;
  r.method = std::string(line.substr(0, sp1));
  r.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
  r.version = std::string(line.substr(sp2 + 1));
  if (!is_token(r.method)) {
    out.error = bad_request("the method is not a token");
    return out;
  }
  if (r.version != "HTTP/1.1" && r.version != "HTTP/1.0") {
    out.error = bad_request("the HTTP version must be HTTP/1.1 or HTTP/1.0");
    return out;
  }
  if (r.target.empty() || !is_visible(r.target)) {
    out.error = bad_request("the request target is empty or contains spaces or control characters");
    return out;
  }

  if (r.method == "CONNECT") {
    r.protocol = ProxyProtocol::http_connect;
    auto authority = parse_authority(r.target, std::nullopt);
    if (!authority) {
      out.error = bad_request("CONNECT needs host:port with a DNS name, IPv4 address or [IPv6] address "
                              "and a port from 1 to 65535");
      return out;
    }
    std::tie(r.host, r.port) = std::move(*authority);
  } else {
    r.protocol = ProxyProtocol::http_forward;
    constexpr std::string_view scheme = "http://";
    if (!equals_ignoring_case(std::string_view(r.target).substr(0, scheme.size()), scheme)) {
      out.error = r.target.starts_with('/')
                      ? RequestError{400, "send the absolute URI (http://host/path) to a proxy"}
                      : RequestError{501, "only http:// URIs are forwarded; use CONNECT for https"};
      return out;
    }
    const std::string_view rest = std::string_view(r.target).substr(scheme.size());
    const std::size_t end = rest.find_first_of("/?#");
    const std::string_view authority_text = rest.substr(0, end);
    if (authority_text.find('@') != std::string_view::npos) {
      out.error = bad_request("user information in the URI is not accepted");
      return out;
    }
    auto authority = parse_authority(authority_text, std::uint16_t{80});
    if (!authority) {
      out.error = bad_request("the URI's host is not a DNS name, IPv4 address or [IPv6] address, or its port "
                              "is not 1-65535");
      return out;
    }
    std::tie(r.host, r.port) = std::move(*authority);
    std::string_view path = end == std::string_view::npos ? std::string_view() : rest.substr(end);
    if (path.starts_with('#')) path = {};
    r.target = path.starts_with('/') ? std::string(path) : "/" + std::string(path);
  }

  // Header lines between the request line and the blank line.
  std::size_t pos = line_end + 2;
  const std::size_t block_end = head.size() - 2;  // the final CRLF
  while (pos < block_end) {
    const std::size_t eol = head.find("\r\n", pos);
    const std::string_view field = head.substr(pos, eol - pos);
    pos = eol + 2;
    if (r.headers.size() == limits.max_headers) {
      out.error = {431, "more than " + std::to_string(limits.max_headers) + " header fields"};
      return out;
    }
    const std::size_t colon = field.find(':');
    if (colon == std::string_view::npos || !is_token(field.substr(0, colon))) {
      out.error = bad_request("a header line is not 'Name: value' (folded lines are not accepted)");
      return out;
    }
    std::string_view value = field.substr(colon + 1);
    if (std::any_of(value.begin(), value.end(),
                    [](char c) { return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7f; })) {
      out.error = bad_request("a header value contains a control character");
      return out;
    }
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    r.headers.push_back({std::string(field.substr(0, colon)), std::string(value)});
  }
  out.state = ParseState::complete;
  out.size = head.size();
  return out;
}

}  // namespace detail

// Reads an HTTP proxy request head as bytes arrive. Each byte is scanned once, so a client that
// sends one byte at a time costs linear time, and the buffer never exceeds the limits (plus the
// last read). Bytes after the head (a request body, an early TLS ClientHello) are kept for the
// proxy to forward.
class HttpRequestReader {
 public:
  explicit HttpRequestReader(RequestLimits limits = {}) : limits_(limits) {}

  ParseState feed(std::string_view bytes) {
    if (result_.state == ParseState::invalid) return result_.state;
    buffer_.append(bytes);
    if (result_.state == ParseState::complete) return result_.state;  // more of the remainder
    if (line_end_ == std::string::npos) {
      line_end_ = find_crlf(buffer_, scanned_);
      if (line_end_ == std::string::npos) {
        scanned_ = buffer_.size();
        if (buffer_.size() > limits_.max_request_line + 1) return fail({414, too_long_line()});
        return ParseState::need_more;
      }
      if (line_end_ > limits_.max_request_line) return fail({414, too_long_line()});
      if (line_end_ == 0) return fail(detail::bad_request("the request starts with an empty line"));
      scanned_ = line_end_ + 2;
    }
    // The blank line: a CRLF right after the request line, or a CRLFCRLF later.
    const std::size_t block_start = line_end_ + 2;
    std::size_t from = scanned_ >= block_start + 2 ? scanned_ - 2 : block_start;
    std::size_t head_end = std::string::npos;
    if (buffer_.size() >= block_start + 2 && buffer_.compare(block_start, 2, "\r\n") == 0) {
      head_end = block_start + 2;
    } else {
      for (std::size_t at = find_crlf(buffer_, from); at != std::string::npos; at = buffer_.find("\r\n", at + 1)) {
        if (at >= block_start + 2 && buffer_.compare(at - 2, 2, "\r\n") == 0) {
          head_end = at + 2;
          break;
        }
      }
    }
    if (head_end == std::string::npos) {
      scanned_ = buffer_.size();
      if (buffer_.size() - block_start > limits_.max_header_block + 2) return fail(too_large_block());
      return ParseState::need_more;
    }
    if (head_end - block_start - 2 > limits_.max_header_block) return fail(too_large_block());
    const std::string_view head = std::string_view(buffer_).substr(0, head_end);
    // A bare CR or LF inside the head would let two parsers disagree about where lines end.
    for (std::size_t i = 0; i < head.size(); ++i) {
      const bool crlf_cr = head[i] == '\r' && i + 1 < head.size() && head[i + 1] == '\n';
      const bool crlf_lf = head[i] == '\n' && i > 0 && head[i - 1] == '\r';
      if ((head[i] == '\r' && !crlf_cr) || (head[i] == '\n' && !crlf_lf))
        return fail(detail::bad_request("a line ends with a bare CR or LF; end lines with CRLF"));
    }
    result_ = detail::parse_http_head(head, line_end_, limits_);
    return result_.state;
  }

  ParseState state() const { return result_.state; }
  const ProxyRequest& request() const { return result_.value; }
  const RequestError& error() const { return result_.error; }
  // Bytes received after the head; valid once complete.
  std::string_view remainder() const { return std::string_view(buffer_).substr(result_.size); }

 private:
  // A CRLF that may have begun in the previous read: search from one byte before `from`.
  static std::size_t find_crlf(const std::string& s, std::size_t from) { return s.find("\r\n", from > 0 ? from - 1 : 0); }
  std::string too_long_line() const {
    return "the request line is longer than " + std::to_string(limits_.max_request_line) + " bytes";
  }
  RequestError too_large_block() const {
    return {431, "the header block is larger than " + std::to_string(limits_.max_header_block) + " bytes"};
  }
  ParseState fail(RequestError error) {
    result_.state = ParseState::invalid;
    result_.error = std::move(error);
    return result_.state;
  }

  RequestLimits limits_;
  std::string buffer_;
  std::size_t scanned_ = 0;  // bytes already searched
  std::size_t line_end_ = std::string::npos;
  Parsed<ProxyRequest> result_;
};

// The head to send the origin server for a forwarded plain-HTTP request: origin-form request
// line, Host from the URI (a proxy must replace the client's), hop-by-hop and proxy fields
// dropped, and "Connection: close": the proxy forwards one request per connection, so a
// keep-alive client never sends a second request for another host down this one.
inline std::string origin_form_head(const ProxyRequest& request) {
  std::vector<std::string> drop = {"host", "connection", "proxy-connection", "proxy-authorization", "keep-alive"};
  for (const HttpHeader& h : request.headers) {
    if (!detail::equals_ignoring_case(h.name, "connection")) continue;
    std::string_view tokens = h.value;
    while (!tokens.empty()) {
      const std::size_t comma = tokens.find(',');
      std::string_view token = tokens.substr(0, comma);
      while (!token.empty() && (token.front() == ' ' || token.front() == '\t')) token.remove_prefix(1);
      while (!token.empty() && (token.back() == ' ' || token.back() == '\t')) token.remove_suffix(1);
      std::string lower(token);
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (!lower.empty()) drop.push_back(std::move(lower));
      tokens = comma == std::string_view::npos ? std::string_view() : tokens.substr(comma + 1);
    }
  }
  std::string head = request.method + " " + request.target + " " + request.version + "\r\n";
  head += "Host: " + request.host.to_string();
  if (request.port != 80) head += ":" + std::to_string(request.port);
  head += "\r\n";
  for (const HttpHeader& h : request.headers) {
    const bool dropped = std::any_of(drop.begin(), drop.end(),
                                     [&](const std::string& d) { return detail::equals_ignoring_case(h.name, d); });
    if (!dropped) head += h.name + ": " + h.value + "\r\n";
  }
  head += "Connection: close\r\n\r\n";
  return head;
}

// A complete response with a one-line text body; `reason` is sanitised to one printable line.
inline std::string http_response(int status, std::string_view reason) {
  std::string_view phrase = "Error";
  switch (status) {
    case 200: phrase = "OK"; break;
    case 400: phrase = "Bad Request"; break;
    case 403: phrase = "Forbidden"; break;
    case 408: phrase = "Request Timeout"; break;
    case 414: phrase = "URI Too Long"; break;
    case 431: phrase = "Request Header Fields Too Large"; break;
    case 501: phrase = "Not Implemented"; break;
    case 502: phrase = "Bad Gateway"; break;
    case 503: phrase = "Service Unavailable"; break;
    case 504: phrase = "Gateway Timeout"; break;
  }
  std::string body;
  for (const char c : reason) body += (c >= 0x20 && c < 0x7f) ? c : '?';
  body += '\n';
  return "HTTP/1.1 " + std::to_string(status) + " " + std::string(phrase) +
         "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body;
}

// The answer to a CONNECT whose tunnel is open.
inline constexpr std::string_view http_connect_established = "HTTP/1.1 200 Connection established\r\n\r\n";

// ---------------------------------------------------------------------------------------------
// SOCKS5 (RFC 1928), CONNECT only, without authentication.

inline constexpr unsigned char socks5_version = 0x05;

namespace socks5_reply_code {
inline constexpr unsigned char succeeded = 0x00;
inline constexpr unsigned char general_failure = 0x01;
inline constexpr unsigned char not_allowed = 0x02;
inline constexpr unsigned char host_unreachable = 0x04;
inline constexpr unsigned char command_not_supported = 0x07;
inline constexpr unsigned char address_type_not_supported = 0x08;
}  // namespace socks5_reply_code

// The client's first message: version and the authentication methods it offers.
struct Socks5Greeting {
  bool offers_no_authentication = false;
};

inline Parsed<Socks5Greeting> parse_socks5_greeting(std::string_view bytes) {
  Parsed<Socks5Greeting> out;
  if (bytes.size() < 2) return out;
  if (static_cast<unsigned char>(bytes[0]) != socks5_version || bytes[1] == 0) {
    out.state = ParseState::invalid;
    out.error = {socks5_reply_code::general_failure, "not a SOCKS5 greeting"};
    return out;
  }
  const std::size_t size = 2 + static_cast<unsigned char>(bytes[1]);
  if (bytes.size() < size) return out;
  const std::string_view methods = bytes.substr(2, size - 2);
  out.value.offers_no_authentication = methods.find('\0') != std::string_view::npos;
  out.state = ParseState::complete;
  out.size = size;
  return out;
}

// The server's choice of method: 0x00 (none) or 0xFF (nothing acceptable).
inline std::string socks5_method_choice(bool accepted) {
  return {static_cast<char>(socks5_version), static_cast<char>(accepted ? 0x00 : 0xFF)};
}

// The CONNECT request that follows the greeting.
inline Parsed<ProxyRequest> parse_socks5_request(std::string_view bytes) {
  Parsed<ProxyRequest> out;
  const auto fail = [&](unsigned char code, std::string reason) {
    out.state = ParseState::invalid;
    out.error = {code, std::move(reason)};
    return out;
  };
  if (bytes.size() < 4) return out;
  if (static_cast<unsigned char>(bytes[0]) != socks5_version || bytes[2] != 0)
    return fail(socks5_reply_code::general_failure, "not a SOCKS5 request");
  if (bytes[1] != 0x01) return fail(socks5_reply_code::command_not_supported, "only the SOCKS5 CONNECT command is served");
  const unsigned char type = static_cast<unsigned char>(bytes[3]);
  std::size_t address_size = 0;
  if (type == 0x01) address_size = 4;
  else if (type == 0x04) address_size = 16;
  else if (type == 0x03) {
    if (bytes.size() < 5) return out;
    address_size = 1 + static_cast<unsigned char>(bytes[4]);
  } else {
    return fail(socks5_reply_code::address_type_not_supported, "unknown SOCKS5 address type");
  }
  const std::size_t size = 4 + address_size + 2;
  if (bytes.size() < size) return out;
  ProxyRequest& r = out.value;
  r.protocol = ProxyProtocol::socks5;
  const auto* raw = reinterpret_cast<const unsigned char*>(bytes.data());
  if (type == 0x01) {
    r.host.address = IpAddress(boost::asio::ip::address_v4({raw[4], raw[5], raw[6], raw[7]}));
  } else if (type == 0x04) {
    boost::asio::ip::address_v6::bytes_type b{};
    std::copy(raw + 4, raw + 20, b.begin());
    r.host.address = canonical_address(IpAddress(boost::asio::ip::address_v6(b)));
  } else {
    std::string name(bytes.substr(5, address_size - 1));
    // Some clients send an IPv6 literal as a "domain name" without brackets.
    if (name.find(':') != std::string::npos) name = "[" + name + "]";
    auto host = parse_host(name);
    if (!host) return fail(socks5_reply_code::general_failure, "the SOCKS5 domain name is not a valid host name");
    r.host = std::move(*host);
  }
  r.port = static_cast<std::uint16_t>(raw[size - 2] << 8 | raw[size - 1]);
  if (r.port == 0) return fail(socks5_reply_code::general_failure, "port 0 is not a destination");
  out.state = ParseState::complete;
  out.size = size;
  return out;
}

// A reply with the bound address left as 0.0.0.0:0 (clients ignore it for CONNECT, and the
// host's address is none of the sandbox's business).
inline std::string socks5_reply(unsigned char code) {
  return std::string{static_cast<char>(socks5_version), static_cast<char>(code), 0, 0x01, 0, 0, 0, 0, 0, 0};
}

// "CONNECT", "GET (http)" or "SOCKS5": how the client asked, for the log.
inline std::string describe_protocol(const ProxyRequest& request) {
  switch (request.protocol) {
    case ProxyProtocol::http_connect: return "CONNECT";
    case ProxyProtocol::http_forward: return request.method + " (http)";
    case ProxyProtocol::socks5: return "SOCKS5";
  }
  return "?";
}

}  // namespace pmg
