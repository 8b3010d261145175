// The ArtifactStore conformance suite: the contract of store/artifact_store.h
// written once as Catch2 template test cases (conformance/*.h), run against
// every store that claims to keep it (misses vs errors, overwrite, aliases,
// stages, the byte cap and LRU eviction, counters, corruption as a dropped
// and counted miss, List / EvictOlderThan / TrimTo / Verify, snapshots,
// concurrency). This header holds what a store must provide to be tested,
// and the helpers the cases share.
//
// To run the suite against stores, include conformance/suite.h from exactly
// one .cc of a test binary, after defining
// QDCACHE_STORE_CONFORMANCE_FACTORIES as the comma-separated factory types,
// each named so that lookup finds it from namespace
// qdcache::store::testing::conformance (its name, as written, ends each test
// case's name):
//
//   #include "tests/unit/store/store_factories.h"
//   #define QDCACHE_STORE_CONFORMANCE_FACTORIES RocksDbFactory, MemoryFactory
//   #include "tests/unit/store/conformance/suite.h"
//
// A factory F:
//   F();  one per test case run, destroyed after every store it made. It
//         owns whatever its stores need (a directory, a Redis server, ...).
//   std::unique_ptr<ArtifactStore> Make(StoreOptions options);
//         A new, empty store. The suite sets max_bytes, clock,
//         access_flush_interval and memory_cache_bytes as a case needs; F
//         sets path and whatever else is its own. Fails the test case
//         (REQUIRE) when it cannot.
//   std::unique_ptr<ArtifactStore> Damage(std::unique_ptr<ArtifactStore> store,
//                                         const DamageTarget& target);
//         Changes the bytes `store` holds for `target`, as damage at rest
//         would, so that the next read of it fails verification (the entry
//         must exist; fail the test case otherwise). Returns the store to go
//         on with: `store` itself, or a reopened one over the same data for
//         a store that has to be closed to be damaged. Entries, aliases,
//         byte counters and LRU order stay as they were; counters since
//         open (corrupt_dropped, evictions, evicted_bytes) may restart at 0,
//         so the suite reads them only after its last Damage.
#pragma once

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "store/artifact_store.h"
#include "tests/unit/store/store_test_util.h"

namespace qdcache::store::testing {

// What a factory's Damage hook damages: an artifact, a stage output or an
// alias.
struct DamageTarget {
  enum class What { kArtifact, kStage, kAlias };
  What what = What::kArtifact;
  std::string key;  // kArtifact: the artifact key; kStage: the stage key
  AliasKey alias;   // kAlias

  static DamageTarget Artifact(ArtifactKey key) { return {What::kArtifact, std::move(key), {}}; }
  static DamageTarget Stage(std::string key) { return {What::kStage, std::move(key), {}}; }
  static DamageTarget Alias(AliasKey alias) { return {What::kAlias, {}, std::move(alias)}; }
};

namespace conformance {

inline std::optional<ArtifactRecord> GetOrFail(ArtifactStore& store, const ArtifactKey& key) {
  auto got = store.Get(key);
  INFO(got.status().ToString());
  REQUIRE(got.ok());
  return *got;
}

inline bool Present(ArtifactStore& store, const ArtifactKey& key) {
  return GetOrFail(store, key).has_value();
}

inline std::optional<ArtifactKey> GetAliasOrFail(ArtifactStore& store, const AliasKey& alias) {
  auto got = store.GetAlias(alias);
  INFO(got.status().ToString());
  REQUIRE(got.ok());
  return *got;
}

inline std::optional<std::string> GetStageOrFail(ArtifactStore& store, const std::string& key) {
  auto got = store.GetStage(key);
  INFO(got.status().ToString());
  REQUIRE(got.ok());
  return *got;
}

inline AliasKey MakeAlias(std::string tenant, std::string ns, std::string target,
                          std::string fast_key) {
  return AliasKey{std::move(tenant), std::move(ns), std::move(target), std::move(fast_key)};
}

// Tenant of unix peer `uid`, as the daemon names it.
inline AliasKey MakeAlias(std::uint32_t uid, std::string ns, std::string target,
                          std::string fast_key) {
  return MakeAlias("uid:" + std::to_string(uid), std::move(ns), std::move(target),
                   std::move(fast_key));
}

// The keys List reports, in its order.
inline std::vector<std::string> ListedKeys(ArtifactStore& store, std::size_t limit = 0) {
  auto listed = store.List(limit);
  INFO(listed.status().ToString());
  REQUIRE(listed.ok());
  std::vector<std::string> keys;
  for (const EntrySummary& e : *listed) keys.push_back(e.key);
  return keys;
}

inline std::string Seed(int i) { return "entry-" + std::to_string(i); }

inline StoreOptions WithClock(const std::shared_ptr<FakeClock>& clock) {
  StoreOptions options;
  options.clock = [clock] { return clock->Now(); };
  return options;
}

inline StoreOptions WithCap(std::uint64_t max_bytes) {
  StoreOptions options;
  options.max_bytes = max_bytes;
  return options;
}

}  // namespace conformance
}  // namespace qdcache::store::testing
