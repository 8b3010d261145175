// The RemoteBackend (remote_backend.h) of a Redis Cluster
// (redis-cluster://): each key goes to the master serving its slot
// (cluster_client.h routes and follows MOVED / ASK). MultiGet groups its keys
// by slot, one MGET per slot, and pipelines the MGETs of each node: one round
// trip per node involved.
//
// Thread-safe: every method may be called concurrently.
#pragma once

#include <string>
#include <vector>

#include "remote/cluster_client.h"
#include "remote/redis_connection.h"
#include "remote/redis_url.h"
#include "remote/remote_backend.h"

namespace qdcache::remote {

class RedisClusterBackend final : public RemoteBackend {
 public:
  // `seeds`: nodes to read the slot map from (at least one). Connects lazily.
  RedisClusterBackend(std::vector<Endpoint> seeds, ConnectOptions options);

  [[nodiscard]] Expected<std::optional<std::string>> Get(std::string_view key) override;
  [[nodiscard]] Expected<std::vector<std::optional<std::string>>> MultiGet(
      const std::vector<std::string>& keys) override;
  [[nodiscard]] Status Put(std::string_view key, std::string value,
                           std::chrono::seconds ttl) override;
  [[nodiscard]] Expected<bool> PutIfAbsent(std::string_view key, std::string value,
                                           std::chrono::milliseconds ttl) override;
  [[nodiscard]] Expected<bool> UpdateIfEquals(std::string_view key, std::string_view value,
                                              std::chrono::milliseconds ttl) override;
  // Reads the slot map: a round trip that also finds a resharded cluster.
  [[nodiscard]] Status Ping() override;
  [[nodiscard]] std::string Describe() const override;

 private:
  const std::vector<Endpoint> seeds_;
  ClusterClient client_;
};

}  // namespace qdcache::remote
