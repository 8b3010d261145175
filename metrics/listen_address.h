// The address of the metrics endpoint (--metrics-listen HOST:PORT).
//
// HOST is an IP address: IPv4 ("127.0.0.1", "0.0.0.0" for every interface)
// or IPv6 in brackets ("[::1]"); no host names (the daemon must not depend
// on name resolution to start). PORT is 0-65535; 0 lets the kernel pick.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/expected.h"

namespace qdcache::metrics {

struct ListenAddress {
  std::string host;  // as given: "127.0.0.1" or "[::1]"
  std::uint16_t port = 0;
  bool ipv6 = false;
};

// INVALID_ARGUMENT saying what is wrong (without the setting's name).
[[nodiscard]] Expected<ListenAddress> ParseListenAddress(std::string_view text);

}  // namespace qdcache::metrics
