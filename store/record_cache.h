// Verified artifact records kept in memory, so that a hit on a hot artifact
// costs neither a RocksDB read nor a decode nor a SHA-256 of its payload.
// Internal to the store.
//
// What "verified on every read" means with it: every record comes into the
// cache only after it was read from disk and passed VerifyRecord, and leaves
// it whenever its key is written or deleted; bytes served from here are
// bytes that were verified when they last came off the disk.
//
// Bounded by bytes (payload, PTX, metadata, log and key); the least recently
// used records go first. Thread-safe.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "store/record.h"

namespace qdcache::store {

class RecordCache {
 public:
  // 0: the cache holds nothing.
  explicit RecordCache(std::uint64_t capacity_bytes) : capacity_(capacity_bytes) {}

  // The record stored under `key`, made most recently used; null if absent.
  [[nodiscard]] std::shared_ptr<const ArtifactRecord> Find(const std::string& key);

  // Read before reading the store; pass it to Insert. A write or delete of
  // any key in between (Erase) makes that Insert a no-op, so a reader can
  // never put back what a writer has just replaced.
  [[nodiscard]] std::uint64_t generation() const;
  // Keeps `record` (verified by the caller) unless larger than the whole
  // cache or an Erase happened since `generation_before_read`.
  void Insert(std::shared_ptr<const ArtifactRecord> record, std::uint64_t generation_before_read);
  // Whether Insert would keep `record` at all (worth copying it for).
  [[nodiscard]] bool Admits(const ArtifactRecord& record) const {
    return capacity_ != 0 && CostOf(record) <= capacity_;
  }
  // Forgets `key`; call after every committed write or delete of it.
  void Erase(const std::string& key);

  [[nodiscard]] std::uint64_t bytes() const;
  [[nodiscard]] std::size_t entries() const;

  // What a record costs the cache.
  [[nodiscard]] static std::uint64_t CostOf(const ArtifactRecord& record);

 private:
  using Order = std::list<std::string>;  // most recent first
  struct Entry {
    std::shared_ptr<const ArtifactRecord> record;
    std::uint64_t cost;
    Order::iterator position;
  };
  void EvictOverCapacityLocked();

  const std::uint64_t capacity_;
  mutable std::mutex mu_;
  std::uint64_t generation_ = 0;                    // guarded by mu_
  std::uint64_t bytes_ = 0;                         // guarded by mu_
  Order order_;                                     // guarded by mu_
  std::unordered_map<std::string, Entry> entries_;  // guarded by mu_
};

}  // namespace qdcache::store
