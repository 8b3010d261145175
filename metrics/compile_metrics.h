// Compile durations per target:
//   qdcache_compile_duration_seconds{target,outcome}  histogram
// `target` is the engine's target without CPU features ("cuda:sm_90",
// "cpu:x86-64"); the first 32 distinct targets are kept, later ones read as
// "other". `outcome` is "ok" or "error" (failed or cancelled).
// Fast-key alias events per namespace (the first 32 distinct namespaces,
// later ones "other"; "" is the default namespace):
//   qdcache_alias_conflicts_total{namespace}  counter
//   qdcache_alias_stale_total{namespace}      counter
//
// Threads: Observe may be called concurrently. The registry must outlive this.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <string_view>

#include "metrics/bounded_label.h"

namespace qdcache::metrics {

class CompileMetrics {
 public:
  explicit CompileMetrics(prometheus::Registry& registry);

  void Observe(std::string_view target, double seconds, bool ok);
  // A fast-key conflict (conflict) or a rebind for changed dependencies.
  void CountAliasEvent(std::string_view ns, bool conflict);

 private:
  prometheus::Family<prometheus::Histogram>& durations_;
  prometheus::Family<prometheus::Counter>& conflicts_;
  prometheus::Family<prometheus::Counter>& stale_;
  BoundedLabel targets_{32};
  BoundedLabel namespaces_{32};
};

}  // namespace qdcache::metrics
