// Conformance: artifact records. Round trips, misses that are not errors,
// what Put refuses, overwrite, delete, copies and exact counters.
// Part of the suite: include conformance/suite.h (see store_conformance.h).
#pragma once

#include "tests/unit/store/store_conformance.h"

namespace qdcache::store::testing::conformance {

TEMPLATE_TEST_CASE("a stored record reads back with every field intact", "[store][conformance]",
                   QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
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

  auto shared = store->GetShared(in.key);
  REQUIRE(shared.ok());
  REQUIRE(*shared != nullptr);
  CHECK((*shared)->payload == in.payload);
  CHECK((*shared)->compile_log == in.compile_log);
}

TEMPLATE_TEST_CASE("a given created_unix_ms is kept, a missing one is the clock's",
                   "[store][conformance]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto clock = FakeClock::Make();
  auto store = factory.Make(WithClock(clock));
  ArtifactRecord given = MakeRecord("given");
  given.created_unix_ms = 42;
  REQUIRE(store->Put(given).ok());
  REQUIRE(store->Put(MakeRecord("stamped")).ok());
  CHECK(GetOrFail(*store, given.key)->created_unix_ms == 42);
  CHECK(GetOrFail(*store, KeyFor("stamped"))->created_unix_ms == clock->NowUnixMs());
}

TEMPLATE_TEST_CASE("a key never stored is a miss, not an error", "[store][conformance]",
                   QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  CHECK_FALSE(GetOrFail(*store, KeyFor("absent")).has_value());
  auto shared = store->GetShared(KeyFor("absent"));
  REQUIRE(shared.ok());
  CHECK(*shared == nullptr);
  CHECK_FALSE(GetAliasOrFail(*store, MakeAlias(1, "ns", "cpu:x86-64", "fast")).has_value());
  CHECK_FALSE(GetStageOrFail(*store, KeyFor("absent")).has_value());
  CHECK(store->Stats().corrupt_dropped == 0);
}

TEMPLATE_TEST_CASE("Put rejects a record that cannot be served", "[store][conformance]",
                   QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});

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
    CHECK(store->Put(r).code() == Code::kInvalidArgument);
    CHECK_FALSE(GetOrFail(*store, r.key).has_value());
  }
  SECTION("a matching payload digest is accepted") {
    ArtifactRecord r = MakeRecord("gooddigest");
    r.payload_digest = DigestBytes(Sha256(r.payload));
    CHECK(store->Put(r).ok());
  }
  CHECK(store->Stats().aliases == 0);
}

TEMPLATE_TEST_CASE("Put overwrites a record with the same key", "[store][conformance]",
                   QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  ArtifactRecord first = MakeRecord("same", 100);
  ArtifactRecord second = MakeRecord("same", 250);
  second.payload[0] ^= 0x55;
  second.ptx = "new ptx";
  second.compile_log = "recompiled";
  REQUIRE(store->Put(first).ok());
  REQUIRE(GetOrFail(*store, first.key).has_value());  // a read before must not linger
  REQUIRE(store->Put(second).ok());

  auto out = GetOrFail(*store, second.key);
  REQUIRE(out.has_value());
  CHECK(out->payload == second.payload);
  CHECK(out->compile_log == "recompiled");
  const StoreStats stats = store->Stats();
  CHECK(stats.artifacts == 1);
  CHECK(stats.payload_bytes == Bytes(second));
  CHECK(stats.total_bytes == Bytes(second));
}

TEMPLATE_TEST_CASE("what a lookup returned stays intact through overwrite and eviction",
                   "[store][conformance]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  const ArtifactRecord first = MakeRecord("kept", 300);
  REQUIRE(store->Put(first).ok());
  const auto copy = GetOrFail(*store, first.key);
  auto shared = store->GetShared(first.key);
  REQUIRE(shared.ok());
  REQUIRE(*shared != nullptr);

  ArtifactRecord second = MakeRecord("kept", 500);
  second.payload[1] ^= 0x11;
  REQUIRE(store->Put(second).ok());
  REQUIRE(store->TrimTo(0).ok());
  CHECK_FALSE(Present(*store, first.key));
  REQUIRE(copy.has_value());
  CHECK(copy->payload == first.payload);
  CHECK((*shared)->payload == first.payload);
}

TEMPLATE_TEST_CASE("Delete removes the record and leaves its alias dangling",
                   "[store][conformance][alias]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  ArtifactRecord r = MakeRecord("doomed");
  const AliasKey alias = MakeAlias(1, "ns", "cuda:sm_90", "fast");
  REQUIRE(store->Put(r, alias).ok());
  REQUIRE(store->Delete(r.key).ok());
  CHECK_FALSE(GetOrFail(*store, r.key).has_value());
  CHECK(GetAliasOrFail(*store, alias) == r.key);  // dangling: resolves to a miss
  CHECK(store->Delete(r.key).ok());               // deleting again is not an error
  CHECK(store->Stats().artifacts == 0);
  CHECK(store->Stats().payload_bytes == 0);
  CHECK(store->Stats().aliases == 1);
}

TEMPLATE_TEST_CASE("Stats count artifacts, aliases and payload bytes exactly",
                   "[store][conformance][stats]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  CHECK(store->Stats().artifacts == 0);

  ArtifactRecord a = MakeRecord("a", 100);  // ptx adds to the byte count
  ArtifactRecord b = MakeRecord("b", 5000);
  ArtifactRecord c = MakeRecord("c", 7);
  c.ptx.clear();

  REQUIRE(store->Put(a, MakeAlias(1, "n", "t", "fa")).ok());
  REQUIRE(store->Put(b).ok());
  REQUIRE(store->Put(c, MakeAlias(2, "n", "t", "fa")).ok());
  REQUIRE(store->PutAlias(MakeAlias(1, "n", "t", "fa"), b.key).ok());  // existing alias
  REQUIRE(store->PutAlias(MakeAlias(3, "n", "t", "fb"), b.key).ok());
  StoreStats s = store->Stats();
  CHECK(s.artifacts == 3);
  CHECK(s.aliases == 3);
  CHECK(s.payload_bytes == Bytes(a) + Bytes(b) + Bytes(c));
  CHECK(s.total_bytes == s.payload_bytes);

  ArtifactRecord b2 = MakeRecord("b", 10);  // overwrite shrinks
  REQUIRE(store->Put(b2).ok());
  REQUIRE(store->Delete(a.key).ok());
  REQUIRE(store->Delete(KeyFor("never-stored")).ok());
  s = store->Stats();
  CHECK(s.artifacts == 2);
  CHECK(s.aliases == 3);
  CHECK(s.payload_bytes == Bytes(b2) + Bytes(c));
  CHECK(s.corrupt_dropped == 0);
  CHECK(s.evictions == 0);
}

}  // namespace qdcache::store::testing::conformance
