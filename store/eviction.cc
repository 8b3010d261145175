#include "store/eviction.h"

#include <algorithm>
#include <optional>

#include "store/housekeeper.h"

namespace qdcache::store {
namespace {

void Add(EvictionResult* total, const EvictionResult& part) {
  total->entries += part.entries;
  total->bytes += part.bytes;
}

// Walks the index least recently used first, offering each entry to
// `take(entry)` until it returns false or the index ends.
Status WalkOldest(EvictionIndex& index, std::size_t chunk_size,
                  const std::function<bool(const IndexedEntry&)>& take) {
  std::optional<IndexedEntry> after;
  for (;;) {
    QDC_ASSIGN_OR_RETURN(std::vector<IndexedEntry> chunk, index.Oldest(after ? &*after : nullptr, chunk_size));
    for (const IndexedEntry& entry : chunk) {
      if (!take(entry)) return Status::Ok();
    }
    if (chunk.size() < chunk_size) return Status::Ok();
    after = std::move(chunk.back());
  }
}

}  // namespace

std::uint64_t CutoffTick(std::uint64_t now, std::chrono::milliseconds age) {
  const auto age_us =
      static_cast<std::uint64_t>(std::max<std::int64_t>(0, std::chrono::microseconds(age).count()));
  return now > age_us ? now - age_us : 0;
}

Expected<EvictionResult> Evictor::PlanTrimTo(std::uint64_t limit) {
  // As EvictDownTo: the entries larger than the limit first, then least
  // recently used first while the total is over it.
  QDC_ASSIGN_OR_RETURN(std::vector<IndexedEntry> larger, index_.LargerThan(limit));
  std::uint64_t total = index_.TotalBytes();
  EvictionResult plan;
  auto take = [&](const IndexedEntry& entry) {
    ++plan.entries;
    plan.bytes += entry.bytes;
    total -= std::min(total, entry.bytes);
  };
  for (const IndexedEntry& entry : larger) take(entry);
  // The walk meets those again: an entry larger than the limit is counted.
  QDC_RETURN_IF_ERROR(WalkOldest(index_, kChunk, [&](const IndexedEntry& entry) {
    if (total <= limit) return false;
    if (entry.bytes <= limit) take(entry);
    return true;
  }));
  return plan;
}

Expected<EvictionResult> Evictor::PlanOlderThan(std::uint64_t cutoff) {
  EvictionResult plan;
  QDC_RETURN_IF_ERROR(WalkOldest(index_, kChunk, [&](const IndexedEntry& entry) {
    if (entry.last_access >= cutoff) return false;
    ++plan.entries;
    plan.bytes += entry.bytes;
    return true;
  }));
  return plan;
}

Evictor::Evictor(EvictionIndex& index, std::uint64_t max_bytes)
    : index_(index), max_bytes_(max_bytes) {}

Evictor::Backpressure Evictor::BackpressureAfter(std::uint64_t total_after,
                                                 std::uint64_t entry_bytes) const {
  if (max_bytes_ == 0 || total_after <= max_bytes_) return Backpressure::kNone;
  if (total_after - entry_bytes > max_bytes_) return Backpressure::kWaitForPass;
  return Backpressure::kRequestPass;
}

void Evictor::AfterWrite(std::uint64_t total_after, std::uint64_t entry_bytes,
                         Housekeeper& keeper) const {
  switch (BackpressureAfter(total_after, entry_bytes)) {
    case Backpressure::kNone:
      return;
    case Backpressure::kRequestPass:
      keeper.RequestPass();
      return;
    case Backpressure::kWaitForPass:
      keeper.RequestPassAndWait();
      return;
  }
}

void Evictor::Written(EntryKind kind, std::string_view key, std::uint64_t bytes,
                      std::uint64_t last_access) {
  if (max_bytes_ == 0) return;
  EntryId id(kind, std::string(key));
  std::lock_guard<std::mutex> lock(mu_);
  if (bytes > max_bytes_) {
    oversized_.insert_or_assign(id, IndexedEntry{kind, id.second, bytes, last_access});
  } else {
    oversized_.erase(id);  // rewritten within the cap: no candidate any more
  }
}

Expected<EvictionResult> Evictor::RunPass() {
  if (max_bytes_ == 0 || index_.TotalBytes() <= max_bytes_) return EvictionResult{};
  std::vector<IndexedEntry> larger;
  bool scanned = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    scanned = scanned_index_;
  }
  if (!scanned) {
    // Entries written before this Evictor existed (the cap may have been
    // lowered since) are not in oversized_. A failed scan is tried again by
    // the next pass; this one goes on without it.
    Expected<std::vector<IndexedEntry>> found = index_.LargerThan(max_bytes_);
    if (found.ok()) {
      larger = std::move(found).value();
      std::lock_guard<std::mutex> lock(mu_);
      scanned_index_ = true;
    }
  }
  return EvictDownTo(max_bytes_, std::move(larger));
}

Expected<EvictionResult> Evictor::TrimTo(std::uint64_t limit) {
  QDC_ASSIGN_OR_RETURN(std::vector<IndexedEntry> larger, index_.LargerThan(limit));
  return EvictDownTo(limit, std::move(larger));
}

Expected<EvictionResult> Evictor::EvictDownTo(std::uint64_t limit,
                                              std::vector<IndexedEntry> larger) {
  QDC_ASSIGN_OR_RETURN(EvictionResult result, EvictLarger(limit, std::move(larger)));
  QDC_ASSIGN_OR_RETURN(EvictionResult lru,
                       EvictOldestWhile([limit](const IndexedEntry&, std::uint64_t total) {
                         return total > limit;
                       }));
  Add(&result, lru);
  return result;
}

Expected<EvictionResult> Evictor::EvictOlderThan(std::uint64_t cutoff) {
  return EvictOldestWhile(
      [cutoff](const IndexedEntry& entry, std::uint64_t) { return entry.last_access < cutoff; });
}

Expected<EvictionResult> Evictor::EvictLarger(std::uint64_t limit,
                                              std::vector<IndexedEntry> listed) {
  // An entry that alone exceeds the limit can never stay; evicting it first
  // keeps it from pushing out everything older than itself on the way.
  std::map<EntryId, IndexedEntry> candidates;
  {
    std::lock_guard<std::mutex> lock(mu_);
    candidates = oversized_;
  }
  for (IndexedEntry& entry : listed) {
    EntryId id(entry.kind, entry.key);
    candidates.insert_or_assign(std::move(id), std::move(entry));
  }
  const EvictionIndex::Decide decide = [this, limit](const IndexedEntry& listed_entry,
                                                     const IndexedEntry* current, std::uint64_t) {
    const bool over_cap = current != nullptr && max_bytes_ != 0 && current->bytes > max_bytes_;
    const bool evict = current != nullptr && current->bytes > limit;
    if (!over_cap || evict) {
      // Gone, rewritten within the cap, or about to go: no candidate any more.
      std::lock_guard<std::mutex> lock(mu_);
      oversized_.erase(EntryId(listed_entry.kind, listed_entry.key));
    }
    return evict ? Verdict::kEvict : Verdict::kSkip;
  };
  EvictionResult result;
  std::vector<IndexedEntry> chunk;
  for (auto it = candidates.begin(); it != candidates.end();) {
    chunk.clear();
    for (; it != candidates.end() && chunk.size() < kChunk; ++it) chunk.push_back(it->second);
    QDC_ASSIGN_OR_RETURN(EvictionResult removed, RemoveCounted(chunk, decide));
    Add(&result, removed);
  }
  return result;
}

Expected<EvictionResult> Evictor::EvictOldestWhile(
    const std::function<bool(const IndexedEntry&, std::uint64_t)>& evict) {
  EvictionResult result;
  std::optional<IndexedEntry> after;
  for (bool stopped = false; !stopped;) {
    QDC_ASSIGN_OR_RETURN(std::vector<IndexedEntry> chunk,
                         index_.Oldest(after ? &*after : nullptr, kChunk));
    if (chunk.empty()) break;
    const EvictionIndex::Decide decide = [&](const IndexedEntry& listed,
                                             const IndexedEntry* current, std::uint64_t total) {
      // Gone, or touched or rewritten since it was listed: it is no longer
      // where the walk is, so it is not this walk's business.
      if (current == nullptr || current->last_access != listed.last_access) return Verdict::kSkip;
      if (!evict(*current, total)) {
        stopped = true;
        return Verdict::kStop;
      }
      return Verdict::kEvict;
    };
    QDC_ASSIGN_OR_RETURN(EvictionResult removed, RemoveCounted(chunk, decide));
    Add(&result, removed);
    if (chunk.size() < kChunk) break;  // the whole index has been offered
    after = std::move(chunk.back());
  }
  return result;
}

Expected<EvictionResult> Evictor::RemoveCounted(const std::vector<IndexedEntry>& listed,
                                                const EvictionIndex::Decide& decide) {
  return index_.Remove(listed, decide, [this](const EvictionResult& removed) {
    evictions_ += removed.entries;
    evicted_bytes_ += removed.bytes;
  });
}

}  // namespace qdcache::store
