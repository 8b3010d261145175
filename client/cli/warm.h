// `qdcache warm`: compiles every kernel of a manifest (client/cli/manifest.h)
// through the cache, in batches, so that a cache is hot before jobs start.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "client/cli/manifest.h"
#include "client/client.h"
#include "common/status.h"

namespace qdcache::cli {

struct WarmOptions {
  int batch = 32;  // kernels per Compile call (halved when the daemon refuses a batch as too large)
  int jobs = 2;    // calls in flight
  // false: Compile calls have no deadline (a cold batch may take longer than
  // any fixed figure; the daemon's compile timeout bounds each kernel).
  // true: the client's timeout applies to each call (qdcache --timeout given).
  bool call_deadline = false;
};

// What became of one manifest entry.
struct WarmOutcome {
  bool attempted = false;  // false: never sent (warm stopped after a call failed)
  v1::CacheStatus status = v1::CACHE_STATUS_UNSPECIFIED;
  Status error;  // the IR could not be read, the daemon's error, or the call's
};

struct WarmCounts {
  std::uint64_t done = 0;  // entries answered (or failed)
  std::uint64_t compiled = 0;
  std::uint64_t cached = 0;
  std::uint64_t failed = 0;
};

// Sends every entry, at most `options.jobs` calls of at most `options.batch`
// kernels at a time, reading an entry's IR only when its batch is sent (a
// large manifest does not hold every IR in memory). A call that fails for
// the whole batch (daemon gone, permission denied) fails that batch and
// stops sending; RESOURCE_EXHAUSTED for a batch of several is retried as two
// halves. `on_progress` is called on the calling thread as entries finish,
// at least every 100 ms while calls are in flight, and once at the end.
// Returns one outcome per entry, in manifest order.
[[nodiscard]] std::vector<WarmOutcome> Warm(
    client::Client& client, const std::vector<ManifestEntry>& entries, const WarmOptions& options,
    const std::function<void(const WarmCounts&)>& on_progress);

// compiled: compiled or coalesced (joined a compile in flight); cached: hit,
// stage_hit (the PTX stage was cached) or alias_hit.
[[nodiscard]] bool CountsAsCompiled(v1::CacheStatus status);
[[nodiscard]] bool CountsAsCached(v1::CacheStatus status);

}  // namespace qdcache::cli
