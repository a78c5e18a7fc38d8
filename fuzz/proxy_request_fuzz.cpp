// Fuzz target: the filtering proxy's request parsers (the first bytes a sandboxed, possibly
// hostile, client sends). The first input byte picks the protocol, chunking and limits; the rest
// is what the client sends.
// HTTP: the same bytes fed at once and in chunks must give the same outcome (state, request or
// error status, remainder); an accepted request has a canonical host, a port, token method and
// header names, and control-free values, and the head the proxy builds from it for the origin
// server (origin_form_head) has CRLF line ends only, exactly one Host field, no proxy
// credentials, and ends at its one blank line (no request smuggling or header injection).
// SOCKS5: a message is complete only with all its bytes (a shorter prefix needs more), and an
// accepted address round-trips through parse_host.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "pmg/proxy_request.hpp"

namespace {

using pmg::fuzz::invariant_failed;
using pmg::fuzz::printable;

bool same_request(const pmg::ProxyRequest& a, const pmg::ProxyRequest& b) {
  return a.protocol == b.protocol && a.host == b.host && a.port == b.port && a.method == b.method &&
         a.target == b.target && a.version == b.version && a.headers == b.headers;
}

void check_host(const pmg::Host& host, std::uint16_t port, std::string_view input) {
  if (port == 0) invariant_failed("a request was accepted with port 0", printable(input));
  const auto again = pmg::parse_host(host.to_string());
  if (!again || !(*again == host))
    invariant_failed("an accepted host does not round-trip through parse_host", printable(host.to_string()));
}

bool lines_are_crlf(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')) return false;
    if (text[i] == '\n' && (i == 0 || text[i - 1] != '\r')) return false;
  }
  return true;
}

void check_origin_head(const pmg::ProxyRequest& r, std::string_view input) {
  const std::string head = pmg::origin_form_head(r);
  const std::string what = "input: " + printable(input) + "\nhead:  " + printable(head);
  if (!lines_are_crlf(head)) invariant_failed("origin_form_head has a bare CR or LF", what);
  if (head.find("\r\n\r\n") != head.size() - 4) invariant_failed("origin_form_head has a blank line inside", what);
  if (head.find('\0') != std::string::npos) invariant_failed("origin_form_head contains NUL", what);
  if (!head.starts_with(r.method + " " + r.target + " " + r.version + "\r\n"))
    invariant_failed("origin_form_head's request line is not the request's", what);
  std::size_t hosts = 0;
  for (std::size_t pos = head.find("\r\n") + 2; pos < head.size() - 2;) {
    const std::size_t eol = head.find("\r\n", pos);
    const std::string_view line = std::string_view(head).substr(pos, eol - pos);
    std::string name(line.substr(0, line.find(':')));
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    if (name == "host") ++hosts;
    if (name == "proxy-authorization") invariant_failed("origin_form_head forwards the proxy credentials", what);
    pos = eol + 2;
  }
  if (hosts != 1) invariant_failed("origin_form_head does not have exactly one Host field", what);
}

void check_http_request(const pmg::ProxyRequest& r, const pmg::RequestLimits& limits, std::string_view input) {
  check_host(r.host, r.port, input);
  if (!pmg::detail::is_token(r.method) || (r.version != "HTTP/1.1" && r.version != "HTTP/1.0"))
    invariant_failed("an accepted request line is malformed", printable(input));
  if (r.headers.size() > limits.max_headers) invariant_failed("more headers than the limit", printable(input));
  for (const pmg::HttpHeader& h : r.headers) {
    if (!pmg::detail::is_token(h.name)) invariant_failed("a header name is not a token", printable(h.name));
    if (std::any_of(h.value.begin(), h.value.end(), [](char c) { return c == '\r' || c == '\n' || c == '\0'; }))
      invariant_failed("a header value holds CR, LF or NUL", printable(h.value));
  }
  if (r.protocol == pmg::ProxyProtocol::http_forward) {
    if (!r.target.starts_with('/') || !pmg::detail::is_visible(r.target))
      invariant_failed("a forwarded request's target is not origin-form", printable(r.target));
    check_origin_head(r, input);
  }
}

void check_response(int status, std::string_view reason) {
  const std::string response = pmg::http_response(status, reason);
  const std::size_t blank = response.find("\r\n\r\n");
  if (blank == std::string::npos) invariant_failed("http_response has no blank line", printable(response));
  if (!lines_are_crlf(response.substr(0, blank + 4)))
    invariant_failed("http_response's head has a bare CR or LF", printable(response));
  const std::string_view body = std::string_view(response).substr(blank + 4);
  if (body.find('\n') != body.size() - 1 || body.find('\r') != std::string_view::npos)
    invariant_failed("http_response's body is not one line", printable(response));
}

void fuzz_http(std::string_view input, std::size_t chunk, const pmg::RequestLimits& limits) {
  pmg::HttpRequestReader whole(limits);
  whole.feed(input);
  pmg::HttpRequestReader pieces(limits);
  for (std::size_t pos = 0; pos < input.size() && pieces.state() == pmg::ParseState::need_more; pos += chunk)
    pieces.feed(input.substr(pos, chunk));
  if (input.empty()) pieces.feed(input);
  if (whole.state() != pieces.state())
    invariant_failed("feeding in chunks changes the outcome", "chunk " + std::to_string(chunk) + ": " + printable(input));
  switch (whole.state()) {
    case pmg::ParseState::need_more: return;
    case pmg::ParseState::invalid:
      if (whole.error().code != pieces.error().code)
        invariant_failed("feeding in chunks changes the refusal",
                         std::to_string(whole.error().code) + " vs " + std::to_string(pieces.error().code) + ": " +
                             whole.error().reason + " / " + pieces.error().reason);
      if (whole.error().code < 400 || whole.error().code > 599 || whole.error().reason.empty())
        invariant_failed("a refusal has no HTTP error status or reason", whole.error().reason);
      check_response(whole.error().code, whole.error().reason);
      return;
    case pmg::ParseState::complete:
      if (!same_request(whole.request(), pieces.request()))
        invariant_failed("feeding in chunks changes the request", printable(input));
      if (!whole.remainder().starts_with(pieces.remainder()) || !input.ends_with(whole.remainder()))
        invariant_failed("the remainder is not the bytes after the head", printable(input));
      check_http_request(whole.request(), limits, input);
      return;
  }
}

void fuzz_socks5(std::string_view input) {
  const auto greeting = pmg::parse_socks5_greeting(input);
  if (greeting.state != pmg::ParseState::complete) return;
  if (greeting.size > input.size() || greeting.size < 2)
    invariant_failed("the greeting's size is outside the input", printable(input));
  if (greeting.size > 2 && pmg::parse_socks5_greeting(input.substr(0, greeting.size - 1)).state != pmg::ParseState::need_more)
    invariant_failed("a truncated greeting does not need more bytes", printable(input));
  const std::string_view rest = input.substr(greeting.size);
  const auto request = pmg::parse_socks5_request(rest);
  if (request.state == pmg::ParseState::invalid && request.error.reason.empty())
    invariant_failed("a SOCKS5 refusal has no reason", printable(input));
  if (request.state != pmg::ParseState::complete) return;
  if (request.size > rest.size()) invariant_failed("the request's size is outside the input", printable(input));
  if (pmg::parse_socks5_request(rest.substr(0, request.size - 1)).state != pmg::ParseState::need_more)
    invariant_failed("a truncated SOCKS5 request does not need more bytes", printable(input));
  check_host(request.value.host, request.value.port, input);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const unsigned mode = data[0];
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  if (mode & 1U) {
    fuzz_socks5(input);
    return 0;
  }
  // Small limits reach the length checks with inputs libFuzzer actually generates.
  const pmg::RequestLimits limits = (mode & 2U) ? pmg::RequestLimits{48, 160, 4} : pmg::RequestLimits{};
  fuzz_http(input, 1 + (mode >> 2), limits);
  return 0;
}
