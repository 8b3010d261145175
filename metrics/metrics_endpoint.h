// The HTTP endpoint Prometheus scrapes: GET /metrics on one address, in the
// Prometheus text format, unauthenticated (bind it to a trusted interface).
//
// Threads: the endpoint answers scrapes on threads of its own, calling the
// collectables' Collect() concurrently with everything else. Destroying the
// endpoint stops those threads; the collectables live as long as it does.
#pragma once

#include <prometheus/collectable.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace prometheus {
class Exposer;
}

namespace qdcache::metrics {

class MetricsEndpoint {
 public:
  // Listens on `listen` (HOST:PORT, listen_address.h; port 0: the kernel
  // picks one, see port()). INVALID_ARGUMENT for a malformed address,
  // UNAVAILABLE when it cannot be bound (in use, not a local address).
  [[nodiscard]] static Expected<std::unique_ptr<MetricsEndpoint>> Start(
      std::string_view listen, std::vector<std::shared_ptr<prometheus::Collectable>> collectables);
  ~MetricsEndpoint();
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  [[nodiscard]] int port() const { return port_; }
  // "http://HOST:PORT/metrics" with the port actually bound.
  [[nodiscard]] const std::string& url() const { return url_; }

 private:
  MetricsEndpoint() = default;

  std::vector<std::shared_ptr<prometheus::Collectable>> collectables_;
  std::unique_ptr<prometheus::Exposer> exposer_;  // after collectables_: stops first
  int port_ = 0;
  std::string url_;
};

}  // namespace qdcache::metrics
