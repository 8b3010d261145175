// Admin operations: List, EvictOlderThan, Verify, and access times that
// survive a reopen. Times come from a fake clock, so ages are exact.
#include <algorithm>

#include "store/artifact_store.h"
#include "store/record_codec.h"
#include "tests/unit/store/store_test_util.h"

namespace qdcache::store {
namespace {

using namespace std::chrono_literals;
using testing::Bytes;
using testing::FakeClock;
using testing::KeyFor;
using testing::MakeRecord;
using testing::OpenOrFail;
using testing::OptionsFor;
using testing::OptionsWithClock;
using testing::RawDb;
using testing::TempDir;

std::vector<std::string> ListedKeys(ArtifactStore& store, std::size_t limit = 0) {
  auto listed = store.List(limit);
  INFO(listed.status().ToString());
  REQUIRE(listed.ok());
  std::vector<std::string> keys;
  for (const EntrySummary& e : *listed) keys.push_back(e.key);
  return keys;
}

void Touch(ArtifactStore& store, const ArtifactKey& key) {
  auto got = store.Get(key);
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
}

TEST_CASE("List reports artifacts most recently used first, with their facts", "[store][admin]") {
  TempDir dir;
  auto clock = FakeClock::Make();
  auto store = OpenOrFail(OptionsWithClock(dir, clock));
  ArtifactRecord a = MakeRecord("a", 100);
  ArtifactRecord b = MakeRecord("b", 2000);
  b.kind = 2;
  b.target = "cpu:x86-64";
  b.compile_micros = 987654;
  ArtifactRecord c = MakeRecord("c", 300);
  const std::uint64_t created_a = clock->NowUnixMs();
  REQUIRE(store->Put(a).ok());
  clock->Advance(1s);
  const std::uint64_t created_b = clock->NowUnixMs();
  REQUIRE(store->Put(b).ok());
  clock->Advance(1s);
  REQUIRE(store->Put(c).ok());
  REQUIRE(store->PutStage(KeyFor("stage"), "not listed").ok());
  clock->Advance(1s);
  const std::uint64_t read_a = clock->NowUnixMs();
  Touch(*store, a.key);

  auto listed = store->List();
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 3);
  CHECK((*listed)[0].key == a.key);
  CHECK((*listed)[1].key == c.key);
  CHECK((*listed)[2].key == b.key);
  const EntrySummary& first = (*listed)[0];
  CHECK(first.created_unix_ms == created_a);
  CHECK(first.last_access_unix_ms == read_a);
  CHECK(first.bytes == Bytes(a));
  const EntrySummary& last = (*listed)[2];
  CHECK(last.kind == 2);
  CHECK(last.target == "cpu:x86-64");
  CHECK(last.toolchain == b.toolchain);
  CHECK(last.bytes == Bytes(b));
  CHECK(last.created_unix_ms == created_b);
  CHECK(last.last_access_unix_ms == created_b);
  CHECK(last.compile_micros == 987654);

  CHECK(ListedKeys(*store, 2) == std::vector<std::string>{a.key, c.key});
}

TEST_CASE("List does not count as an access", "[store][admin]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  const ArtifactRecord a = MakeRecord("a");
  const ArtifactRecord b = MakeRecord("b");
  REQUIRE(store->Put(a).ok());
  REQUIRE(store->Put(b).ok());
  CHECK(ListedKeys(*store) == std::vector<std::string>{b.key, a.key});
  CHECK(ListedKeys(*store) == std::vector<std::string>{b.key, a.key});
}

TEST_CASE("EvictOlderThan removes artifacts and stages not used within the age", "[store][admin]") {
  TempDir dir;
  auto clock = FakeClock::Make();
  auto store = OpenOrFail(OptionsWithClock(dir, clock));
  const ArtifactRecord old_but_read = MakeRecord("old-but-read", 500);
  const ArtifactRecord stale = MakeRecord("stale", 700);
  const ArtifactRecord fresh = MakeRecord("fresh", 900);
  REQUIRE(store->Put(old_but_read).ok());
  REQUIRE(store->Put(stale).ok());
  REQUIRE(store->PutStage(KeyFor("stale-stage"), std::string(250, 's')).ok());
  clock->Advance(10min);
  REQUIRE(store->PutStage(KeyFor("fresh-stage"), std::string(50, 'f')).ok());
  Touch(*store, old_but_read.key);
  clock->Advance(4min);
  REQUIRE(store->Put(fresh).ok());
  clock->Advance(1min);

  auto evicted = store->EvictOlderThan(6min);
  REQUIRE(evicted.ok());
  CHECK(evicted->entries == 2);
  CHECK(evicted->bytes == Bytes(stale) + 250);
  CHECK_FALSE(store->Get(stale.key)->has_value());
  CHECK_FALSE(store->GetStage(KeyFor("stale-stage"))->has_value());
  CHECK(store->Get(old_but_read.key)->has_value());
  CHECK(store->Get(fresh.key)->has_value());
  CHECK(*store->GetStage(KeyFor("fresh-stage")) == std::string(50, 'f'));
  const StoreStats s = store->Stats();
  CHECK(s.evictions == 2);
  CHECK(s.evicted_bytes == Bytes(stale) + 250);
  CHECK(s.total_bytes == Bytes(old_but_read) + Bytes(fresh) + 50);

  auto nothing = store->EvictOlderThan(1h);
  REQUIRE(nothing.ok());
  CHECK(nothing->entries == 0);
}

TEST_CASE("an evicted artifact leaves its alias dangling, resolving to a miss",
          "[store][admin][alias]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  const ArtifactRecord r = MakeRecord("aliased");
  AliasKey alias;
  alias.fast_key = "fast";
  REQUIRE(store->Put(r, alias).ok());
  REQUIRE(store->TrimTo(0).ok());
  CHECK(*store->GetAlias(alias) == r.key);
  CHECK_FALSE(store->Get(r.key)->has_value());
  CHECK(store->Stats().aliases == 1);
}

TEST_CASE("access times and counters survive a reopen exactly", "[store][admin]") {
  TempDir dir;
  auto clock = FakeClock::Make();
  const ArtifactRecord a = MakeRecord("a", 100);
  const ArtifactRecord b = MakeRecord("b", 200);
  const ArtifactRecord c = MakeRecord("c", 300);
  StoreStats before;
  std::vector<EntrySummary> listed_before;
  {
    StoreOptions options = OptionsWithClock(dir, clock);
    options.access_flush_interval = 0ms;  // pending reads are saved by the close
    auto store = OpenOrFail(options);
    for (const auto* r : {&a, &b, &c}) {
      REQUIRE(store->Put(*r).ok());
      clock->Advance(1s);
    }
    REQUIRE(store->PutStage(KeyFor("stage"), "ptx").ok());
    Touch(*store, a.key);
    before = store->Stats();
  }
  auto store = OpenOrFail(OptionsWithClock(dir, clock));
  const StoreStats after = store->Stats();
  CHECK(after.artifacts == before.artifacts);
  CHECK(after.aliases == before.aliases);
  CHECK(after.payload_bytes == before.payload_bytes);
  CHECK(after.stage_entries == before.stage_entries);
  CHECK(after.stage_bytes == before.stage_bytes);
  CHECK(after.total_bytes == before.total_bytes);
  CHECK(ListedKeys(*store) == std::vector<std::string>{a.key, c.key, b.key});

  // A write after reopen is newer than everything before it, even though
  // the clock has not moved since the read of `a`.
  const ArtifactRecord d = MakeRecord("d", 50);
  REQUIRE(store->Put(d).ok());
  CHECK(ListedKeys(*store, 1) == std::vector<std::string>{d.key});
}

TEST_CASE("Verify drops corrupt artifacts, stages and aliases and nothing else",
          "[store][admin][corruption]") {
  TempDir dir;
  const ArtifactRecord bad = MakeRecord("bad", 3000);
  const ArtifactRecord good = MakeRecord("good", 3000);
  AliasKey bad_alias;
  bad_alias.fast_key = "bad";
  AliasKey good_alias;
  good_alias.fast_key = "good";
  AliasKey dangling;
  dangling.fast_key = "dangling";
  {
    auto store = OpenOrFail(OptionsFor(dir));
    REQUIRE(store->Put(bad, bad_alias).ok());
    REQUIRE(store->Put(good, good_alias).ok());
    REQUIRE(store->PutAlias(dangling, KeyFor("never-stored")).ok());
    REQUIRE(store->PutStage(KeyFor("bad-stage"), std::string(400, 'b')).ok());
    REQUIRE(store->PutStage(KeyFor("good-stage"), std::string(600, 'g')).ok());
  }
  {
    RawDb raw(dir.store_path());
    std::string value = *raw.Get(raw.artifacts(), bad.key);
    value[value.size() / 2] ^= 0x01;
    raw.Put(raw.artifacts(), bad.key, value);
    value = *raw.Get(raw.stages(), KeyFor("bad-stage"));
    value.back() ^= 0x01;
    raw.Put(raw.stages(), KeyFor("bad-stage"), value);
    raw.Put(raw.aliases(), EncodeAliasKey(bad_alias),
            *raw.Get(raw.aliases(), EncodeAliasKey(good_alias)));
  }
  auto store = OpenOrFail(OptionsFor(dir));
  auto verified = store->Verify();
  REQUIRE(verified.ok());
  CHECK(verified->checked == 2 + 2 + 3);
  CHECK(verified->dropped == 3);
  std::vector<std::string> keys = verified->dropped_keys;
  std::sort(keys.begin(), keys.end());
  std::vector<std::string> expected = {bad.key, KeyFor("bad-stage"), EncodeAliasKey(bad_alias)};
  std::sort(expected.begin(), expected.end());
  CHECK(keys == expected);

  const StoreStats s = store->Stats();
  CHECK(s.corrupt_dropped == 3);
  CHECK(s.artifacts == 1);
  CHECK(s.stage_entries == 1);
  CHECK(s.aliases == 2);
  CHECK(s.total_bytes == Bytes(good) + 600);
  CHECK(*store->GetAlias(good_alias) == good.key);
  CHECK(*store->GetAlias(dangling) == KeyFor("never-stored"));

  auto again = store->Verify();
  REQUIRE(again.ok());
  CHECK(again->checked == 1 + 1 + 2);
  CHECK(again->dropped == 0);
  CHECK(store->Stats().corrupt_dropped == 3);
}

}  // namespace
}  // namespace qdcache::store
