// Caps the requests one peer (tenant identity) has in flight at once, so one
// client cannot take every compile slot or pile up unbounded work. Thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "common/expected.h"

namespace qdcache::daemon {

class PeerLimiter {
 public:
  // `max_per_peer` 0: unlimited.
  explicit PeerLimiter(std::size_t max_per_peer) : max_(max_per_peer) {}

  // A held slot; the slot is given back when the last copy is destroyed.
  using Slot = std::shared_ptr<void>;

  // Takes a slot for `peer`, or RESOURCE_EXHAUSTED naming the peer and the
  // limit (--max-peer-requests). The limiter must outlive every Slot.
  [[nodiscard]] Expected<Slot> Acquire(const std::string& peer);

  [[nodiscard]] std::size_t in_flight(const std::string& peer) const;

 private:
  void Release(const std::string& peer);

  const std::size_t max_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::size_t> counts_;  // guarded by mu_; no zero entries
};

}  // namespace qdcache::daemon
