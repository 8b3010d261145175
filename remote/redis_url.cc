#include "remote/redis_url.h"

#include <cctype>
#include <charconv>

namespace qdcache::remote {
namespace {

constexpr std::string_view kStandaloneScheme = "redis://";
constexpr std::string_view kClusterScheme = "redis-cluster://";

bool ValidHostChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '-' || c == '_';
}

Expected<Endpoint> ParseEndpoint(std::string_view text) {
  Endpoint e;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos) return InvalidArgument("unclosed '[' in host");
    e.host = std::string(text.substr(1, close - 1));
    for (char c : e.host) {
      if (!(std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.')) {
        return InvalidArgument("malformed IPv6 address");
      }
    }
    std::string_view rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return InvalidArgument("expected ':' after ']'");
      port = rest.substr(1);
      if (port.empty()) return InvalidArgument("empty port");
    }
  } else {
    const std::size_t colon = text.find(':');
    e.host = std::string(text.substr(0, colon));
    if (colon != std::string_view::npos) {
      port = text.substr(colon + 1);
      if (port.empty()) return InvalidArgument("empty port");
    }
    for (char c : e.host) {
      if (!ValidHostChar(c)) return InvalidArgument("invalid character in host");
    }
  }
  if (e.host.empty()) return InvalidArgument("empty host");
  if (!port.empty()) {
    int value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value < 1 || value > 65535) {
      return InvalidArgument("port must be a number from 1 to 65535");
    }
    e.port = value;
  }
  return e;
}

Expected<std::string> ParsePrefix(std::string_view text) {
  if (text.empty()) return std::string("qdcache:");
  if (text.size() > 128) return InvalidArgument("prefix longer than 128 characters");
  for (char c : text) {
    if (c <= ' ' || c > '~' || c == '?' || c == '#') {
      return InvalidArgument("prefix may hold visible ASCII characters only (no '?', '#')");
    }
  }
  std::string prefix(text);
  if (prefix.back() != ':') prefix += ':';
  return prefix;
}

}  // namespace

std::string Endpoint::ToString() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string RemoteUrl::ToString() const {
  std::string out(cluster ? kClusterScheme : kStandaloneScheme);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0) out += ',';
    out += nodes[i].ToString();
  }
  return out + "/" + prefix;
}

Expected<RemoteUrl> ParseRemoteUrl(std::string_view url) {
  RemoteUrl out;
  std::string_view rest;
  if (url.starts_with(kStandaloneScheme)) {
    rest = url.substr(kStandaloneScheme.size());
  } else if (url.starts_with(kClusterScheme)) {
    out.cluster = true;
    rest = url.substr(kClusterScheme.size());
  } else {
    return InvalidArgument("expected redis://HOST:PORT[/PREFIX] or redis-cluster://HOST:PORT[,HOST:PORT...][/PREFIX]");
  }
  const std::size_t slash = rest.find('/');
  const std::string_view authority = rest.substr(0, slash);
  if (authority.find('@') != std::string_view::npos) {
    return InvalidArgument(
        "credentials are not accepted in the URL: use --remote-password-file or "
        "QDCACHED_REMOTE_PASSWORD");
  }
  if (authority.empty()) return InvalidArgument("no HOST:PORT in the URL");
  std::size_t begin = 0;
  while (begin <= authority.size()) {
    const std::size_t comma = authority.find(',', begin);
    const std::string_view part = authority.substr(begin, comma - begin);
    Expected<Endpoint> e = ParseEndpoint(part);
    if (!e.ok()) return e.status().WithContext("\"" + std::string(part) + "\"");
    out.nodes.push_back(std::move(e).value());
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  if (!out.cluster && out.nodes.size() != 1) {
    return InvalidArgument("redis:// takes one HOST:PORT (several seeds need redis-cluster://)");
  }
  Expected<std::string> prefix =
      ParsePrefix(slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1));
  if (!prefix.ok()) return prefix.status();
  out.prefix = std::move(prefix).value();
  return out;
}

}  // namespace qdcache::remote
