// The wire's v1::Stats, put together from what each component counts: the
// engine, the store, the compile worker pool and the remote tier each keep
// their own counters struct; only the daemon knows them all.
#pragma once

#include <cstdint>
#include <optional>

#include "compiler/worker_pool.h"
#include "engine/engine_stats.h"
#include "daemon/signing_setup.h"
#include "qdcache/v1/qdcache.pb.h"
#include "remote/remote_tier.h"
#include "store/artifact_store.h"

namespace qdcache::daemon {

struct StatsParts {
  engine::EngineStats engine;
  store::StoreStats store;
  std::uint64_t max_bytes = 0;                     // the store's cap (--max-size)
  std::optional<compiler::WorkerPoolStats> workers;  // absent with an in-process compiler
  struct Remote {
    remote::RemoteStats stats;
    remote::RemoteOptions options;  // its policy
  };
  std::optional<Remote> remote;                      // absent without --remote
  std::uint64_t peer_rejections = 0;               // the service's per-peer limit
  SharedEntrySigning signing;                      // keys of signed shared entries
};

[[nodiscard]] v1::Stats StatsReport(const StatsParts& parts);

}  // namespace qdcache::daemon
