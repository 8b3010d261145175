#include "metrics/daemon_metrics.h"

#include "metrics/stats_collector.h"

namespace qdcache::metrics {

DaemonMetrics::DaemonMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      requests_(*registry_),
      compiles_(*registry_) {}

Expected<std::unique_ptr<MetricsEndpoint>> DaemonMetrics::Serve(std::string_view listen,
                                                                std::function<v1::Stats()> stats) {
  return MetricsEndpoint::Start(listen,
                                {registry_, std::make_shared<StatsCollector>(std::move(stats))});
}

}  // namespace qdcache::metrics
