// Everything the daemon measures for Prometheus (--metrics-listen), in one
// place: the request interceptor, compile durations, and the engine's
// counters read at scrape time. Metric names and labels: docs/operations.md,
// "Monitoring".
//
// Lifetime: create it before the engine and the grpc::Server that report to
// it, and destroy it after them. Threads: every method may be called
// concurrently.
#pragma once

#include <prometheus/registry.h>

#include <functional>
#include <memory>
#include <string_view>

#include "common/expected.h"
#include "metrics/compile_metrics.h"
#include "metrics/metrics_endpoint.h"
#include "metrics/request_metrics.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::metrics {

class DaemonMetrics {
 public:
  DaemonMetrics();

  [[nodiscard]] RequestMetrics& requests() { return requests_; }
  [[nodiscard]] CompileMetrics& compiles() { return compiles_; }

  // Serves these metrics and, read at each scrape, those of `stats` (the
  // GetStats answer) at `listen`. The endpoint calls `stats` from its own
  // threads until it is destroyed: destroy it before whatever `stats` reads.
  [[nodiscard]] Expected<std::unique_ptr<MetricsEndpoint>> Serve(std::string_view listen,
                                                                 std::function<v1::Stats()> stats);

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  RequestMetrics requests_;
  CompileMetrics compiles_;
};

}  // namespace qdcache::metrics
