// Reused connections to Redis nodes, a small pool per node. The daemon calls
// the store from many threads: each call leases a connection of its own, and
// gives it back when done unless it broke.
//
// Thread-safe: every method may be called concurrently.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/expected.h"
#include "remote/redis_connection.h"

namespace qdcache::remote {

class NodePool {
 public:
  // A leased connection; back to its pool on destruction unless broken.
  class Lease {
   public:
    Lease(NodePool* pool, std::unique_ptr<RedisConnection> conn)
        : pool_(pool), conn_(std::move(conn)) {}
    ~Lease();
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = delete;
    RedisConnection& operator*() { return *conn_; }
    RedisConnection* operator->() { return conn_.get(); }

   private:
    NodePool* pool_;
    std::unique_ptr<RedisConnection> conn_;
  };

  // `max_idle_per_node`: connections kept for reuse per node; more may be
  // open at once while many threads call.
  explicit NodePool(ConnectOptions options, std::size_t max_idle_per_node = 8);

  // An idle connection to `node`, or a new one (connect + AUTH). The pool
  // must outlive the lease.
  [[nodiscard]] Expected<Lease> Acquire(const Endpoint& node);

  // Closes the idle connections to `node` (e.g. after it failed).
  void DropIdle(const Endpoint& node);

  [[nodiscard]] const ConnectOptions& options() const { return options_; }

 private:
  void Release(std::unique_ptr<RedisConnection> conn);

  const ConnectOptions options_;
  const std::size_t max_idle_per_node_;
  std::mutex mu_;
  std::map<std::string, std::vector<std::unique_ptr<RedisConnection>>> idle_;  // guarded by mu_
};

}  // namespace qdcache::remote
