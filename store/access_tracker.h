// Access times: a clock that never repeats or goes back, and the in-memory
// batch of accesses recorded by reads until they are written to the access
// index. Internal to the store.
//
// Why batch: a cache hit must stay a read. Writing the index on every Get
// would turn each hit into a RocksDB write under the store's write lock;
// instead hits only touch a small map, and the store persists the map in one
// WriteBatch per flush interval (and before every eviction pass, so what was
// just used is not what gets evicted).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "store/entry_index.h"

namespace qdcache::store {

// Ticks: microseconds since the Unix epoch, strictly increasing across calls
// (and across reopen, via AdvancePast), so the access order is total even
// when the wall clock is coarse, stalls or steps back. Thread-safe.
class AccessClock {
 public:
  using WallClock = std::function<std::chrono::system_clock::time_point()>;

  explicit AccessClock(WallClock wall);

  // A tick later than every tick returned before and than `tick`.
  [[nodiscard]] std::uint64_t Tick();
  // Later ticks will be greater than `tick` (e.g. the newest one on disk).
  void AdvancePast(std::uint64_t tick);
  // The wall clock now, in microseconds; not unique.
  [[nodiscard]] std::uint64_t NowMicros() const;

 private:
  WallClock wall_;
  std::atomic<std::uint64_t> last_{0};
};

// Thread-safe.
class AccessTracker {
 public:
  struct Access {
    EntryKind kind;
    std::string key;
    std::uint64_t tick;
  };

  // Remembers that (kind, key) was read at `tick`; a later tick wins.
  void Record(EntryKind kind, std::string_view key, std::uint64_t tick);
  // Removes and returns everything recorded so far.
  [[nodiscard]] std::vector<Access> TakeAll();

 private:
  std::mutex mu_;
  std::unordered_map<std::string, std::uint64_t> pending_;  // kind byte + key -> tick; mu_
};

}  // namespace qdcache::store
