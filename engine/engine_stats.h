// What the engine counts, as plain numbers. The daemon puts them together
// with the store's, the worker pool's and the remote tier's counters into the
// wire's v1::Stats (daemon/stats_report.h); the engine knows none of those.
#pragma once

#include <cstdint>
#include <string>

namespace qdcache::engine {

struct EngineStats {
  std::uint64_t requests = 0;       // items received (compile + lookup)
  std::uint64_t compiles = 0;       // successful compiles
  std::uint64_t hits = 0;           // artifact hits of compile items
  std::uint64_t alias_hits = 0;     // lookups that found an alias and its artifact
  std::uint64_t misses = 0;         // lookups that did not
  std::uint64_t artifact_misses = 0;
  std::uint64_t stage_hits = 0;
  std::uint64_t stage_misses = 0;
  std::uint64_t coalesced = 0;
  std::uint64_t errors = 0;         // items answered with an error
  std::uint64_t store_errors = 0;   // failed store reads and writes (served anyway)
  std::uint64_t cancelled = 0;
  std::uint64_t remembered_failures = 0;
  std::uint64_t queue_rejections = 0;
  std::uint64_t peer_worker_failures = 0;   // workers used up, charged to tenants
  std::uint64_t peer_failure_refusals = 0;  // items refused by the failure budget
  std::uint64_t alias_conflicts = 0;  // fast keys whose alias named another artifact
  std::uint64_t alias_stale = 0;      // aliases rebound because their dependencies changed
  std::uint64_t alias_hits_replayed = 0;  // of alias_hits: counted again by ReplayAliasHits
  // Fleet-wide single-flight (fleet_leases.h).
  std::uint64_t fleet_leases = 0;         // leases taken: compiles the fleet left to this daemon
  std::uint64_t fleet_waits = 0;          // compiles that waited for another daemon's lease
  std::uint64_t fleet_wait_hits = 0;      // ... and were served the artifact it published
  std::uint64_t fleet_wait_timeouts = 0;  // ... and compiled here after waiting fleet_wait
  std::uint64_t fleet_wait_orphans = 0;   // ... and compiled here: the lease ended without an artifact
  double compile_seconds = 0;
  double compile_seconds_saved = 0;
  unsigned workers = 0;             // compiles that may run at once
  std::uint64_t in_flight = 0;      // compiles (and keyings waiting for a worker) running or queued
  std::uint64_t uptime_seconds = 0;
  std::string toolchain;            // the toolchain fingerprint (hex)
  std::string cuda_version;         // the nvJitLink cubins are linked with ("13.0", "none")
  std::string version;              // the daemon's version
};

}  // namespace qdcache::engine
