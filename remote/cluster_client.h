// Redis Cluster client: commands routed by slot (cluster_slot.h) to the
// master serving it, per the slot map read with CLUSTER SLOTS. Each command
// names one routing key; any other key it names must share that key's slot.
// The cluster backend (redis_cluster_backend.h) sends its commands here.
//
// Results: the reply on success; a Redis error reply (other than a followed
// redirect) becomes a Status (ReplyError, redis_commands.h); an I/O failure
// or timeout becomes UNAVAILABLE / DEADLINE_EXCEEDED, as the connection
// reports it (redis_connection.h).
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
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "remote/cluster_slot.h"
#include "remote/node_pool.h"
#include "remote/redis_connection.h"
#include "remote/redis_url.h"

namespace qdcache::remote {

class ClusterClient {
 public:
  static constexpr int kMaxRedirects = 5;

  struct Counters {
    std::uint64_t moved = 0;      // MOVED redirects followed
    std::uint64_t ask = 0;        // ASK redirects followed
    std::uint64_t refreshes = 0;  // slot maps read
  };

  // `seeds`: nodes to read the slot map from (at least one). Connects lazily.
  ClusterClient(std::vector<Endpoint> seeds, ConnectOptions options);

  // A command and the key that routes it.
  struct KeyedCommand {
    std::string key;
    std::vector<std::string> argv;
  };

  // Runs `argv`, whose routing key is `key`.
  [[nodiscard]] Expected<Reply> Execute(std::string_view key, const std::vector<std::string>& argv);

  // Runs `commands`, one pipelined round trip per node serving them; a
  // command redirected there is then followed alone, as by Execute. The
  // results are in the order of `commands`; a node that fails fails each of
  // its commands.
  [[nodiscard]] std::vector<Expected<Reply>> ExecuteMany(const std::vector<KeyedCommand>& commands);

  // Reads the slot map from the first known node or seed that answers (a
  // round trip to the cluster: the backend's Ping).
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
  // `argv` on `node` (after ASKING when `asking`), error replies included.
  // A failed node marks the map stale.
  Expected<Reply> RunOn(const Endpoint& node, const std::vector<std::string>& argv, bool asking);
  // `argvs` pipelined on `node`: their replies, error replies included. A
  // failed node marks the map stale.
  Expected<std::vector<Reply>> PipelineOn(const Endpoint& node,
                                          const std::vector<std::vector<std::string>>& argvs);
  // `reply` came from `node` for `argv` on `slot`: follows it while it is a
  // redirect, `redirects` of which were followed already.
  Expected<Reply> FollowRedirects(int slot, Endpoint node, Reply reply,
                                  const std::vector<std::string>& argv, int redirects);

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
