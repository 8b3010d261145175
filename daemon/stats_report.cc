#include "daemon/stats_report.h"

namespace qdcache::daemon {

v1::Stats StatsReport(const StatsParts& p) {
  v1::Stats s;
  const engine::EngineStats& e = p.engine;
  s.set_requests(e.requests);
  s.set_compiles(e.compiles);
  s.set_hits(e.hits);
  s.set_artifact_hits(e.hits);
  s.set_alias_hits(e.alias_hits);
  s.set_misses(e.misses);
  s.set_alias_misses(e.misses);
  s.set_artifact_misses(e.artifact_misses);
  s.set_stage_hits(e.stage_hits);
  s.set_stage_misses(e.stage_misses);
  s.set_coalesced(e.coalesced);
  s.set_errors(e.errors);
  s.set_store_errors(e.store_errors);
  s.set_cancelled(e.cancelled);
  s.set_remembered_failures(e.remembered_failures);
  s.set_queue_rejections(e.queue_rejections);
  s.set_peer_worker_failures(e.peer_worker_failures);
  s.set_peer_failure_refusals(e.peer_failure_refusals);
  s.set_alias_conflicts(e.alias_conflicts);
  s.set_alias_stale(e.alias_stale);
  s.set_fleet_leases(e.fleet_leases);
  s.set_fleet_waits(e.fleet_waits);
  s.set_fleet_wait_hits(e.fleet_wait_hits);
  s.set_fleet_wait_timeouts(e.fleet_wait_timeouts);
  s.set_fleet_wait_orphans(e.fleet_wait_orphans);
  s.set_alias_hits_replayed(e.alias_hits_replayed);
  s.set_compile_seconds(e.compile_seconds);
  s.set_compile_seconds_saved(e.compile_seconds_saved);
  s.set_workers(e.workers);
  s.set_in_flight(e.in_flight);
  s.set_uptime_seconds(e.uptime_seconds);
  s.set_toolchain(e.toolchain);
  s.set_cuda_version(e.cuda_version);
  s.set_version(e.version);
  s.set_peer_rejections(p.peer_rejections);

  const store::StoreStats& st = p.store;
  s.set_store_artifacts(st.artifacts);
  s.set_store_aliases(st.aliases);
  s.set_store_bytes(st.payload_bytes);
  s.set_corrupt_dropped(st.corrupt_dropped);
  s.set_evictions(st.evictions);
  s.set_evicted_bytes(st.evicted_bytes);
  s.set_stage_entries(st.stage_entries);
  s.set_stage_bytes(st.stage_bytes);
  s.set_memory_cache_entries(st.memory_cache_entries);
  s.set_memory_cache_bytes(st.memory_cache_bytes);
  s.set_total_bytes(st.total_bytes);
  s.set_max_bytes(p.max_bytes);

  if (p.workers) {
    const compiler::WorkerPoolStats& w = *p.workers;
    s.set_worker_starts(w.started);
    s.set_worker_crashes(w.crashed);
    s.set_worker_timeouts(w.timed_out);
    s.set_worker_out_of_memory(w.out_of_memory);
    s.set_worker_kills_cancelled(w.cancelled);
    s.set_workers_live(w.live);
    s.set_worker_respawns_delayed(w.respawns_delayed);
    s.set_compile_parses_reused(w.parses_reused);
    s.set_compiles_ahead(w.compiles_ahead);
    s.set_compiles_answered_ahead(w.answered_ahead);
  }
  if (p.remote) {
    const remote::RemoteStats& r = p.remote->stats;
    s.set_remote_hits(r.hits);
    s.set_remote_misses(r.misses);
    s.set_remote_errors(r.errors);
    s.set_remote_corrupt(r.corrupt);
    s.set_remote_writes(r.writes);
    s.set_remote_write_failures(r.write_failures);
    s.set_remote_skipped(r.skipped);
    s.set_remote_state(r.healthy ? "ok" : "degraded");
    s.set_remote_not_shared_large(r.not_shared_large);
    s.set_remote_not_shared_cheap(r.not_shared_cheap);
    s.set_remote_untrusted(r.untrusted);
    const remote::RemoteOptions& o = p.remote->options;
    s.set_remote_read_only(o.read_only);
    s.set_remote_backfill(o.backfill);
    s.set_remote_max_share_bytes(o.max_share_bytes);
    s.set_remote_min_share_compile_ms(static_cast<std::uint64_t>(o.min_share_compile.count()));
  } else {
    s.set_remote_state("off");
  }
  if (p.signing.signer) s.set_signing_key(p.signing.signer->id());
  if (p.signing.policy.checks()) {
    for (const std::string& id : p.signing.policy.trusted->ids()) s.add_trusted_keys(id);
    s.set_signatures_required(p.signing.policy.require);
  }
  return s;
}

}  // namespace qdcache::daemon
