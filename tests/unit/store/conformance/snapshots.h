// Conformance: snapshots (OpenSnapshot). A consistent view as of one moment,
// verified, scoped for aliases, and never an access.
// Part of the suite: include conformance/suite.h (see store_conformance.h).
#pragma once

#include <map>
#include <set>

#include "tests/unit/store/store_conformance.h"

namespace qdcache::store::testing::conformance {

inline std::set<ArtifactKey> AllArtifacts(StoreSnapshot& snapshot) {
  std::set<ArtifactKey> keys;
  for (;;) {
    auto next = snapshot.NextArtifact();
    REQUIRE(next.ok());
    if (!next->has_value()) return keys;
    keys.insert((*next)->record.key);
  }
}

inline std::vector<AliasKey> AllAliases(StoreSnapshot& snapshot) {
  std::vector<AliasKey> out;
  for (;;) {
    auto next = snapshot.NextAlias();
    REQUIRE(next.ok());
    if (!next->has_value()) return out;
    out.push_back((*next)->alias);
  }
}

inline std::unique_ptr<StoreSnapshot> Snapshot(ArtifactStore& store, AliasScope scope = {}) {
  auto snapshot = store.OpenSnapshot(scope);
  INFO(snapshot.status().ToString());
  REQUIRE(snapshot.ok());
  return std::move(snapshot).value();
}

inline std::uint64_t LastAccessOrFail(StoreSnapshot& snapshot, const ArtifactKey& key) {
  auto last = snapshot.LastAccess(key);
  REQUIRE(last.ok());
  REQUIRE(last->has_value());
  return **last;
}

TEMPLATE_TEST_CASE("a snapshot walks every artifact, verified, with its last access time",
                   "[store][conformance][snapshot]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto clock = FakeClock::Make();
  auto store = factory.Make(WithClock(clock));
  for (const char* seed : {"a", "b", "c"}) REQUIRE(store->Put(MakeRecord(seed)).ok());
  clock->Advance(std::chrono::seconds(10));
  REQUIRE(Present(*store, KeyFor("b")));  // an access, current in the snapshot
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

TEMPLATE_TEST_CASE("a snapshot does not see what is written or deleted after it was opened",
                   "[store][conformance][snapshot]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  REQUIRE(store->Put(MakeRecord("before"), MakeAlias("uid:1", "ns", "t", "k1")).ok());
  auto snapshot = Snapshot(*store);
  REQUIRE(store->Put(MakeRecord("after"), MakeAlias("uid:1", "ns", "t", "k2")).ok());
  REQUIRE(store->Delete(KeyFor("before")).ok());
  CHECK(AllArtifacts(*snapshot) == std::set<ArtifactKey>{KeyFor("before")});
  CHECK(AllAliases(*snapshot).size() == 1);
  auto read = snapshot->ReadArtifact(KeyFor("before"));
  REQUIRE(read.ok());
  REQUIRE(read->has_value());
  CHECK((*read)->record.payload == MakeRecord("before").payload);
  auto absent = snapshot->ReadArtifact(KeyFor("after"));
  REQUIRE(absent.ok());
  CHECK_FALSE(absent->has_value());
  CHECK_FALSE(snapshot->LastAccess(KeyFor("after"))->has_value());
  CHECK(snapshot->LastAccess(KeyFor("before"))->has_value());
}

TEMPLATE_TEST_CASE(
    "a snapshot's alias walk covers its scope: a tenant, a tenant's namespace, a namespace, all",
    "[store][conformance][snapshot]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  const ArtifactKey key = KeyFor("x");
  REQUIRE(store->Put(MakeRecord("x")).ok());
  for (const AliasKey& a : {MakeAlias("uid:1", "ns", "cuda:sm_90", "k1"),
                            MakeAlias("uid:1", "other", "cuda:sm_90", "k2"),
                            MakeAlias("uid:12", "ns", "cuda:sm_90", "k3"),
                            MakeAlias("token:ci", "ns", "cuda:sm_90", "k4")}) {
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

TEMPLATE_TEST_CASE("a snapshot skips and drops a damaged artifact and alias and walks on",
                   "[store][conformance][snapshot][corruption]",
                   QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  for (const char* seed : {"a", "b", "c"}) {
    REQUIRE(store->Put(MakeRecord(seed), MakeAlias("uid:1", "ns", "t", seed)).ok());
  }
  store = factory.Damage(std::move(store), DamageTarget::Artifact(KeyFor("b")));
  store = factory.Damage(std::move(store), DamageTarget::Alias(MakeAlias("uid:1", "ns", "t", "c")));
  {
    auto snapshot = Snapshot(*store);
    CHECK(AllArtifacts(*snapshot) == std::set<ArtifactKey>{KeyFor("a"), KeyFor("c")});
    CHECK(AllAliases(*snapshot).size() == 2);
  }
  const StoreStats s = store->Stats();
  CHECK(s.corrupt_dropped == 2);
  CHECK(s.artifacts == 2);
  CHECK(s.aliases == 2);
}

TEMPLATE_TEST_CASE("reading through a snapshot is not an access", "[store][conformance][snapshot]",
                   QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto clock = FakeClock::Make();
  auto store = factory.Make(WithClock(clock));
  REQUIRE(store->Put(MakeRecord("a")).ok());
  REQUIRE(store->Put(MakeRecord("b")).ok());
  const std::uint64_t before = LastAccessOrFail(*Snapshot(*store), KeyFor("a"));
  clock->Advance(std::chrono::seconds(5));
  {
    auto snapshot = Snapshot(*store);
    CHECK(AllArtifacts(*snapshot).size() == 2);
    REQUIRE(snapshot->ReadArtifact(KeyFor("a")).ok());
  }
  CHECK(LastAccessOrFail(*Snapshot(*store), KeyFor("a")) == before);
  CHECK(ListedKeys(*store) == std::vector<std::string>{KeyFor("b"), KeyFor("a")});
}

}  // namespace qdcache::store::testing::conformance
