// The byte cap: background LRU eviction, backpressure on writers, exact
// eviction counters, oversized entries, and concurrency. No test sleeps: the
// background pass is observed through Put's backpressure guarantee, or
// through TrimTo, which runs the same walk on the caller's thread.
#include <atomic>
#include <thread>

#include "store/artifact_store.h"
#include "tests/unit/store/store_test_util.h"

namespace qdcache::store {
namespace {

using testing::Bytes;
using testing::KeyFor;
using testing::MakeRecord;
using testing::OpenOrFail;
using testing::OptionsFor;
using testing::TempDir;

bool Present(ArtifactStore& store, const ArtifactKey& key) {
  auto got = store.Get(key);
  INFO(got.status().ToString());
  REQUIRE(got.ok());
  return got->has_value();
}

std::string Seed(int i) { return "entry-" + std::to_string(i); }

TEST_CASE("after every Put the total stays within the cap plus that entry", "[store][evict]") {
  TempDir dir;
  StoreOptions options = OptionsFor(dir);
  options.max_bytes = 100 << 10;
  auto store = OpenOrFail(options);
  std::uint64_t written = 0;
  for (int i = 0; i < 200; ++i) {
    const ArtifactRecord r = MakeRecord(Seed(i), 8 << 10);
    REQUIRE(store->Put(r).ok());
    written += Bytes(r);
    const StoreStats s = store->Stats();
    INFO("put " << i << ": total " << s.total_bytes);
    REQUIRE(s.total_bytes <= options.max_bytes + Bytes(r));
    REQUIRE(s.total_bytes == s.payload_bytes);
  }
  const StoreStats s = store->Stats();
  CHECK(s.evictions + s.artifacts == 200);
  CHECK(s.evicted_bytes + s.payload_bytes == written);
  CHECK(s.artifacts <= 13);
  CHECK(Present(*store, KeyFor(Seed(199))));  // the newest entry is never the victim
}

TEST_CASE("an entry read before each write survives while older ones are evicted",
          "[store][evict]") {
  TempDir dir;
  StoreOptions options = OptionsFor(dir);
  options.max_bytes = 100 << 10;
  // Never flushed on a timer: only the flush before each pass can save it.
  options.access_flush_interval = std::chrono::milliseconds(0);
  auto store = OpenOrFail(options);
  const ArtifactRecord hot = MakeRecord("hot", 8 << 10);
  REQUIRE(store->Put(hot).ok());
  for (int i = 0; i < 100; ++i) {
    REQUIRE(store->Put(MakeRecord(Seed(i), 8 << 10)).ok());
    REQUIRE(Present(*store, hot.key));
  }
  // At most cap + one entry is stored, and eviction only ever takes the
  // oldest: every entry but the newest dozen (and the hot one) is gone.
  for (int i = 0; i < 80; ++i) CHECK_FALSE(Present(*store, KeyFor(Seed(i))));
  CHECK(Present(*store, KeyFor(Seed(99))));
}

TEST_CASE("TrimTo evicts least recently used first; a read refreshes an entry", "[store][evict]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  const ArtifactRecord a = MakeRecord("a", 1000);
  const ArtifactRecord b = MakeRecord("b", 1000);
  const ArtifactRecord c = MakeRecord("c", 1000);
  const ArtifactRecord d = MakeRecord("d", 1000);
  for (const auto* r : {&a, &b, &c, &d}) REQUIRE(store->Put(*r).ok());
  REQUIRE(Present(*store, a.key));  // a becomes the most recently used

  auto trimmed = store->TrimTo(Bytes(a) + Bytes(c) + Bytes(d));
  REQUIRE(trimmed.ok());
  CHECK(trimmed->entries == 1);
  CHECK(trimmed->bytes == Bytes(b));
  CHECK_FALSE(Present(*store, b.key));
  CHECK(Present(*store, a.key));
  CHECK(Present(*store, c.key));
  CHECK(Present(*store, d.key));
}

TEST_CASE("TrimTo counts what it evicts and leaves the configured cap alone", "[store][evict]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));  // default cap: 10 GiB
  std::uint64_t all = 0;
  for (int i = 0; i < 6; ++i) {
    REQUIRE(store->Put(MakeRecord(Seed(i), 1000)).ok());
    all += Bytes(MakeRecord(Seed(i), 1000));
  }
  REQUIRE(store->PutStage(KeyFor("stage"), std::string(500, 's')).ok());
  all += 500;

  auto trimmed = store->TrimTo(2500);
  REQUIRE(trimmed.ok());
  StoreStats s = store->Stats();
  CHECK(s.total_bytes <= 2500);
  CHECK(trimmed->entries == 7 - s.artifacts - s.stage_entries);
  CHECK(trimmed->bytes == all - s.total_bytes);
  CHECK(s.evictions == trimmed->entries);
  CHECK(s.evicted_bytes == trimmed->bytes);
  for (int i = 0; i < 4; ++i) CHECK_FALSE(Present(*store, KeyFor(Seed(i))));

  // The cap is still 10 GiB: new entries are kept.
  for (int i = 10; i < 20; ++i) REQUIRE(store->Put(MakeRecord(Seed(i), 1000)).ok());
  CHECK(store->Stats().evictions == trimmed->entries);

  auto emptied = store->TrimTo(0);
  REQUIRE(emptied.ok());
  s = store->Stats();
  CHECK(s.total_bytes == 0);
  CHECK(s.artifacts == 0);
  CHECK(s.stage_entries == 0);
  CHECK(s.evicted_bytes == all + 10 * Bytes(MakeRecord(Seed(10), 1000)));
}

TEST_CASE("an entry larger than the cap is stored, then evicted before anything else",
          "[store][evict]") {
  TempDir dir;
  StoreOptions options = OptionsFor(dir);
  options.max_bytes = 10 << 10;
  auto store = OpenOrFail(options);
  std::vector<ArtifactRecord> small;
  for (int i = 0; i < 3; ++i) {
    small.push_back(MakeRecord(Seed(i), 1 << 10));
    REQUIRE(store->Put(small.back()).ok());
  }
  const ArtifactRecord big = MakeRecord("big", 20 << 10);
  REQUIRE(store->Put(big).ok());
  CHECK(store->Stats().total_bytes <= options.max_bytes + Bytes(big));

  // Whether the background pass got there first or not, one pass later the
  // big entry is gone and the small ones, though older, are all kept.
  REQUIRE(store->TrimTo(options.max_bytes).ok());
  CHECK_FALSE(Present(*store, big.key));
  for (const auto& r : small) CHECK(Present(*store, r.key));
  const StoreStats s = store->Stats();
  CHECK(s.evictions == 1);
  CHECK(s.evicted_bytes == Bytes(big));
  CHECK(s.artifacts == 3);
}

TEST_CASE("a store reopened with a lower cap evicts by the access order saved before",
          "[store][evict]") {
  TempDir dir;
  const ArtifactRecord a = MakeRecord("a", 1000);
  const ArtifactRecord b = MakeRecord("b", 1000);
  const ArtifactRecord c = MakeRecord("c", 1000);
  StoreStats before;
  {
    StoreOptions unlimited = OptionsFor(dir);
    unlimited.max_bytes = 0;
    unlimited.access_flush_interval = std::chrono::milliseconds(0);  // saved on close only
    auto store = OpenOrFail(unlimited);
    for (const auto* r : {&a, &b, &c}) REQUIRE(store->Put(*r).ok());
    REQUIRE(Present(*store, a.key));
    before = store->Stats();
  }
  StoreOptions capped = OptionsFor(dir);
  capped.max_bytes = Bytes(a) + Bytes(c) + 100;
  auto store = OpenOrFail(capped);
  // Opening over the cap asks for a pass; a write that finds the store still
  // over it by more than its own size waits for that pass.
  const std::string stage(50, 'p');
  REQUIRE(store->PutStage(KeyFor("small-stage"), stage).ok());
  const StoreStats after = store->Stats();
  CHECK(after.total_bytes <= capped.max_bytes + stage.size());
  CHECK(after.evictions == 1);
  CHECK(after.evicted_bytes == Bytes(b));
  CHECK(after.artifacts == before.artifacts - 1);
  CHECK_FALSE(Present(*store, b.key));
  CHECK(Present(*store, a.key));
  CHECK(Present(*store, c.key));
}

TEST_CASE("concurrent Put, PutStage, Get and eviction keep every counter exact",
          "[store][evict][concurrency]") {
  TempDir dir;
  StoreOptions options = OptionsFor(dir);
  options.max_bytes = 32 << 10;
  options.access_flush_interval = std::chrono::milliseconds(1);
  auto store = OpenOrFail(options);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 80;
  const auto record_seed = [](int t, int i) { return "t" + std::to_string(t) + "-" + Seed(i); };
  const auto stage_value = [](int t, int i) {
    return std::string(300 + 10 * i, static_cast<char>('a' + t));
  };
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const ArtifactRecord r = MakeRecord(record_seed(t, i), 1500 + i);
        if (!store->Put(r).ok()) ++failures;
        if (!store->PutStage(KeyFor(record_seed(t, i)), stage_value(t, i)).ok()) ++failures;
        // Reads race eviction: a hit must be intact, a miss is fine.
        for (int back : {0, 3, 10}) {
          const int j = i - back < 0 ? 0 : i - back;
          const int other = (t + back) % kThreads;
          auto got = store->Get(KeyFor(record_seed(other, j)));
          if (!got.ok()) ++failures;
          if (got.ok() && got->has_value() &&
              (*got)->payload != MakeRecord(record_seed(other, j), 1500 + j).payload) {
            ++failures;
          }
          auto stage = store->GetStage(KeyFor(record_seed(other, j)));
          if (!stage.ok()) ++failures;
          if (stage.ok() && stage->has_value() && **stage != stage_value(other, j)) ++failures;
        }
        if (i % 20 == 0 && !store->TrimTo(options.max_bytes / 2).ok()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures == 0);
  // Under the cap, a pass still in flight stops without evicting anything:
  // from here on the counters only change by what this thread does.
  REQUIRE(store->TrimTo(options.max_bytes).ok());

  // Recount from what is actually readable: counters must match exactly.
  std::uint64_t artifacts = 0, payload = 0, stages = 0, stage_bytes = 0, all = 0;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      const ArtifactRecord r = MakeRecord(record_seed(t, i), 1500 + i);
      all += Bytes(r) + stage_value(t, i).size();
      if (Present(*store, r.key)) {
        ++artifacts;
        payload += Bytes(r);
      }
      auto stage = store->GetStage(r.key);
      REQUIRE(stage.ok());
      if (stage->has_value()) {
        ++stages;
        stage_bytes += (*stage)->size();
      }
    }
  }
  const StoreStats s = store->Stats();
  CHECK(s.artifacts == artifacts);
  CHECK(s.payload_bytes == payload);
  CHECK(s.stage_entries == stages);
  CHECK(s.stage_bytes == stage_bytes);
  CHECK(s.evictions + artifacts + stages == 2 * kThreads * kPerThread);
  CHECK(s.evicted_bytes + payload + stage_bytes == all);
  CHECK(s.corrupt_dropped == 0);

  store.reset();
  StoreOptions unlimited = options;
  unlimited.max_bytes = 0;
  store = OpenOrFail(unlimited);
  const StoreStats reopened = store->Stats();
  CHECK(reopened.artifacts == s.artifacts);
  CHECK(reopened.total_bytes == s.total_bytes);
  auto verified = store->Verify();
  REQUIRE(verified.ok());
  CHECK(verified->dropped == 0);
  CHECK(verified->checked == s.artifacts + s.stage_entries);
}

}  // namespace
}  // namespace qdcache::store
