// Sending single-key commands to Redis, standalone or Cluster. The cluster
// client routes each command to the node serving the key's slot and follows
// MOVED / ASK redirects (cluster_client.h).
//
// Results: the reply on success; a Redis error reply (other than a followed
// redirect) becomes UNAVAILABLE with the server's message; an I/O failure or
// timeout becomes UNAVAILABLE / DEADLINE_EXCEEDED. Thread-safe: every method
// may be called concurrently.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "remote/node_pool.h"
#include "remote/redis_url.h"

namespace qdcache::remote {

class RedisClient {
 public:
  virtual ~RedisClient() = default;
  // Runs `argv`, a command whose only key is `key`.
  [[nodiscard]] virtual Expected<Reply> Execute(std::string_view key,
                                                const std::vector<std::string>& argv) = 0;
  // A round trip to one node (PING), for the start-up probe.
  [[nodiscard]] virtual Status Ping() = 0;
};

// The client `url` asks for: standalone (redis://) or cluster (redis-cluster://).
// Connects lazily: nothing is contacted before the first call.
[[nodiscard]] std::unique_ptr<RedisClient> MakeRedisClient(const RemoteUrl& url,
                                                           const ConnectOptions& options);

// One Redis server.
class StandaloneClient final : public RedisClient {
 public:
  StandaloneClient(Endpoint node, ConnectOptions options);
  [[nodiscard]] Expected<Reply> Execute(std::string_view key,
                                        const std::vector<std::string>& argv) override;
  [[nodiscard]] Status Ping() override;

 private:
  const Endpoint node_;
  NodePool pool_;
};

// A Redis error reply as a Status: UNAVAILABLE when it means the remote is
// down for every command (NOAUTH, LOADING, CLUSTERDOWN, a MOVED from a
// cluster node reached as standalone, ...), FAILED_PRECONDITION when it
// concerns this command only (OOM, WRONGTYPE, ERR ...).
[[nodiscard]] Status ReplyError(const Endpoint& node, const Reply& reply);

}  // namespace qdcache::remote
