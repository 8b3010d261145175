// What the RocksDB store adds to the ArtifactStore contract (which the
// conformance suite checks, store_conformance_test.cc): blob files, and
// records, aliases, counters and access times that survive a reopen.
#include "store/artifact_store.h"

#include "tests/unit/store/store_conformance.h"
#include "tests/unit/store/store_test_util.h"

namespace qdcache::store {
namespace {

using namespace std::chrono_literals;
using testing::FakeClock;
using testing::KeyFor;
using testing::MakeRecord;
using testing::OpenOrFail;
using testing::OptionsFor;
using testing::OptionsWithClock;
using testing::TempDir;
using testing::conformance::GetOrFail;
using testing::conformance::ListedKeys;

TEST_CASE("a large payload round-trips through blob files", "[store]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  ArtifactRecord in = MakeRecord("large", 3 << 20);
  REQUIRE(store->Put(in).ok());
  auto out = GetOrFail(*store, in.key);
  REQUIRE(out.has_value());
  CHECK(out->payload == in.payload);
  store.reset();

  {
    testing::RawDb raw(dir.store_path());
    REQUIRE(raw.db()->Flush(rocksdb::FlushOptions(), raw.artifacts()).ok());
  }
  bool has_blob = false;
  for (const auto& entry : std::filesystem::directory_iterator(dir.store_path())) {
    if (entry.path().extension() == ".blob") has_blob = true;
  }
  CHECK(has_blob);
  store = OpenOrFail(OptionsFor(dir));
  CHECK(GetOrFail(*store, in.key)->payload == in.payload);
}

TEST_CASE("a reopened store keeps its records, aliases and counters", "[store]") {
  TempDir dir;
  ArtifactRecord r = MakeRecord("persist", 10000);
  const AliasKey alias{"uid:5", "ns", "cuda:sm_90", "fast"};
  StoreStats before;
  {
    auto store = OpenOrFail(OptionsFor(dir));
    REQUIRE(store->Put(r, alias).ok());
    REQUIRE(store->Put(MakeRecord("other")).ok());
    before = store->Stats();
  }
  auto store = OpenOrFail(OptionsFor(dir));
  auto out = GetOrFail(*store, r.key);
  REQUIRE(out.has_value());
  CHECK(out->payload == r.payload);
  CHECK(*store->GetAlias(alias) == r.key);
  const StoreStats after = store->Stats();
  CHECK(after.artifacts == before.artifacts);
  CHECK(after.aliases == before.aliases);
  CHECK(after.payload_bytes == before.payload_bytes);
}

TEST_CASE("sync_writes stores are readable like any other", "[store]") {
  TempDir dir;
  StoreOptions options = OptionsFor(dir);
  options.sync_writes = true;
  auto store = OpenOrFail(options);
  ArtifactRecord r = MakeRecord("synced");
  REQUIRE(store->Put(r).ok());
  CHECK(GetOrFail(*store, r.key).has_value());
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
    REQUIRE(GetOrFail(*store, a.key).has_value());
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

}  // namespace
}  // namespace qdcache::store

namespace qdcache::store {
namespace {

TEST_CASE("the generation moves after every write that replaces or removes what a read could have seen, not "
          "after reads, access times or writes that only add",
          "[store]") {
  testing::TempDir dir;
  auto store = testing::OpenOrFail(testing::OptionsFor(dir));
  auto generation = [&] {
    const std::optional<std::uint64_t> g = store->Generation();
    REQUIRE(g.has_value());
    return *g;
  };
  const ArtifactRecord r = testing::MakeRecord("generation", 1000);
  const AliasKey alias{"uid:5", "ns", "cuda:sm_90", "fast"};
  std::uint64_t g = generation();
  REQUIRE(store->Put(r, alias).ok());  // a new artifact and a new alias: nothing read before changes
  REQUIRE(store->PutStage(std::string(32, 's'), "ptx").ok());
  REQUIRE(store->PutAliasValue(AliasKey{"uid:5", "ns", "cuda:sm_90", "other"}, AliasValue{r.key, ""}).ok());
  CHECK(generation() == g);
  REQUIRE(store->Put(r).ok());  // the same artifact again: replaced
  CHECK(generation() != g);
  g = generation();
  REQUIRE(store->Put(testing::MakeRecord("rebound", 1000), alias).ok());  // an existing alias rebound
  CHECK(generation() != g);

  g = generation();
  REQUIRE(store->GetShared(r.key).ok());
  REQUIRE(store->GetAliasValue(alias).ok());
  store->RecordAccesses({r.key});
  REQUIRE(store->FlushAccessTimes().ok());
  CHECK(generation() == g);

  REQUIRE(store->PutAliasValue(alias, AliasValue{r.key, "manifest"}).ok());
  CHECK(generation() != g);
  g = generation();
  REQUIRE(store->Delete(r.key).ok());
  CHECK(generation() != g);
  g = generation();
  REQUIRE(store->TrimTo(0).ok());
  CHECK(generation() != g);
}

TEST_CASE("RecordAccesses moves artifacts in the eviction order as reads do", "[store]") {
  for (bool in_memory : {false, true}) {
    testing::TempDir dir;
    std::unique_ptr<ArtifactStore> store =
        in_memory ? ArtifactStore::OpenInMemory(StoreOptions{}) : testing::OpenOrFail(testing::OptionsFor(dir));
    const ArtifactRecord older = testing::MakeRecord("older", 1000), newer = testing::MakeRecord("newer", 1000);
    REQUIRE(store->Put(older).ok());
    REQUIRE(store->Put(newer).ok());
    store->RecordAccesses({older.key});
    REQUIRE(store->TrimTo(store->Stats().total_bytes - 1).ok());
    CHECK(store->GetShared(older.key).value() != nullptr);
    CHECK(store->GetShared(newer.key).value() == nullptr);
  }
}

TEST_CASE("a memory store keeps no generation", "[store]") {
  auto store = ArtifactStore::OpenInMemory(StoreOptions{});
  CHECK_FALSE(store->Generation().has_value());
}

}  // namespace
}  // namespace qdcache::store
