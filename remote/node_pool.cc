#include "remote/node_pool.h"

namespace qdcache::remote {

NodePool::Lease::~Lease() {
  if (conn_ != nullptr && pool_ != nullptr) pool_->Release(std::move(conn_));
}

NodePool::NodePool(ConnectOptions options, std::size_t max_idle_per_node)
    : options_(std::move(options)), max_idle_per_node_(max_idle_per_node) {}

Expected<NodePool::Lease> NodePool::Acquire(const Endpoint& node) {
  {
    std::lock_guard lock(mu_);
    auto it = idle_.find(node.ToString());
    while (it != idle_.end() && !it->second.empty()) {
      std::unique_ptr<RedisConnection> conn = std::move(it->second.back());
      it->second.pop_back();
      // One the server closed (it restarted) would fail the call and count
      // against the breaker although the remote is fine now.
      if (!conn->PeerClosed()) return Lease(this, std::move(conn));
    }
  }
  // Connecting happens outside the lock: a slow node must not stall the others.
  Expected<std::unique_ptr<RedisConnection>> conn = RedisConnection::Open(node, options_);
  if (!conn.ok()) return conn.status();
  return Lease(this, std::move(conn).value());
}

void NodePool::DropIdle(const Endpoint& node) {
  std::vector<std::unique_ptr<RedisConnection>> dropped;
  std::lock_guard lock(mu_);
  auto it = idle_.find(node.ToString());
  if (it != idle_.end()) dropped.swap(it->second);
}

void NodePool::Release(std::unique_ptr<RedisConnection> conn) {
  if (conn->broken()) return;
  std::lock_guard lock(mu_);
  std::vector<std::unique_ptr<RedisConnection>>& idle = idle_[conn->endpoint().ToString()];
  if (idle.size() < max_idle_per_node_) idle.push_back(std::move(conn));
}

}  // namespace qdcache::remote
