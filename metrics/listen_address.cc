#include "metrics/listen_address.h"

#include <arpa/inet.h>

#include <charconv>

namespace qdcache::metrics {

Expected<ListenAddress> ParseListenAddress(std::string_view text) {
  const std::string usage =
      "expected HOST:PORT with HOST an IP address (127.0.0.1, 0.0.0.0, [::1]), got \"" +
      std::string(text) + "\"";
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return InvalidArgument(usage);
  ListenAddress a;
  a.host = std::string(text.substr(0, colon));
  const std::string_view port = text.substr(colon + 1);
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535) {
    return InvalidArgument("PORT must be a number from 0 to 65535; " + usage);
  }
  a.port = static_cast<std::uint16_t>(value);
  unsigned char buf[sizeof(in6_addr)];
  if (a.host.size() > 2 && a.host.front() == '[' && a.host.back() == ']') {
    a.ipv6 = true;
    if (::inet_pton(AF_INET6, a.host.substr(1, a.host.size() - 2).c_str(), buf) != 1) {
      return InvalidArgument(usage);
    }
  } else if (::inet_pton(AF_INET, a.host.c_str(), buf) != 1) {
    return InvalidArgument(usage);
  }
  return a;
}

}  // namespace qdcache::metrics
