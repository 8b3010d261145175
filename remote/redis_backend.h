// The RemoteBackend (remote_backend.h) of one Redis server (redis://): GET,
// MGET (one round trip for any number of keys), SET [EX], PING, over a pool
// of reused connections (node_pool.h).
//
// Thread-safe: every method may be called concurrently.
#pragma once

#include <string>
#include <vector>

#include "remote/node_pool.h"
#include "remote/redis_connection.h"
#include "remote/redis_url.h"
#include "remote/remote_backend.h"

namespace qdcache::remote {

class RedisBackend final : public RemoteBackend {
 public:
  // Connects lazily: nothing is contacted before the first call.
  RedisBackend(Endpoint node, ConnectOptions options);

  [[nodiscard]] Expected<std::optional<std::string>> Get(std::string_view key) override;
  [[nodiscard]] Expected<std::vector<std::optional<std::string>>> MultiGet(
      const std::vector<std::string>& keys) override;
  [[nodiscard]] Status Put(std::string_view key, std::string value,
                           std::chrono::seconds ttl) override;
  [[nodiscard]] Expected<bool> PutIfAbsent(std::string_view key, std::string value,
                                           std::chrono::milliseconds ttl) override;
  [[nodiscard]] Expected<bool> UpdateIfEquals(std::string_view key, std::string_view value,
                                              std::chrono::milliseconds ttl) override;
  [[nodiscard]] Status Ping() override;
  [[nodiscard]] std::string Describe() const override;

 private:
  // One command on a pooled connection; an error reply becomes its Status
  // (ReplyError), any failure is in the contract's codes.
  [[nodiscard]] Expected<Reply> Run(const std::vector<std::string>& argv);

  const Endpoint node_;
  const std::string source_;  // "redis HOST:PORT", for messages
  NodePool pool_;
};

}  // namespace qdcache::remote
