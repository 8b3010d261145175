// The engine's counters (v1::Stats, the GetStats answer) as Prometheus
// metrics, read at scrape time: the numbers exist once, in the engine, and a
// scrape shows exactly what GetStats would. A stats reset (GetStats with
// reset) zeroes the counters among them; Prometheus reads that as a counter
// reset, as after a restart.
//
// Threads: Collect may be called concurrently (from the endpoint's threads);
// so is the stats function it was given.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <functional>
#include <vector>

#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::metrics {

// The metric families of one Stats snapshot (names in docs/operations.md,
// "Monitoring").
[[nodiscard]] std::vector<prometheus::MetricFamily> StatsFamilies(const v1::Stats& stats);

class StatsCollector final : public prometheus::Collectable {
 public:
  explicit StatsCollector(std::function<v1::Stats()> stats) : stats_(std::move(stats)) {}
  std::vector<prometheus::MetricFamily> Collect() const override { return StatsFamilies(stats_()); }

 private:
  const std::function<v1::Stats()> stats_;
};

}  // namespace qdcache::metrics
