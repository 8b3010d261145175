// Conformance: fast-key aliases. Resolution, isolation, atomic Put with an
// alias, and dangling aliases after eviction.
// Part of the suite: include conformance/suite.h (see store_conformance.h).
#pragma once

#include "tests/unit/store/store_conformance.h"

namespace qdcache::store::testing::conformance {

TEMPLATE_TEST_CASE("an alias resolves to the key it was written with",
                   "[store][conformance][alias]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  const AliasKey alias = MakeAlias(1000, "quadrants", "cuda:sm_90", "fast-1");
  REQUIRE(store->PutAlias(alias, KeyFor("a")).ok());
  CHECK(GetAliasOrFail(*store, alias) == KeyFor("a"));

  REQUIRE(store->PutAlias(alias, KeyFor("b")).ok());  // re-pointing
  CHECK(GetAliasOrFail(*store, alias) == KeyFor("b"));
  CHECK(store->Stats().aliases == 1);
}

TEMPLATE_TEST_CASE("an alias keeps its manifest, and a later value replaces both", "[store][conformance][alias]",
                   QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  const AliasKey alias = MakeAlias(1000, "quadrants", "cuda:sm_90", "fast-1");
  const AliasValue with{KeyFor("a"), std::string("deps\0bytes", 10)};
  REQUIRE(store->PutAliasValue(alias, with).ok());
  auto got = store->GetAliasValue(alias);
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  CHECK(**got == with);
  CHECK(GetAliasOrFail(*store, alias) == KeyFor("a"));
  REQUIRE(store->PutAlias(alias, KeyFor("b")).ok());  // no manifest now
  got = store->GetAliasValue(alias);
  REQUIRE(got.ok());
  CHECK(**got == AliasValue{KeyFor("b"), ""});
  CHECK(store->Stats().aliases == 1);
  // A snapshot's walk carries it too.
  REQUIRE(store->PutAliasValue(alias, with).ok());
  auto snapshot = store->OpenSnapshot({});
  REQUIRE(snapshot.ok());
  auto walked = (*snapshot)->NextAlias();
  REQUIRE(walked.ok());
  REQUIRE(walked->has_value());
  CHECK((*walked)->manifest == with.manifest);
}

TEMPLATE_TEST_CASE("aliases are isolated by tenant, namespace, target and fast key",
                   "[store][conformance][alias]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  const AliasKey base = MakeAlias(1000, "ns", "cuda:sm_90", "fast");
  REQUIRE(store->PutAlias(base, KeyFor("base")).ok());

  CHECK_FALSE(GetAliasOrFail(*store, MakeAlias(1001, "ns", "cuda:sm_90", "fast")).has_value());
  CHECK_FALSE(GetAliasOrFail(*store, MakeAlias(1000, "other", "cuda:sm_90", "fast")).has_value());
  CHECK_FALSE(GetAliasOrFail(*store, MakeAlias(1000, "ns", "cuda:sm_80", "fast")).has_value());
  CHECK_FALSE(GetAliasOrFail(*store, MakeAlias(1000, "ns", "cuda:sm_90", "fast2")).has_value());
  CHECK(GetAliasOrFail(*store, base) == KeyFor("base"));
}

TEMPLATE_TEST_CASE("alias fields cannot bleed into each other", "[store][conformance][alias]",
                   QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
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

TEMPLATE_TEST_CASE("Put with an alias writes record and alias together",
                   "[store][conformance][alias]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
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

TEMPLATE_TEST_CASE("an evicted artifact leaves its alias dangling, resolving to a miss",
                   "[store][conformance][alias]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  const ArtifactRecord r = MakeRecord("aliased");
  AliasKey alias;
  alias.fast_key = "fast";
  REQUIRE(store->Put(r, alias).ok());
  REQUIRE(store->TrimTo(0).ok());
  CHECK(GetAliasOrFail(*store, alias) == r.key);
  CHECK_FALSE(GetOrFail(*store, r.key).has_value());
  CHECK(store->Stats().aliases == 1);
  CHECK(store->Stats().evictions == 1);
}

}  // namespace qdcache::store::testing::conformance
