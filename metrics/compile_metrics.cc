#include "metrics/compile_metrics.h"

#include <string>

namespace qdcache::metrics {
namespace {

// A small CPU kernel compiles in milliseconds; a large CUDA one in minutes.
const prometheus::Histogram::BucketBoundaries kCompileBuckets = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300};

}  // namespace

CompileMetrics::CompileMetrics(prometheus::Registry& registry)
    : durations_(prometheus::BuildHistogram()
                     .Name("qdcache_compile_duration_seconds")
                     .Help("Wall time of compiles that ran (all stages), by target and outcome")
                     .Register(registry)),
      conflicts_(prometheus::BuildCounter()
                     .Name("qdcache_alias_conflicts_total")
                     .Help("Compiles whose fast key's alias named a different artifact of the same dependencies "
                           "(the fast key misses an input), by namespace")
                     .Register(registry)),
      stale_(prometheus::BuildCounter()
                 .Name("qdcache_alias_stale_total")
                 .Help("Fast-key aliases rebound because their declared dependencies changed, by namespace")
                 .Register(registry)) {}

void CompileMetrics::CountAliasEvent(std::string_view ns, bool conflict) {
  (conflict ? conflicts_ : stale_).Add({{"namespace", namespaces_.Of(ns)}}).Increment();
}

void CompileMetrics::Observe(std::string_view target, double seconds, bool ok) {
  durations_
      .Add({{"target", targets_.Of(target)}, {"outcome", ok ? "ok" : "error"}}, kCompileBuckets)
      .Observe(seconds);
}

}  // namespace qdcache::metrics
