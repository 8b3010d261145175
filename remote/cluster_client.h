// Redis Cluster client: single-key commands routed by slot (cluster_slot.h)
// to the master serving it, per the slot map read with CLUSTER SLOTS.
//
// Redirects: "MOVED slot host:port" updates the map for that slot and retries
// there; "ASK slot host:port" sends ASKING then the command to that node once,
// leaving the map as it is (the slot is being migrated). At most
// kMaxRedirects redirects per command, then UNAVAILABLE. A node that cannot
// be reached marks the map stale: the next command reads it again.
//
// Thread-safe: every method may be called concurrently.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "remote/cluster_slot.h"
#include "remote/redis_client.h"

namespace qdcache::remote {

class ClusterClient final : public RedisClient {
 public:
  static constexpr int kMaxRedirects = 5;

  struct Counters {
    std::uint64_t moved = 0;      // MOVED redirects followed
    std::uint64_t ask = 0;        // ASK redirects followed
    std::uint64_t refreshes = 0;  // slot maps read
  };

  // `seeds`: nodes to read the slot map from (at least one). Connects lazily.
  ClusterClient(std::vector<Endpoint> seeds, ConnectOptions options);

  [[nodiscard]] Expected<Reply> Execute(std::string_view key,
                                        const std::vector<std::string>& argv) override;
  // Reads the slot map (a round trip to the cluster).
  [[nodiscard]] Status Ping() override;

  // Reads the slot map from the first known node or seed that answers.
  [[nodiscard]] Status RefreshSlots();

  // For tests: a map claiming that `node` serves every slot (stale on
  // purpose, so that commands meet MOVED redirects). Not marked stale.
  void AssignAllSlotsForTesting(const Endpoint& node);

  [[nodiscard]] Counters counters() const;

 private:
  // The node serving `slot`, reading the map first if it is stale or
  // does not know the slot.
  std::optional<Endpoint> NodeFor(int slot);
  void MarkStale();

  const std::vector<Endpoint> seeds_;
  NodePool pool_;

  std::mutex refresh_mu_;  // one map read at a time; taken before mu_
  mutable std::mutex mu_;
  std::vector<Endpoint> nodes_;          // guarded by mu_
  std::array<std::int16_t, kSlotCount> slots_;  // index into nodes_, -1: unknown; guarded by mu_
  bool stale_ = true;                    // guarded by mu_

  std::atomic<std::uint64_t> moved_{0}, ask_{0}, refreshes_{0};
};

}  // namespace qdcache::remote
