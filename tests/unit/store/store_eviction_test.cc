// What the RocksDB store adds to the byte cap (the policy itself is the
// conformance suite's, conformance/eviction.h, and eviction_test.cc's): the
// access order and counters it persists, so that a reopened store evicts
// and counts as if it had never closed.
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

TEST_CASE("counters kept through background eviction are what a reopened store finds",
          "[store][evict]") {
  TempDir dir;
  StoreOptions options = OptionsFor(dir);
  options.max_bytes = 32 << 10;
  options.access_flush_interval = std::chrono::milliseconds(1);
  StoreStats before;
  {
    auto store = OpenOrFail(options);
    for (int i = 0; i < 100; ++i) {
      REQUIRE(store->Put(MakeRecord(Seed(i), 1500 + i)).ok());
      REQUIRE(store->PutStage(KeyFor(Seed(i)), std::string(300 + i, 's')).ok());
      REQUIRE(store->Get(KeyFor(Seed(i / 2))).ok());
    }
    // Under the cap, a pass still in flight stops without evicting anything.
    REQUIRE(store->TrimTo(options.max_bytes).ok());
    before = store->Stats();
  }
  REQUIRE(before.evictions > 0);
  StoreOptions unlimited = options;
  unlimited.max_bytes = 0;
  auto store = OpenOrFail(unlimited);
  const StoreStats after = store->Stats();
  CHECK(after.artifacts == before.artifacts);
  CHECK(after.payload_bytes == before.payload_bytes);
  CHECK(after.stage_entries == before.stage_entries);
  CHECK(after.stage_bytes == before.stage_bytes);
  auto verified = store->Verify();
  REQUIRE(verified.ok());
  CHECK(verified->dropped == 0);
  CHECK(verified->checked == before.artifacts + before.stage_entries);
}

}  // namespace
}  // namespace qdcache::store
