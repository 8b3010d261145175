#include "store/record_cache.h"

namespace qdcache::store {

std::uint64_t RecordCache::CostOf(const ArtifactRecord& r) {
  // The strings themselves plus a rough allowance for the node and map slot.
  return r.key.size() + r.target.size() + r.toolchain.size() + r.payload.size() +
         r.payload_digest.size() + r.ptx.size() + r.metadata.size() + r.compile_log.size() + 256;
}

std::shared_ptr<const ArtifactRecord> RecordCache::Find(const std::string& key) {
  if (capacity_ == 0) return nullptr;
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return nullptr;
  order_.splice(order_.begin(), order_, it->second.position);
  return it->second.record;
}

std::uint64_t RecordCache::generation() const {
  std::lock_guard lock(mu_);
  return generation_;
}

void RecordCache::Insert(std::shared_ptr<const ArtifactRecord> record,
                         std::uint64_t generation_before_read) {
  const std::uint64_t cost = CostOf(*record);
  if (capacity_ == 0 || cost > capacity_) return;
  std::lock_guard lock(mu_);
  if (generation_ != generation_before_read) return;
  auto [it, inserted] = entries_.try_emplace(record->key);
  if (!inserted) {
    bytes_ -= it->second.cost;
    order_.splice(order_.begin(), order_, it->second.position);
  } else {
    order_.push_front(record->key);
    it->second.position = order_.begin();
  }
  it->second.record = std::move(record);
  it->second.cost = cost;
  bytes_ += cost;
  EvictOverCapacityLocked();
}

void RecordCache::Erase(const std::string& key) {
  std::lock_guard lock(mu_);
  ++generation_;
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  bytes_ -= it->second.cost;
  order_.erase(it->second.position);
  entries_.erase(it);
}

void RecordCache::EvictOverCapacityLocked() {
  while (bytes_ > capacity_ && !order_.empty()) {
    auto it = entries_.find(order_.back());
    bytes_ -= it->second.cost;
    entries_.erase(it);
    order_.pop_back();
  }
}

std::uint64_t RecordCache::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

std::size_t RecordCache::entries() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

}  // namespace qdcache::store
