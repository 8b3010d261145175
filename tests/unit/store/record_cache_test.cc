// The in-memory cache of verified records: by itself (bounds, order,
// generations) and inside the store (a write, delete or eviction of an
// artifact is never answered from memory with the old record).
#include "store/record_cache.h"

#include "store/artifact_store.h"
#include "tests/unit/store/store_test_util.h"

namespace qdcache::store {
namespace {

using testing::KeyFor;
using testing::MakeRecord;
using testing::OpenOrFail;
using testing::OptionsFor;
using testing::TempDir;

std::shared_ptr<const ArtifactRecord> Shared(const std::string& seed, std::size_t payload = 64) {
  return std::make_shared<const ArtifactRecord>(MakeRecord(seed, payload));
}

TEST_CASE("the record cache returns what was inserted and counts its cost", "[store][record_cache]") {
  RecordCache cache(1 << 20);
  auto a = Shared("a");
  cache.Insert(a, cache.generation());
  CHECK(cache.Find(a->key) == a);
  CHECK(cache.Find(KeyFor("absent")) == nullptr);
  CHECK(cache.entries() == 1);
  CHECK(cache.bytes() == RecordCache::CostOf(*a));
}

TEST_CASE("the record cache drops the least recently used records beyond its bytes",
          "[store][record_cache]") {
  auto a = Shared("a", 1000), b = Shared("b", 1000), c = Shared("c", 1000);
  RecordCache cache(RecordCache::CostOf(*a) * 2 + 10);
  cache.Insert(a, cache.generation());
  cache.Insert(b, cache.generation());
  REQUIRE(cache.Find(a->key) != nullptr);  // a is now the most recent
  cache.Insert(c, cache.generation());
  CHECK(cache.Find(b->key) == nullptr);
  CHECK(cache.Find(a->key) != nullptr);
  CHECK(cache.Find(c->key) != nullptr);
  CHECK(cache.bytes() <= RecordCache::CostOf(*a) * 2 + 10);
}

TEST_CASE("the record cache keeps nothing larger than itself, and nothing at capacity 0",
          "[store][record_cache]") {
  auto big = Shared("big", 4096);
  RecordCache small(1024);
  small.Insert(big, small.generation());
  CHECK(small.Find(big->key) == nullptr);
  RecordCache off(0);
  off.Insert(Shared("x"), off.generation());
  CHECK(off.entries() == 0);
}

TEST_CASE("an insert read before an erase does not put the old record back", "[store][record_cache]") {
  RecordCache cache(1 << 20);
  auto old = Shared("k");
  const std::uint64_t before_read = cache.generation();
  cache.Erase(old->key);  // a writer replaced the key after the reader read it
  cache.Insert(old, before_read);
  CHECK(cache.Find(old->key) == nullptr);
  cache.Insert(old, cache.generation());  // a read after the write is fine
  CHECK(cache.Find(old->key) != nullptr);
  cache.Erase(old->key);
  CHECK(cache.Find(old->key) == nullptr);
  CHECK(cache.bytes() == 0);
}

TEST_CASE("a store hit is served from memory the second time and counted", "[store][record_cache]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  const ArtifactRecord r = MakeRecord("hot", 4096);
  REQUIRE(store->Put(r).ok());
  CHECK(store->Stats().memory_cache_entries == 0);  // a write does not fill the cache
  REQUIRE(store->Get(r.key)->has_value());
  CHECK(store->Stats().memory_cache_entries == 1);
  auto again = store->Get(r.key);
  REQUIRE(again.ok());
  REQUIRE(again->has_value());
  CHECK((*again)->payload == r.payload);
}

TEST_CASE("overwriting, deleting or trimming an artifact leaves no copy in memory",
          "[store][record_cache]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  ArtifactRecord r = MakeRecord("changing", 4096);
  REQUIRE(store->Put(r).ok());
  REQUIRE(store->Get(r.key)->has_value());

  SECTION("overwrite: the next read sees the new record") {
    r.compile_log = "recompiled";
    r.payload_digest.clear();
    r.payload[0] ^= 1;
    REQUIRE(store->Put(r).ok());
    auto got = store->Get(r.key);
    REQUIRE(got->has_value());
    CHECK((*got)->payload == r.payload);
    CHECK((*got)->compile_log == "recompiled");
  }
  SECTION("delete: the next read misses") {
    REQUIRE(store->Delete(r.key).ok());
    CHECK_FALSE(store->Get(r.key)->has_value());
    CHECK(store->Stats().memory_cache_entries == 0);
  }
  SECTION("trim to nothing: the next read misses") {
    REQUIRE(store->TrimTo(0).ok());
    CHECK_FALSE(store->Get(r.key)->has_value());
    CHECK(store->Stats().memory_cache_entries == 0);
  }
}

TEST_CASE("with the memory cache off every hit reads the disk", "[store][record_cache]") {
  TempDir dir;
  StoreOptions options = OptionsFor(dir);
  options.memory_cache_bytes = 0;
  auto store = OpenOrFail(options);
  const ArtifactRecord r = MakeRecord("cold");
  REQUIRE(store->Put(r).ok());
  REQUIRE(store->Get(r.key)->has_value());
  CHECK(store->Stats().memory_cache_entries == 0);
}

}  // namespace
}  // namespace qdcache::store
