// The EvictionIndex of the in-memory store: access_ (LRU first, keyed like
// the RocksDB store's access column family) and the entry maps. Each call
// holds mu_ for its whole chunk.
#include "store/memory_store.h"

namespace qdcache::store {

std::uint64_t MemoryStore::TotalBytes() {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_.total_bytes();
}

Expected<std::vector<IndexedEntry>> MemoryStore::Oldest(const IndexedEntry* after,
                                                        std::size_t max) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = after != nullptr
                ? access_.upper_bound(AccessKey(after->last_access, after->kind, after->key))
                : access_.begin();
  std::vector<IndexedEntry> out;
  for (; it != access_.end() && out.size() < max; ++it) {
    const std::optional<ParsedAccessKey> parsed = ParseAccessKey(it->first);
    if (!parsed) continue;  // cannot happen: every key here is made by AccessKey
    out.push_back(IndexedEntry{parsed->kind, std::string(parsed->key), it->second, parsed->tick});
  }
  return out;
}

Expected<std::vector<IndexedEntry>> MemoryStore::LargerThan(std::uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<IndexedEntry> out;
  for (const auto& [key, entry] : artifacts_) {
    if (entry.bytes > bytes) {
      out.push_back(IndexedEntry{EntryKind::kArtifact, key, entry.bytes, entry.last_access});
    }
  }
  for (const auto& [key, entry] : stages_) {
    if (entry.bytes > bytes) {
      out.push_back(IndexedEntry{EntryKind::kStage, key, entry.bytes, entry.last_access});
    }
  }
  return out;
}

Expected<EvictionResult> MemoryStore::Remove(const std::vector<IndexedEntry>& listed,
                                             const Decide& decide, const Committed& committed) {
  std::lock_guard<std::mutex> lock(mu_);
  EvictionResult removed;
  for (const IndexedEntry& entry : listed) {
    std::optional<IndexedEntry> current;
    if (entry.kind == EntryKind::kArtifact) {
      if (auto it = artifacts_.find(entry.key); it != artifacts_.end()) {
        current = IndexedEntry{entry.kind, entry.key, it->second.bytes, it->second.last_access};
      }
    } else if (auto it = stages_.find(entry.key); it != stages_.end()) {
      current = IndexedEntry{entry.kind, entry.key, it->second.bytes, it->second.last_access};
    }
    // Removed as it goes, so the total is already what it will be.
    const Verdict verdict = decide(entry, current ? &*current : nullptr, counters_.total_bytes());
    if (verdict == Verdict::kStop) break;
    if (verdict == Verdict::kSkip || !current) continue;
    RemoveLocked(entry.kind, entry.key);
    ++removed.entries;
    removed.bytes += current->bytes;
  }
  if (removed.entries > 0) committed(removed);
  return removed;
}

}  // namespace qdcache::store
