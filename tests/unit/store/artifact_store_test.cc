// Behaviour of ArtifactStore through its public contract: round trips, misses,
// aliases, atomicity, overwrite, counters, persistence and concurrency.
#include "store/artifact_store.h"

#include <atomic>
#include <thread>

#include "tests/unit/store/store_test_util.h"

namespace qdcache::store {
namespace {

using testing::KeyFor;
using testing::MakeRecord;
using testing::OpenOrFail;
using testing::OptionsFor;
using testing::TempDir;

std::optional<ArtifactRecord> GetOrFail(ArtifactStore& store, const ArtifactKey& key) {
  auto got = store.Get(key);
  INFO(got.status().ToString());
  REQUIRE(got.ok());
  return *got;
}

std::optional<ArtifactKey> GetAliasOrFail(ArtifactStore& store, const AliasKey& alias) {
  auto got = store.GetAlias(alias);
  INFO(got.status().ToString());
  REQUIRE(got.ok());
  return *got;
}

AliasKey MakeAlias(std::string tenant, std::string ns, std::string target, std::string fast) {
  AliasKey a;
  a.tenant = std::move(tenant);
  a.ns = std::move(ns);
  a.target = std::move(target);
  a.fast_key = std::move(fast);
  return a;
}

// Tenant of unix peer `uid`, as the daemon names it.
AliasKey MakeAlias(std::uint32_t uid, std::string ns, std::string target, std::string fast) {
  return MakeAlias("uid:" + std::to_string(uid), std::move(ns), std::move(target), std::move(fast));
}

TEST_CASE("a stored record reads back with every field intact", "[store]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  ArtifactRecord in = MakeRecord("round-trip");
  in.compile_log = std::string("binary\0log\xff", 11);
  REQUIRE(store->Put(in).ok());

  auto out = GetOrFail(*store, in.key);
  REQUIRE(out.has_value());
  CHECK(out->key == in.key);
  CHECK(out->kind == in.kind);
  CHECK(out->target == in.target);
  CHECK(out->toolchain == in.toolchain);
  CHECK(out->payload == in.payload);
  CHECK(out->ptx == in.ptx);
  CHECK(out->metadata == in.metadata);
  CHECK(out->compile_log == in.compile_log);
  CHECK(out->compile_micros == in.compile_micros);
  CHECK(out->payload_digest == DigestBytes(Sha256(in.payload)));
  CHECK(out->created_unix_ms > 0);
}

TEST_CASE("a given created_unix_ms is kept", "[store]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  ArtifactRecord in = MakeRecord("created");
  in.created_unix_ms = 42;
  REQUIRE(store->Put(in).ok());
  CHECK(GetOrFail(*store, in.key)->created_unix_ms == 42);
}

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

TEST_CASE("a key never stored is a miss, not an error", "[store]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  CHECK_FALSE(GetOrFail(*store, KeyFor("absent")).has_value());
  CHECK_FALSE(GetAliasOrFail(*store, MakeAlias(1, "ns", "cpu:x86-64", "fast")).has_value());
}

TEST_CASE("Put rejects a record that cannot be served", "[store]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));

  SECTION("empty payload") {
    ArtifactRecord r = MakeRecord("empty");
    r.payload.clear();
    CHECK(store->Put(r).code() == Code::kInvalidArgument);
  }
  SECTION("empty key") {
    ArtifactRecord r = MakeRecord("nokey");
    r.key.clear();
    CHECK(store->Put(r).code() == Code::kInvalidArgument);
  }
  SECTION("payload digest that does not match the payload") {
    ArtifactRecord r = MakeRecord("baddigest");
    r.payload_digest = DigestBytes(Sha256("something else"));
    Status s = store->Put(r);
    CHECK(s.code() == Code::kInvalidArgument);
    CHECK_FALSE(GetOrFail(*store, r.key).has_value());
  }
  SECTION("a matching payload digest is accepted") {
    ArtifactRecord r = MakeRecord("gooddigest");
    r.payload_digest = DigestBytes(Sha256(r.payload));
    CHECK(store->Put(r).ok());
  }
  CHECK(store->Stats().aliases == 0);
}

TEST_CASE("an alias resolves to the key it was written with", "[store][alias]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  const AliasKey alias = MakeAlias(1000, "quadrants", "cuda:sm_90", "fast-1");
  REQUIRE(store->PutAlias(alias, KeyFor("a")).ok());
  CHECK(GetAliasOrFail(*store, alias) == KeyFor("a"));

  REQUIRE(store->PutAlias(alias, KeyFor("b")).ok());  // re-pointing
  CHECK(GetAliasOrFail(*store, alias) == KeyFor("b"));
  CHECK(store->Stats().aliases == 1);
}

TEST_CASE("aliases are isolated by tenant, namespace, target and fast key", "[store][alias]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  const AliasKey base = MakeAlias(1000, "ns", "cuda:sm_90", "fast");
  REQUIRE(store->PutAlias(base, KeyFor("base")).ok());

  CHECK_FALSE(GetAliasOrFail(*store, MakeAlias(1001, "ns", "cuda:sm_90", "fast")).has_value());
  CHECK_FALSE(GetAliasOrFail(*store, MakeAlias(1000, "other", "cuda:sm_90", "fast")).has_value());
  CHECK_FALSE(GetAliasOrFail(*store, MakeAlias(1000, "ns", "cuda:sm_80", "fast")).has_value());
  CHECK_FALSE(GetAliasOrFail(*store, MakeAlias(1000, "ns", "cuda:sm_90", "fast2")).has_value());
  CHECK(GetAliasOrFail(*store, base) == KeyFor("base"));
}

TEST_CASE("alias fields cannot bleed into each other", "[store][alias]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  REQUIRE(store->PutAlias(MakeAlias(1, "ab", "c", "d"), KeyFor("1")).ok());
  CHECK_FALSE(GetAliasOrFail(*store, MakeAlias(1, "a", "bc", "d")).has_value());
  CHECK_FALSE(GetAliasOrFail(*store, MakeAlias(1, "a", "b", "cd")).has_value());
  CHECK_FALSE(GetAliasOrFail(*store, MakeAlias(1, "", "abc", "d")).has_value());
  REQUIRE(store->PutAlias(MakeAlias("token:a", "bc", "t", "f"), KeyFor("2")).ok());
  CHECK_FALSE(GetAliasOrFail(*store, MakeAlias("token:ab", "c", "t", "f")).has_value());
  CHECK_FALSE(GetAliasOrFail(*store, MakeAlias("token:", "abc", "t", "f")).has_value());
  CHECK(GetAliasOrFail(*store, MakeAlias("token:a", "bc", "t", "f")) == KeyFor("2"));
  CHECK(store->Stats().aliases == 2);
}

TEST_CASE("Put with an alias writes record and alias together", "[store][alias]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  const AliasKey alias = MakeAlias(7, "ns", "cpu:x86-64", "fast");

  SECTION("both become visible") {
    ArtifactRecord r = MakeRecord("atomic");
    REQUIRE(store->Put(r, alias).ok());
    CHECK(GetAliasOrFail(*store, alias) == r.key);
    CHECK(GetOrFail(*store, r.key).has_value());
    CHECK(store->Stats().artifacts == 1);
    CHECK(store->Stats().aliases == 1);
  }
  SECTION("a rejected record writes no alias") {
    ArtifactRecord r = MakeRecord("rejected");
    r.payload_digest = std::string(32, 'x');
    REQUIRE_FALSE(store->Put(r, alias).ok());
    CHECK_FALSE(GetAliasOrFail(*store, alias).has_value());
    CHECK(store->Stats().aliases == 0);
    CHECK(store->Stats().artifacts == 0);
  }
}

TEST_CASE("Put overwrites a record with the same key", "[store]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  ArtifactRecord first = MakeRecord("same", 100);
  ArtifactRecord second = MakeRecord("same", 250);
  second.payload[0] ^= 0x55;
  second.ptx = "new ptx";
  second.compile_log = "recompiled";
  REQUIRE(store->Put(first).ok());
  REQUIRE(store->Put(second).ok());

  auto out = GetOrFail(*store, second.key);
  REQUIRE(out.has_value());
  CHECK(out->payload == second.payload);
  CHECK(out->compile_log == "recompiled");
  const StoreStats stats = store->Stats();
  CHECK(stats.artifacts == 1);
  CHECK(stats.payload_bytes == second.payload.size() + second.ptx.size());
}

TEST_CASE("Delete removes the record and leaves its alias dangling", "[store]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  ArtifactRecord r = MakeRecord("doomed");
  const AliasKey alias = MakeAlias(1, "ns", "cuda:sm_90", "fast");
  REQUIRE(store->Put(r, alias).ok());
  REQUIRE(store->Delete(r.key).ok());
  CHECK_FALSE(GetOrFail(*store, r.key).has_value());
  CHECK(GetAliasOrFail(*store, alias) == r.key);  // dangling: resolves to a miss
  CHECK(store->Delete(r.key).ok());               // deleting again is not an error
  CHECK(store->Stats().artifacts == 0);
  CHECK(store->Stats().payload_bytes == 0);
}

TEST_CASE("Stats count artifacts, aliases and payload bytes exactly", "[store][stats]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  CHECK(store->Stats().artifacts == 0);

  ArtifactRecord a = MakeRecord("a", 100);  // ptx adds to the byte count
  ArtifactRecord b = MakeRecord("b", 5000);
  ArtifactRecord c = MakeRecord("c", 7);
  c.ptx.clear();
  const auto bytes = [](const ArtifactRecord& r) { return r.payload.size() + r.ptx.size(); };

  REQUIRE(store->Put(a, MakeAlias(1, "n", "t", "fa")).ok());
  REQUIRE(store->Put(b).ok());
  REQUIRE(store->Put(c, MakeAlias(2, "n", "t", "fa")).ok());
  REQUIRE(store->PutAlias(MakeAlias(1, "n", "t", "fa"), b.key).ok());  // existing alias
  REQUIRE(store->PutAlias(MakeAlias(3, "n", "t", "fb"), b.key).ok());
  StoreStats s = store->Stats();
  CHECK(s.artifacts == 3);
  CHECK(s.aliases == 3);
  CHECK(s.payload_bytes == bytes(a) + bytes(b) + bytes(c));

  ArtifactRecord b2 = MakeRecord("b", 10);  // overwrite shrinks
  REQUIRE(store->Put(b2).ok());
  REQUIRE(store->Delete(a.key).ok());
  REQUIRE(store->Delete(KeyFor("never-stored")).ok());
  s = store->Stats();
  CHECK(s.artifacts == 2);
  CHECK(s.aliases == 3);
  CHECK(s.payload_bytes == bytes(b2) + bytes(c));
  CHECK(s.corrupt_dropped == 0);
}

TEST_CASE("a reopened store keeps its records, aliases and counters", "[store]") {
  TempDir dir;
  ArtifactRecord r = MakeRecord("persist", 10000);
  const AliasKey alias = MakeAlias(5, "ns", "cuda:sm_90", "fast");
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
  CHECK(GetAliasOrFail(*store, alias) == r.key);
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

TEST_CASE("concurrent Put, Get, PutAlias and Delete keep records and counters exact",
          "[store][concurrency]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  constexpr int kThreads = 6;
  constexpr int kPerThread = 60;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        // Own keys, plus a few keys every thread overwrites.
        const std::string own = "t" + std::to_string(t) + "-" + std::to_string(i);
        ArtifactRecord r = MakeRecord(own, 100 + i);
        if (!store->Put(r, MakeAlias(t, "ns", "tgt", own)).ok()) ++failures;
        const std::string shared = "shared-" + std::to_string(i % 5);
        if (!store->Put(MakeRecord(shared, 300)).ok()) ++failures;
        auto got = store->Get(r.key);
        if (!got.ok() || !got->has_value() || (*got)->payload != r.payload) ++failures;
        auto got_shared = store->Get(KeyFor(shared));
        if (!got_shared.ok() || !got_shared->has_value() || (*got_shared)->payload.size() != 300) {
          ++failures;
        }
        if (i % 3 == 0 && !store->Delete(r.key).ok()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures == 0);

  std::uint64_t expect_artifacts = 5;
  std::uint64_t expect_bytes = 5 * (300 + MakeRecord("shared-0").ptx.size());
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      const std::string own = "t" + std::to_string(t) + "-" + std::to_string(i);
      const bool present = GetOrFail(*store, KeyFor(own)).has_value();
      CHECK(present == (i % 3 != 0));
      if (i % 3 != 0) {
        ++expect_artifacts;
        ArtifactRecord r = MakeRecord(own, 100 + i);
        expect_bytes += r.payload.size() + r.ptx.size();
      }
    }
  }
  const StoreStats s = store->Stats();
  CHECK(s.artifacts == expect_artifacts);
  CHECK(s.aliases == kThreads * kPerThread);
  CHECK(s.payload_bytes == expect_bytes);
  CHECK(s.corrupt_dropped == 0);
}

}  // namespace
}  // namespace qdcache::store
