// A scrape of a daemon's Prometheus endpoint (--metrics-listen), as
// Prometheus makes it: GET /metrics over loopback HTTP.
#pragma once

#include <string>

namespace qdcache::testing {

// GET http://IP:PORT/metrics (HTTP/1.0: the server closes when done). The
// body; throws std::runtime_error (which fails a test) unless the answer is 200.
std::string ScrapeMetrics(const std::string& address);

}  // namespace qdcache::testing
