// Conformance: the byte cap. Backpressure on writers, LRU order, entries
// larger than the cap first, TrimTo, EvictOlderThan and exact eviction
// counters. No case sleeps: the background pass is observed through Put's
// backpressure bound, or through TrimTo, which applies the same policy on
// the caller's thread.
// Part of the suite: include conformance/suite.h (see store_conformance.h).
#pragma once

#include "tests/unit/store/store_conformance.h"

namespace qdcache::store::testing::conformance {

TEMPLATE_TEST_CASE("after every Put the total stays within the cap plus that entry",
                   "[store][conformance][evict]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  const StoreOptions options = WithCap(100 << 10);
  auto store = factory.Make(options);
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
  // Whatever a pass still running does from here, this one ends with none.
  REQUIRE(store->TrimTo(options.max_bytes).ok());
  const StoreStats s = store->Stats();
  CHECK(s.evictions + s.artifacts == 200);
  CHECK(s.evicted_bytes + s.payload_bytes == written);
  CHECK(s.artifacts <= 13);
  CHECK(Present(*store, KeyFor(Seed(199))));  // the newest entry is never the victim
}

TEMPLATE_TEST_CASE("an entry read before each write survives while older ones are evicted",
                   "[store][conformance][evict]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  StoreOptions options = WithCap(100 << 10);
  // Never flushed on a timer: only the flush before each pass can save it.
  options.access_flush_interval = std::chrono::milliseconds(0);
  auto store = factory.Make(options);
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

TEMPLATE_TEST_CASE("TrimTo evicts least recently used first, and a read refreshes an entry",
                   "[store][conformance][evict]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
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

TEMPLATE_TEST_CASE("artifacts and stage outputs share one LRU order", "[store][conformance][evict]",
                   QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  REQUIRE(store->PutStage(KeyFor("stage-old"), std::string(1000, 'o')).ok());
  const ArtifactRecord a = MakeRecord("a", 1000);
  REQUIRE(store->Put(a).ok());
  REQUIRE(store->PutStage(KeyFor("stage-new"), std::string(1000, 'n')).ok());
  REQUIRE(GetStageOrFail(*store, KeyFor("stage-old")).has_value());  // now the newest

  auto trimmed = store->TrimTo(2000);
  REQUIRE(trimmed.ok());
  CHECK(trimmed->entries == 1);
  CHECK_FALSE(Present(*store, a.key));
  CHECK(GetStageOrFail(*store, KeyFor("stage-old")).has_value());
  CHECK(GetStageOrFail(*store, KeyFor("stage-new")).has_value());
}

TEMPLATE_TEST_CASE("TrimTo counts what it evicts and leaves the configured cap alone",
                   "[store][conformance][evict]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});  // default cap: 10 GiB
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

TEMPLATE_TEST_CASE("an entry larger than the cap is stored, then evicted before anything else",
                   "[store][conformance][evict]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  const StoreOptions options = WithCap(10 << 10);
  auto store = factory.Make(options);
  std::vector<ArtifactRecord> small;
  for (int i = 0; i < 3; ++i) {
    small.push_back(MakeRecord(Seed(i), 1 << 10));
    REQUIRE(store->Put(small.back()).ok());
  }
  REQUIRE(store->PutStage(KeyFor("stage"), std::string(1 << 10, 's')).ok());
  const ArtifactRecord big = MakeRecord("big", 20 << 10);
  REQUIRE(store->Put(big).ok());
  CHECK(store->Stats().total_bytes <= options.max_bytes + Bytes(big));

  // Whether the background pass got there first or not, one pass later the
  // big entry is gone and the small ones, though older, are all kept.
  REQUIRE(store->TrimTo(options.max_bytes).ok());
  CHECK_FALSE(Present(*store, big.key));
  for (const auto& r : small) CHECK(Present(*store, r.key));
  CHECK(GetStageOrFail(*store, KeyFor("stage")).has_value());
  const StoreStats s = store->Stats();
  CHECK(s.evictions == 1);
  CHECK(s.evicted_bytes == Bytes(big));
  CHECK(s.artifacts == 3);
}

TEMPLATE_TEST_CASE("TrimTo evicts entries larger than its limit first, whatever their age",
                   "[store][conformance][evict]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  const ArtifactRecord old_small = MakeRecord("old-small", 1000);
  REQUIRE(store->Put(old_small).ok());
  REQUIRE(store->PutStage(KeyFor("new-large"), std::string(6000, 'l')).ok());
  const ArtifactRecord newest = MakeRecord("newest", 1000);
  REQUIRE(store->Put(newest).ok());

  auto trimmed = store->TrimTo(5000);
  REQUIRE(trimmed.ok());
  CHECK(trimmed->entries == 1);
  CHECK(trimmed->bytes == 6000);
  CHECK_FALSE(GetStageOrFail(*store, KeyFor("new-large")).has_value());
  CHECK(Present(*store, old_small.key));
  CHECK(Present(*store, newest.key));
}

TEMPLATE_TEST_CASE("EvictOlderThan removes artifacts and stages not used within the age",
                   "[store][conformance][evict]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  using namespace std::chrono_literals;
  TestType factory;
  auto clock = FakeClock::Make();
  auto store = factory.Make(WithClock(clock));
  const ArtifactRecord old_but_read = MakeRecord("old-but-read", 500);
  const ArtifactRecord stale = MakeRecord("stale", 700);
  const ArtifactRecord fresh = MakeRecord("fresh", 900);
  REQUIRE(store->Put(old_but_read).ok());
  REQUIRE(store->Put(stale).ok());
  REQUIRE(store->PutStage(KeyFor("stale-stage"), std::string(250, 's')).ok());
  clock->Advance(10min);
  REQUIRE(store->PutStage(KeyFor("fresh-stage"), std::string(50, 'f')).ok());
  REQUIRE(Present(*store, old_but_read.key));
  clock->Advance(4min);
  REQUIRE(store->Put(fresh).ok());
  clock->Advance(1min);

  auto evicted = store->EvictOlderThan(6min);
  REQUIRE(evicted.ok());
  CHECK(evicted->entries == 2);
  CHECK(evicted->bytes == Bytes(stale) + 250);
  CHECK_FALSE(Present(*store, stale.key));
  CHECK_FALSE(GetStageOrFail(*store, KeyFor("stale-stage")).has_value());
  CHECK(Present(*store, old_but_read.key));
  CHECK(Present(*store, fresh.key));
  CHECK(GetStageOrFail(*store, KeyFor("fresh-stage")) == std::string(50, 'f'));
  const StoreStats s = store->Stats();
  CHECK(s.evictions == 2);
  CHECK(s.evicted_bytes == Bytes(stale) + 250);
  CHECK(s.total_bytes == Bytes(old_but_read) + Bytes(fresh) + 50);

  auto nothing = store->EvictOlderThan(1h);
  REQUIRE(nothing.ok());
  CHECK(nothing->entries == 0);
}

}  // namespace qdcache::store::testing::conformance
