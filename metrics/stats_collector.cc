#include "metrics/stats_collector.h"

#include <initializer_list>
#include <string>
#include <utility>

namespace qdcache::metrics {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

struct Sample {
  std::vector<ClientMetric::Label> labels;
  double value;
};

class Families {
 public:
  void Counter(std::string name, std::string help, double value) {
    Add(std::move(name), std::move(help), MetricType::Counter, {{{}, value}});
  }
  void Gauge(std::string name, std::string help, double value) {
    Add(std::move(name), std::move(help), MetricType::Gauge, {{{}, value}});
  }
  void Add(std::string name, std::string help, MetricType type,
           std::initializer_list<Sample> samples) {
    MetricFamily f{std::move(name), std::move(help), type, {}};
    for (const Sample& s : samples) {
      ClientMetric m;
      m.label = s.labels;
      if (type == MetricType::Counter)
        m.counter.value = s.value;
      else
        m.gauge.value = s.value;
      f.metric.push_back(std::move(m));
    }
    out.push_back(std::move(f));
  }
  std::vector<MetricFamily> out;
};

double D(std::uint64_t v) { return static_cast<double>(v); }

}  // namespace

std::vector<MetricFamily> StatsFamilies(const v1::Stats& s) {
  Families f;
  auto level = [](const char* name) { return std::vector<ClientMetric::Label>{{"level", name}}; };
  auto kind = [](const char* name) { return std::vector<ClientMetric::Label>{{"kind", name}}; };
  const bool remote = s.remote_state() != "off";

  // Cache levels, as in DESIGN §3 and §5.
  f.Add("qdcache_cache_hits_total",
        "Cache hits by level: alias (fast key), artifact, stage (PTX), remote", MetricType::Counter,
        {{level("alias"), D(s.alias_hits())},
         {level("artifact"), D(s.hits())},
         {level("stage"), D(s.stage_hits())},
         {level("remote"), D(s.remote_hits())}});
  f.Add("qdcache_cache_misses_total",
        "Cache misses by level: alias (fast key), artifact, stage (PTX), remote",
        MetricType::Counter,
        {{level("alias"), D(s.misses())},
         {level("artifact"), D(s.artifact_misses())},
         {level("stage"), D(s.stage_misses())},
         {level("remote"), D(s.remote_misses())}});

  // Work.
  f.Counter("qdcache_items_total", "Kernel descriptors and fast-key queries received",
            D(s.requests()));
  f.Counter("qdcache_compiles_total", "Successful compiles", D(s.compiles()));
  f.Counter("qdcache_coalesced_total", "Items that joined an identical compile in flight",
            D(s.coalesced()));
  f.Counter("qdcache_errors_total", "Items answered with an error", D(s.errors()));
  f.Counter("qdcache_cancelled_total", "Items whose call was cancelled before they were answered",
            D(s.cancelled()));
  f.Counter("qdcache_remembered_failures_total",
            "Items answered from the failure memory instead of compiled",
            D(s.remembered_failures()));
  f.Counter("qdcache_queue_rejections_total", "Compiles refused because the queue was full",
            D(s.queue_rejections()));
  f.Counter("qdcache_peer_rejections_total", "Calls refused by the per-tenant limit",
            D(s.peer_rejections()));
  f.Counter("qdcache_compile_seconds_total", "Time spent compiling", s.compile_seconds());
  f.Counter("qdcache_compile_seconds_saved_total", "Compile time of the artifacts served as hits",
            s.compile_seconds_saved());
  f.Gauge("qdcache_compiles_in_flight", "Compiles running or queued", D(s.in_flight()));

  // Compile workers.
  f.Gauge("qdcache_workers", "Compiles that may run at once (--workers)", D(s.workers()));
  f.Gauge("qdcache_workers_live", "Compile worker processes alive", D(s.workers_live()));
  f.Counter("qdcache_worker_starts_total",
            "Compile worker processes started, the first ones included", D(s.worker_starts()));
  f.Counter("qdcache_worker_crashes_total", "Compile workers that crashed", D(s.worker_crashes()));
  f.Counter("qdcache_worker_timeouts_total", "Compile workers killed past the compile time limit",
            D(s.worker_timeouts()));
  f.Counter("qdcache_worker_out_of_memory_total",
            "Compile workers that ran out of memory (--worker-memory)",
            D(s.worker_out_of_memory()));
  f.Counter("qdcache_worker_kills_cancelled_total",
            "Compile workers killed because every requester had gone",
            D(s.worker_kills_cancelled()));
  f.Counter("qdcache_worker_respawns_delayed_total",
            "Replacement compile workers that waited for the respawn limit (--worker-respawns)",
            D(s.worker_respawns_delayed()));
  f.Counter("qdcache_compile_parses_reused_total",
            "Compiles that took the module their digest's compile worker kept, parsing their IR once",
            D(s.compile_parses_reused()));
  f.Counter("qdcache_compiles_ahead_total",
            "CUDA misses whose compile began beside their digest, on the digest's idle compile worker",
            D(s.compiles_ahead()));
  f.Counter("qdcache_compiles_answered_ahead_total",
            "Compiles answered from the one their digest began (the rest were given up)",
            D(s.compiles_answered_ahead()));
  f.Counter("qdcache_peer_worker_failures_total",
            "Compile workers used up by an input, charged to the tenant that sent it",
            D(s.peer_worker_failures()));
  f.Counter("qdcache_peer_failure_refusals_total",
            "Items refused because their tenant had spent its worker-failure budget",
            D(s.peer_failure_refusals()));

  // Store.
  f.Add("qdcache_store_entries", "Entries in the local store by kind", MetricType::Gauge,
        {{kind("artifact"), D(s.store_artifacts())},
         {kind("alias"), D(s.store_aliases())},
         {kind("stage"), D(s.stage_entries())}});
  f.Add("qdcache_store_bytes",
        "Bytes in the local store: artifact payloads, stage outputs, total against the cap",
        MetricType::Gauge,
        {{kind("artifact"), D(s.store_bytes())},
         {kind("stage"), D(s.stage_bytes())},
         {kind("total"), D(s.total_bytes())}});
  f.Gauge("qdcache_store_max_bytes", "The store's byte cap (0: none)", D(s.max_bytes()));
  f.Gauge("qdcache_memory_cache_entries", "Verified artifacts held in memory for hits",
          D(s.memory_cache_entries()));
  f.Gauge("qdcache_memory_cache_bytes", "Bytes of the artifacts held in memory",
          D(s.memory_cache_bytes()));
  f.Counter("qdcache_evictions_total", "Store entries evicted (byte cap or admin)",
            D(s.evictions()));
  f.Counter("qdcache_evicted_bytes_total", "Bytes evicted from the store", D(s.evicted_bytes()));
  f.Counter("qdcache_store_errors_total", "Failed store reads and writes (served anyway)",
            D(s.store_errors()));
  f.Counter("qdcache_corrupt_dropped_total",
            "Stored entries that failed verification and were dropped", D(s.corrupt_dropped()));

  // Remote tier (--remote).
  if (remote) {
    f.Gauge("qdcache_remote_up",
            "1 while the remote tier is used, 0 while its circuit breaker is open",
            s.remote_state() == "ok" ? 1 : 0);
  }
  f.Counter("qdcache_remote_errors_total",
            "Remote reads and compile-lease calls that failed (timeout, unreachable, Redis error)", D(s.remote_errors()));
  f.Counter("qdcache_remote_corrupt_total", "Remote values that failed verification",
            D(s.remote_corrupt()));
  f.Counter("qdcache_remote_untrusted_total",
            "Remote values refused by the signature policy: unsigned, signed by a key not trusted, or "
            "not covering the key they were read under",
            D(s.remote_untrusted()));
  f.Counter("qdcache_remote_writes_total", "Values written to the remote", D(s.remote_writes()));
  f.Counter("qdcache_alias_hits_replayed_total",
            "Alias hits answered from a kept lean Lookup answer (the same request, the store unchanged)",
            D(s.alias_hits_replayed()));
  f.Counter("qdcache_fleet_leases_total", "Compile leases taken on the shared tier (fleet single-flight)",
            D(s.fleet_leases()));
  f.Counter("qdcache_fleet_waits_total", "Compiles that waited for another daemon's lease", D(s.fleet_waits()));
  f.Add("qdcache_fleet_waits_ended_total",
        "Fleet waits by how they ended (served: the artifact it published; orphaned: the lease ended without "
        "one, compiled here; timeout: compiled here after the limit)",
        MetricType::Counter,
        {{{{"outcome", "served"}}, D(s.fleet_wait_hits())},
         {{{"outcome", "orphaned"}}, D(s.fleet_wait_orphans())},
         {{{"outcome", "timeout"}}, D(s.fleet_wait_timeouts())}});
  f.Counter("qdcache_remote_write_failures_total", "Remote writes that failed",
            D(s.remote_write_failures()));
  f.Counter("qdcache_remote_skipped_total",
            "Remote calls not made while the circuit breaker was open", D(s.remote_skipped()));
  f.Add("qdcache_remote_not_shared_total",
        "Artifacts the shared tier's admission rules kept local, by rule (too large, too cheap to compile)",
        MetricType::Counter,
        {{{{"reason", "large"}}, D(s.remote_not_shared_large())}, {{{"reason", "cheap"}}, D(s.remote_not_shared_cheap())}});

  // The daemon.
  f.Gauge("qdcache_uptime_seconds", "Seconds since the daemon started", D(s.uptime_seconds()));
  f.Add("qdcache_build_info", "The daemon's version and toolchain fingerprint (value 1)",
        MetricType::Gauge, {{{{"version", s.version()}, {"toolchain", s.toolchain()}}, 1}});
  return std::move(f.out);
}

}  // namespace qdcache::metrics
