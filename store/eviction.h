// Least-recently-used eviction under a byte cap, written once for every
// store. Internal to the store.
//
// A store exposes its entries (artifacts and stage outputs) through a small
// EvictionIndex: the oldest entries by last access, every entry larger than
// some size, its total bytes, and a conditional batch removal. The Evictor is
// the policy over that index: what to evict and in which order (entries
// larger than the limit first, so that one huge entry never flushes the rest
// of the cache; then least recently used first), how much (until the total
// is within the limit, or everything older than a cutoff), in batches of
// kChunk, the backpressure a writer owes after a write, and the eviction
// counters of StoreStats.
//
// The index owns all locking: the Evictor holds no lock of the store's while
// it calls the index, and each Remove is one atomic step of the store's own.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/expected.h"
#include "store/artifact_store.h"
#include "store/entry_index.h"

namespace qdcache::store {

class Housekeeper;

// The access tick before which an entry is older than `age` at tick `now`
// (microseconds; 0 when `age` reaches back past the epoch).
[[nodiscard]] std::uint64_t CutoffTick(std::uint64_t now, std::chrono::milliseconds age);

// One artifact or stage output as the index describes it.
struct IndexedEntry {
  EntryKind kind = EntryKind::kArtifact;
  std::string key;
  std::uint64_t bytes = 0;        // accounted bytes (what StoreStats::total_bytes sums)
  std::uint64_t last_access = 0;  // tick (AccessClock): the entry's place in LRU order
};

// What the policy wants done with one entry offered by EvictionIndex::Remove.
enum class Verdict {
  kEvict,  // remove it
  kSkip,   // keep it and go on with the next
  kStop,   // keep it and every later one
};

class EvictionIndex {
 public:
  // `listed`: the entry as Oldest or LargerThan reported it (or as the
  // Evictor was told it was written); `current`: as stored now, null when it
  // is gone. `total_bytes`: the store's total as it will be after the
  // removals decided so far in this call.
  using Decide = std::function<Verdict(const IndexedEntry& listed, const IndexedEntry* current,
                                       std::uint64_t total_bytes)>;
  // Told what one Remove removed, after the removal is committed and before
  // the store lets anything observe it (under the store's writer lock), so
  // that the eviction counters and the store's byte counters agree.
  using Committed = std::function<void(const EvictionResult& removed)>;

  virtual ~EvictionIndex() = default;

  // StoreStats::total_bytes now.
  [[nodiscard]] virtual std::uint64_t TotalBytes() = 0;

  // Up to `max` entries, least recently used first, starting just after
  // `after` in that order (from the least recently used when null); fewer
  // only when no more follow.
  [[nodiscard]] virtual Expected<std::vector<IndexedEntry>> Oldest(const IndexedEntry* after,
                                                                   std::size_t max) = 0;

  // Every entry of more than `bytes` bytes, in no particular order.
  [[nodiscard]] virtual Expected<std::vector<IndexedEntry>> LargerThan(std::uint64_t bytes) = 0;

  // In one atomic step with respect to the store's writers: offers each of
  // `listed`, in order, to `decide` with its current state, removes those it
  // evicts, stops at the first kStop, commits, then calls `committed` if
  // anything was removed. Returns what was removed. On an error nothing is
  // removed and `committed` is not called.
  [[nodiscard]] virtual Expected<EvictionResult> Remove(const std::vector<IndexedEntry>& listed,
                                                        const Decide& decide,
                                                        const Committed& committed) = 0;
};

// Thread-safe: passes, TrimTo and EvictOlderThan may run concurrently with
// each other and with the store's writers (each Remove is atomic; a walk that
// meets an entry touched since it was listed leaves it alone). Lock order:
// the store's writer lock before the Evictor's own (Written and the Decide
// callbacks take it under the store's); the Evictor never holds its own
// while calling the index.
class Evictor {
 public:
  // Entries offered per Remove: large enough to amortize a write batch,
  // small enough that a writer waits briefly behind one.
  static constexpr std::size_t kChunk = 64;

  // `index` must outlive the Evictor. max_bytes = 0: no cap (no passes).
  Evictor(EvictionIndex& index, std::uint64_t max_bytes);
  Evictor(const Evictor&) = delete;
  Evictor& operator=(const Evictor&) = delete;

  [[nodiscard]] std::uint64_t max_bytes() const { return max_bytes_; }

  enum class Backpressure {
    kNone,         // within the cap
    kRequestPass,  // over it by no more than this entry: a pass in the background
    kWaitForPass,  // over it by more: eviction is behind; wait for a pass
  };
  // What a writer owes after a write of `entry_bytes` left the store at
  // `total_after` bytes: waiting when the store was over the cap already
  // keeps writers from outrunning eviction (the Put bound in artifact_store.h).
  [[nodiscard]] Backpressure BackpressureAfter(std::uint64_t total_after,
                                               std::uint64_t entry_bytes) const;
  // Does what BackpressureAfter says with `keeper`. Not on keeper's thread.
  void AfterWrite(std::uint64_t total_after, std::uint64_t entry_bytes, Housekeeper& keeper) const;

  // Tells the Evictor that (kind, key) was written with `bytes` at tick
  // `last_access`: an entry over the cap is remembered so that the next pass
  // removes it first without scanning the index. Call it with the write,
  // under the store's writer lock (a write that then fails is harmless).
  void Written(EntryKind kind, std::string_view key, std::uint64_t bytes,
               std::uint64_t last_access);

  // One background pass: nothing when within the cap; otherwise entries
  // larger than the cap first (the first pass also asks the index for those
  // written before the Evictor existed), then least recently used first
  // until total_bytes <= max_bytes.
  [[nodiscard]] Expected<EvictionResult> RunPass();
  // The same down to `limit` (ArtifactStore::TrimTo), always asking the
  // index for the entries larger than `limit`.
  [[nodiscard]] Expected<EvictionResult> TrimTo(std::uint64_t limit);
  // Entries last accessed before tick `cutoff`, least recently used first.
  [[nodiscard]] Expected<EvictionResult> EvictOlderThan(std::uint64_t cutoff);

  // Dry runs of TrimTo and EvictOlderThan: what they would evict now, in
  // the same order, removing nothing.
  [[nodiscard]] Expected<EvictionResult> PlanTrimTo(std::uint64_t limit);
  [[nodiscard]] Expected<EvictionResult> PlanOlderThan(std::uint64_t cutoff);

  // Entries and bytes evicted since construction. Updated under the store's
  // writer lock (EvictionIndex::Committed): read them under it too for
  // values that agree with the store's byte counters.
  [[nodiscard]] std::uint64_t evictions() const { return evictions_.load(); }
  [[nodiscard]] std::uint64_t evicted_bytes() const { return evicted_bytes_.load(); }

 private:
  using EntryId = std::pair<EntryKind, std::string>;

  // Entries larger than `limit`, from `listed` and those remembered by
  // Written, removed in chunks.
  [[nodiscard]] Expected<EvictionResult> EvictLarger(std::uint64_t limit,
                                                     std::vector<IndexedEntry> listed);
  // Down to `limit` total bytes: the entries larger than it (EvictLarger),
  // then least recently used first.
  [[nodiscard]] Expected<EvictionResult> EvictDownTo(std::uint64_t limit,
                                                     std::vector<IndexedEntry> larger);
  // Walks the index least recently used first while `evict(entry, total)`
  // holds for the next entry still as listed.
  [[nodiscard]] Expected<EvictionResult> EvictOldestWhile(
      const std::function<bool(const IndexedEntry&, std::uint64_t total_bytes)>& evict);
  // Removes `listed` as `decide` says and counts what was removed.
  [[nodiscard]] Expected<EvictionResult> RemoveCounted(const std::vector<IndexedEntry>& listed,
                                                       const EvictionIndex::Decide& decide);

  EvictionIndex& index_;
  const std::uint64_t max_bytes_;
  std::atomic<std::uint64_t> evictions_{0};
  std::atomic<std::uint64_t> evicted_bytes_{0};

  std::mutex mu_;  // never held while calling index_
  // Entries written with more than max_bytes_ bytes, as written; dropped
  // once a pass finds them gone, rewritten within the cap, or evicts them.
  std::map<EntryId, IndexedEntry> oversized_;  // guarded by mu_
  bool scanned_index_ = false;  // guarded by mu_: a pass has asked the index for LargerThan
};

}  // namespace qdcache::store
