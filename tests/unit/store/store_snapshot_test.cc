// Snapshots (ArtifactStore::OpenSnapshot): consistent, bounded walks over
// artifacts and one scope of aliases, for export.
#include <map>
#include <set>

#include "store/artifact_store.h"
#include "tests/unit/store/store_test_util.h"

namespace qdcache::store {
namespace {

using testing::FakeClock;
using testing::KeyFor;
using testing::MakeRecord;
using testing::OpenOrFail;
using testing::OptionsFor;
using testing::OptionsWithClock;
using testing::RawDb;
using testing::TempDir;

std::set<ArtifactKey> AllArtifacts(StoreSnapshot& snapshot) {
  std::set<ArtifactKey> keys;
  for (;;) {
    auto next = snapshot.NextArtifact();
    REQUIRE(next.ok());
    if (!next->has_value()) return keys;
    keys.insert((*next)->record.key);
  }
}

std::vector<AliasKey> AllAliases(StoreSnapshot& snapshot) {
  std::vector<AliasKey> out;
  for (;;) {
    auto next = snapshot.NextAlias();
    REQUIRE(next.ok());
    if (!next->has_value()) return out;
    out.push_back((*next)->alias);
  }
}

AliasKey Alias(const std::string& tenant, const std::string& ns, const std::string& fast_key) {
  return AliasKey{tenant, ns, "cuda:sm_90", fast_key};
}

std::unique_ptr<StoreSnapshot> Snapshot(ArtifactStore& store, AliasScope scope = {}) {
  auto snapshot = store.OpenSnapshot(scope);
  REQUIRE(snapshot.ok());
  return std::move(snapshot).value();
}

}  // namespace

TEST_CASE("a snapshot walks every artifact, verified, with its last access time",
          "[store][snapshot]") {
  TempDir dir;
  auto clock = FakeClock::Make();
  auto store = OpenOrFail(OptionsWithClock(dir, clock));
  for (const char* seed : {"a", "b", "c"}) REQUIRE(store->Put(MakeRecord(seed)).ok());
  clock->Advance(std::chrono::seconds(10));
  REQUIRE(store->Get(KeyFor("b")).ok());  // an access, persisted by OpenSnapshot
  auto snapshot = Snapshot(*store);
  std::map<ArtifactKey, StoredArtifact> seen;
  for (;;) {
    auto next = snapshot->NextArtifact();
    REQUIRE(next.ok());
    if (!next->has_value()) break;
    seen[(*next)->record.key] = **next;
  }
  REQUIRE(seen.size() == 3);
  CHECK(seen[KeyFor("a")].record.payload == MakeRecord("a").payload);
  CHECK(seen[KeyFor("a")].record.toolchain == "toolchain-a");
  CHECK(seen[KeyFor("a")].last_access_unix_ms >= FakeClock::kStartMicros / 1000);
  CHECK(seen[KeyFor("b")].last_access_unix_ms >= seen[KeyFor("a")].last_access_unix_ms + 10'000);
}

TEST_CASE("a snapshot does not see what is written or deleted after it was opened",
          "[store][snapshot]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  REQUIRE(store->Put(MakeRecord("before"), Alias("uid:1", "ns", "k1")).ok());
  auto snapshot = Snapshot(*store);
  REQUIRE(store->Put(MakeRecord("after"), Alias("uid:1", "ns", "k2")).ok());
  REQUIRE(store->Delete(KeyFor("before")).ok());
  CHECK(AllArtifacts(*snapshot) == std::set<ArtifactKey>{KeyFor("before")});
  CHECK(AllAliases(*snapshot).size() == 1);
  auto read = snapshot->ReadArtifact(KeyFor("before"));
  REQUIRE(read.ok());
  CHECK(read->has_value());
  auto absent = snapshot->ReadArtifact(KeyFor("after"));
  REQUIRE(absent.ok());
  CHECK_FALSE(absent->has_value());
  CHECK_FALSE(snapshot->LastAccess(KeyFor("after"))->has_value());
  CHECK(snapshot->LastAccess(KeyFor("before"))->has_value());
}

TEST_CASE(
    "a snapshot's alias walk covers its scope: a tenant, a tenant's namespace, a namespace, all",
    "[store][snapshot]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  const ArtifactKey key = KeyFor("x");
  REQUIRE(store->Put(MakeRecord("x")).ok());
  for (const AliasKey& a : {Alias("uid:1", "ns", "k1"), Alias("uid:1", "other", "k2"),
                            Alias("uid:12", "ns", "k3"), Alias("token:ci", "ns", "k4")}) {
    REQUIRE(store->PutAlias(a, key).ok());
  }
  const auto fast_keys = [&](AliasScope scope) {
    auto snapshot = Snapshot(*store, scope);
    std::set<std::string> out;
    for (const AliasKey& a : AllAliases(*snapshot)) out.insert(a.fast_key);
    return out;
  };
  // "uid:1" must not match "uid:12": the prefix is length-delimited.
  CHECK(fast_keys({"uid:1", std::nullopt}) == std::set<std::string>{"k1", "k2"});
  CHECK(fast_keys({"uid:1", "ns"}) == std::set<std::string>{"k1"});
  CHECK(fast_keys({std::nullopt, "ns"}) == std::set<std::string>{"k1", "k3", "k4"});
  CHECK(fast_keys({}) == std::set<std::string>{"k1", "k2", "k3", "k4"});
  auto snapshot = Snapshot(*store, {"token:ci", std::nullopt});
  auto alias = snapshot->NextAlias();
  REQUIRE(alias.ok());
  REQUIRE(alias->has_value());
  CHECK((*alias)->alias.tenant == "token:ci");
  CHECK((*alias)->alias.target == "cuda:sm_90");
  CHECK((*alias)->key == key);
}

TEST_CASE("a snapshot skips and drops a damaged artifact and walks on", "[store][snapshot]") {
  TempDir dir;
  {
    auto store = OpenOrFail(OptionsFor(dir));
    for (const char* seed : {"a", "b", "c"}) REQUIRE(store->Put(MakeRecord(seed)).ok());
  }
  {
    RawDb raw(dir.store_path());
    std::string value = *raw.Get(raw.artifacts(), KeyFor("b"));
    value[value.size() / 2] = static_cast<char>(value[value.size() / 2] ^ 0x40);
    raw.Put(raw.artifacts(), KeyFor("b"), value);
  }
  auto store = OpenOrFail(OptionsFor(dir));
  {
    auto snapshot = Snapshot(*store);
    CHECK(AllArtifacts(*snapshot) == std::set<ArtifactKey>{KeyFor("a"), KeyFor("c")});
  }
  CHECK(store->Stats().corrupt_dropped == 1);
  CHECK(store->Stats().artifacts == 2);
}

TEST_CASE("reading through a snapshot is not an access", "[store][snapshot]") {
  TempDir dir;
  auto clock = FakeClock::Make();
  auto store = OpenOrFail(OptionsWithClock(dir, clock));
  REQUIRE(store->Put(MakeRecord("a")).ok());
  const std::uint64_t before = *store->OpenSnapshot({}).value()->LastAccess(KeyFor("a")).value();
  clock->Advance(std::chrono::seconds(5));
  {
    auto snapshot = Snapshot(*store);
    CHECK(AllArtifacts(*snapshot).size() == 1);
    REQUIRE(snapshot->ReadArtifact(KeyFor("a")).ok());
  }
  CHECK(*Snapshot(*store)->LastAccess(KeyFor("a")).value() == before);
}

}  // namespace qdcache::store
