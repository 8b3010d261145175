#include "daemon/peer_limiter.h"

namespace qdcache::daemon {

Expected<PeerLimiter::Slot> PeerLimiter::Acquire(const std::string& peer) {
  {
    std::lock_guard lock(mu_);
    std::size_t& n = counts_[peer];
    if (max_ != 0 && n >= max_) {
      return ResourceExhausted(peer + " already has " + std::to_string(n) +
                               " requests in flight, the limit per peer (--max-peer-requests)");
    }
    ++n;
  }
  return Slot(static_cast<void*>(this), [this, peer](void*) { Release(peer); });
}

void PeerLimiter::Release(const std::string& peer) {
  std::lock_guard lock(mu_);
  auto it = counts_.find(peer);
  if (it != counts_.end() && --it->second == 0) counts_.erase(it);
}

std::size_t PeerLimiter::in_flight(const std::string& peer) const {
  std::lock_guard lock(mu_);
  auto it = counts_.find(peer);
  return it == counts_.end() ? 0 : it->second;
}

}  // namespace qdcache::daemon
