// The eviction policy (store/eviction.h) against a tiny index held in this
// file: what goes first, how much goes, in what batches, what is counted,
// and what a writer owes. No store, no thread.
#include "store/eviction.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace qdcache::store {
namespace {

// Entries by key, ticks from a counter. Removal decisions are applied one by
// one, as a store does under its lock.
class TinyIndex final : public EvictionIndex {
 public:
  void Add(const std::string& key, std::uint64_t bytes, EntryKind kind = EntryKind::kArtifact) {
    entries_[key] = IndexedEntry{kind, key, bytes, ++tick_};
  }
  void Touch(const std::string& key) { entries_.at(key).last_access = ++tick_; }
  bool Has(const std::string& key) const { return entries_.count(key) != 0; }
  std::vector<std::string> Keys() const {
    std::vector<std::string> keys;
    for (const auto& [key, entry] : entries_) keys.push_back(key);
    return keys;
  }

  // Runs before the decisions of the next Remove: a writer that got in
  // between the listing and the removal.
  std::function<void()> before_next_remove;
  bool fail_removals = false;
  std::vector<std::size_t> removal_sizes;  // entries offered per Remove

  std::uint64_t TotalBytes() override {
    std::uint64_t total = 0;
    for (const auto& [key, entry] : entries_) total += entry.bytes;
    return total;
  }

  Expected<std::vector<IndexedEntry>> Oldest(const IndexedEntry* after, std::size_t max) override {
    std::vector<IndexedEntry> all;
    for (const auto& [key, entry] : entries_) {
      if (after == nullptr || entry.last_access > after->last_access) all.push_back(entry);
    }
    std::sort(all.begin(), all.end(), [](const IndexedEntry& a, const IndexedEntry& b) {
      return a.last_access < b.last_access;
    });
    if (all.size() > max) all.resize(max);
    return all;
  }

  Expected<std::vector<IndexedEntry>> LargerThan(std::uint64_t bytes) override {
    std::vector<IndexedEntry> out;
    for (const auto& [key, entry] : entries_) {
      if (entry.bytes > bytes) out.push_back(entry);
    }
    return out;
  }

  Expected<EvictionResult> Remove(const std::vector<IndexedEntry>& listed, const Decide& decide,
                                  const Committed& committed) override {
    removal_sizes.push_back(listed.size());
    if (fail_removals) return Unavailable("disk full");
    if (before_next_remove) std::exchange(before_next_remove, nullptr)();
    EvictionResult removed;
    for (const IndexedEntry& entry : listed) {
      auto it = entries_.find(entry.key);
      const IndexedEntry* current = it == entries_.end() ? nullptr : &it->second;
      const Verdict verdict = decide(entry, current, TotalBytes());
      if (verdict == Verdict::kStop) break;
      if (verdict == Verdict::kSkip || current == nullptr) continue;
      ++removed.entries;
      removed.bytes += current->bytes;
      entries_.erase(it);
    }
    if (removed.entries > 0) committed(removed);
    return removed;
  }

 private:
  std::map<std::string, IndexedEntry> entries_;
  std::uint64_t tick_ = 0;
};

std::string Key(int i) { return "k" + std::to_string(100 + i); }

TEST_CASE("a pass evicts least recently used entries until the total is within the cap",
          "[store][eviction]") {
  TinyIndex index;
  for (int i = 0; i < 10; ++i) index.Add(Key(i), 100);
  index.Touch(Key(0));
  Evictor evictor(index, 500);

  auto evicted = evictor.RunPass();
  REQUIRE(evicted.ok());
  CHECK(evicted->entries == 5);
  CHECK(evicted->bytes == 500);
  CHECK(index.TotalBytes() == 500);
  CHECK(index.Keys() == std::vector<std::string>{Key(0), Key(6), Key(7), Key(8), Key(9)});
  CHECK(evictor.evictions() == 5);
  CHECK(evictor.evicted_bytes() == 500);
}

TEST_CASE("within the cap, or without one, a pass evicts nothing", "[store][eviction]") {
  TinyIndex index;
  for (int i = 0; i < 4; ++i) index.Add(Key(i), 100);
  Evictor within(index, 400);
  CHECK(within.RunPass()->entries == 0);
  Evictor uncapped(index, 0);
  CHECK(uncapped.RunPass()->entries == 0);
  CHECK(index.removal_sizes.empty());
  CHECK(index.TotalBytes() == 400);
}

TEST_CASE("an entry written larger than the cap goes first, however recent", "[store][eviction]") {
  TinyIndex index;
  for (int i = 0; i < 3; ++i) index.Add(Key(i), 100);
  Evictor evictor(index, 1000);
  index.Add("big", 5000, EntryKind::kStage);
  evictor.Written(EntryKind::kStage, "big", 5000, 4);

  auto evicted = evictor.RunPass();
  REQUIRE(evicted.ok());
  CHECK(evicted->entries == 1);
  CHECK(evicted->bytes == 5000);
  CHECK_FALSE(index.Has("big"));
  CHECK(index.TotalBytes() == 300);
}

TEST_CASE("the first pass finds large entries the evictor was never told of", "[store][eviction]") {
  TinyIndex index;
  index.Add(Key(0), 100);
  index.Add("big", 5000);  // written before the cap was lowered, say
  index.Add(Key(1), 100);
  Evictor evictor(index, 1000);
  auto evicted = evictor.RunPass();
  REQUIRE(evicted.ok());
  CHECK(evicted->entries == 1);
  CHECK(index.Keys() == std::vector<std::string>{Key(0), Key(1)});
}

TEST_CASE("an entry rewritten within the cap is no longer a large candidate", "[store][eviction]") {
  TinyIndex index;
  Evictor evictor(index, 250);
  index.Add("old", 100);
  index.Add("rewritten", 5000);
  evictor.Written(EntryKind::kArtifact, "rewritten", 5000, 2);
  index.Add("rewritten", 200);
  evictor.Written(EntryKind::kArtifact, "rewritten", 200, 3);
  // The first pass scans: nothing is larger than the cap now.
  auto evicted = evictor.RunPass();
  REQUIRE(evicted.ok());
  CHECK(evicted->entries == 1);
  CHECK(index.Keys() == std::vector<std::string>{"rewritten"});
}

TEST_CASE("TrimTo takes entries larger than its limit first, then the oldest",
          "[store][eviction]") {
  TinyIndex index;
  index.Add(Key(0), 100);
  index.Add(Key(1), 100);
  index.Add("large", 700);
  index.Add(Key(2), 100);
  Evictor evictor(index, 0);  // no configured cap: TrimTo works on its own limit
  auto trimmed = evictor.TrimTo(150);
  REQUIRE(trimmed.ok());
  CHECK(trimmed->entries == 3);
  CHECK(index.Keys() == std::vector<std::string>{Key(2)});
  CHECK(evictor.evictions() == 3);
  CHECK(evictor.evicted_bytes() == 900);
}

TEST_CASE("removals are offered in chunks of Evictor::kChunk", "[store][eviction]") {
  TinyIndex index;
  constexpr int kEntries = 3 * static_cast<int>(Evictor::kChunk) + 5;
  for (int i = 0; i < kEntries; ++i) index.Add(Key(i), 10);
  Evictor evictor(index, 0);
  auto trimmed = evictor.TrimTo(10);  // nothing is larger: all of it is the LRU walk
  REQUIRE(trimmed.ok());
  CHECK(trimmed->entries == kEntries - 1);
  CHECK(index.TotalBytes() == 10);
  REQUIRE_FALSE(index.removal_sizes.empty());
  for (std::size_t size : index.removal_sizes) CHECK(size <= Evictor::kChunk);
  CHECK(index.removal_sizes.size() >= 4);
}

TEST_CASE("EvictOlderThan stops at the first entry used at or after the cutoff",
          "[store][eviction]") {
  TinyIndex index;
  for (int i = 0; i < 6; ++i) index.Add(Key(i), 10);  // ticks 1..6
  index.Touch(Key(1));                                // tick 7
  Evictor evictor(index, 0);
  auto evicted = evictor.EvictOlderThan(5);
  REQUIRE(evicted.ok());
  CHECK(evicted->entries == 3);  // ticks 1, 3, 4
  CHECK(index.Keys() == std::vector<std::string>{Key(1), Key(4), Key(5)});
}

TEST_CASE("a walk leaves alone an entry touched after it was listed", "[store][eviction]") {
  TinyIndex index;
  for (int i = 0; i < 4; ++i) index.Add(Key(i), 100);
  index.before_next_remove = [&index] { index.Touch(Key(0)); };
  Evictor evictor(index, 0);
  auto trimmed = evictor.TrimTo(200);
  REQUIRE(trimmed.ok());
  CHECK(trimmed->entries == 2);
  CHECK(index.Keys() == std::vector<std::string>{Key(0), Key(3)});
}

TEST_CASE("a failed removal is an error and counts nothing", "[store][eviction]") {
  TinyIndex index;
  for (int i = 0; i < 4; ++i) index.Add(Key(i), 100);
  index.fail_removals = true;
  Evictor evictor(index, 100);
  auto evicted = evictor.RunPass();
  CHECK(evicted.status().code() == Code::kUnavailable);
  CHECK(evictor.evictions() == 0);
  CHECK(evictor.evicted_bytes() == 0);
  CHECK(index.TotalBytes() == 400);
}

TEST_CASE("a writer owes nothing within the cap, a pass beyond it, a wait when eviction is behind",
          "[store][eviction]") {
  TinyIndex index;
  Evictor capped(index, 1000);
  CHECK(capped.BackpressureAfter(1000, 500) == Evictor::Backpressure::kNone);
  CHECK(capped.BackpressureAfter(1400, 500) == Evictor::Backpressure::kRequestPass);
  CHECK(capped.BackpressureAfter(1500, 500) == Evictor::Backpressure::kRequestPass);
  CHECK(capped.BackpressureAfter(1501, 500) == Evictor::Backpressure::kWaitForPass);
  Evictor uncapped(index, 0);
  CHECK(uncapped.BackpressureAfter(1ull << 40, 1) == Evictor::Backpressure::kNone);
}

}  // namespace
}  // namespace qdcache::store
