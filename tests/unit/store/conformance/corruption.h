// Conformance: every read verifies what it returns. A damaged artifact,
// stage output or alias is a miss, dropped and counted once, never served;
// Verify finds every damaged entry and nothing else.
// Part of the suite: include conformance/suite.h (see store_conformance.h).
#pragma once

#include <algorithm>

#include "store/record_codec.h"
#include "tests/unit/store/store_conformance.h"

namespace qdcache::store::testing::conformance {

TEMPLATE_TEST_CASE("a damaged artifact is a miss, dropped and counted, never served",
                   "[store][conformance][corruption]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  const ArtifactRecord victim = MakeRecord("victim", 3000);
  const ArtifactRecord bystander = MakeRecord("bystander", 500);
  REQUIRE(store->Put(victim).ok());
  REQUIRE(store->Put(bystander).ok());
  REQUIRE(Present(*store, victim.key));  // a copy held in memory must not hide the damage
  store = factory.Damage(std::move(store), DamageTarget::Artifact(victim.key));
  REQUIRE(store->Stats().artifacts == 2);

  SECTION("through Get") { CHECK_FALSE(GetOrFail(*store, victim.key).has_value()); }
  SECTION("through GetShared") {
    auto shared = store->GetShared(victim.key);
    REQUIRE(shared.ok());
    CHECK(*shared == nullptr);
  }
  SECTION("through List, which leaves it out") {
    CHECK(ListedKeys(*store) == std::vector<std::string>{bystander.key});
  }
  const StoreStats s = store->Stats();
  CHECK(s.corrupt_dropped == 1);
  CHECK(s.artifacts == 1);
  CHECK(s.payload_bytes == Bytes(bystander));

  // Gone for good: a second read is a plain miss and is not counted again.
  CHECK_FALSE(GetOrFail(*store, victim.key).has_value());
  CHECK(store->Stats().corrupt_dropped == 1);
  CHECK(GetOrFail(*store, bystander.key)->payload == bystander.payload);
}

TEMPLATE_TEST_CASE("a key dropped as damaged can be stored and served again",
                   "[store][conformance][corruption]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  const ArtifactRecord r = MakeRecord("recompiled");
  REQUIRE(store->Put(r).ok());
  store = factory.Damage(std::move(store), DamageTarget::Artifact(r.key));
  CHECK_FALSE(GetOrFail(*store, r.key).has_value());
  REQUIRE(store->Put(r).ok());
  auto got = GetOrFail(*store, r.key);
  REQUIRE(got.has_value());
  CHECK(got->payload == r.payload);
  CHECK(store->Stats().artifacts == 1);
  CHECK(store->Stats().corrupt_dropped == 1);
}

TEMPLATE_TEST_CASE("a damaged stage output is a miss, dropped and counted",
                   "[store][conformance][corruption][stage]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  REQUIRE(store->PutStage(KeyFor("victim"), std::string(5000, 'v')).ok());
  REQUIRE(store->PutStage(KeyFor("bystander"), "kept").ok());
  store = factory.Damage(std::move(store), DamageTarget::Stage(KeyFor("victim")));
  CHECK_FALSE(GetStageOrFail(*store, KeyFor("victim")).has_value());
  StoreStats s = store->Stats();
  CHECK(s.corrupt_dropped == 1);
  CHECK(s.stage_entries == 1);
  CHECK(s.stage_bytes == 4);
  CHECK_FALSE(GetStageOrFail(*store, KeyFor("victim")).has_value());  // a plain miss now
  CHECK(store->Stats().corrupt_dropped == 1);
  CHECK(GetStageOrFail(*store, KeyFor("bystander")) == "kept");
}

TEMPLATE_TEST_CASE("a damaged alias is a miss, dropped and counted",
                   "[store][conformance][corruption][alias]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  const AliasKey alias = MakeAlias(3, "ns", "cuda:sm_90", "fast");
  const AliasKey other = MakeAlias(3, "ns", "cuda:sm_90", "other");
  REQUIRE(store->PutAlias(alias, KeyFor("a")).ok());
  REQUIRE(store->PutAlias(other, KeyFor("b")).ok());
  store = factory.Damage(std::move(store), DamageTarget::Alias(alias));
  CHECK_FALSE(GetAliasOrFail(*store, alias).has_value());
  CHECK(store->Stats().corrupt_dropped == 1);
  CHECK(store->Stats().aliases == 1);
  CHECK_FALSE(GetAliasOrFail(*store, alias).has_value());
  CHECK(store->Stats().corrupt_dropped == 1);
  CHECK(GetAliasOrFail(*store, other) == KeyFor("b"));
}

TEMPLATE_TEST_CASE("Verify drops damaged artifacts, stages and aliases and nothing else",
                   "[store][conformance][corruption][admin]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  const ArtifactRecord bad = MakeRecord("bad", 3000);
  const ArtifactRecord good = MakeRecord("good", 3000);
  const AliasKey bad_alias = MakeAlias(1, "ns", "t", "bad");
  const AliasKey good_alias = MakeAlias(1, "ns", "t", "good");
  const AliasKey dangling = MakeAlias(1, "ns", "t", "dangling");
  REQUIRE(store->Put(bad, bad_alias).ok());
  REQUIRE(store->Put(good, good_alias).ok());
  REQUIRE(store->PutAlias(dangling, KeyFor("never-stored")).ok());
  REQUIRE(store->PutStage(KeyFor("bad-stage"), std::string(400, 'b')).ok());
  REQUIRE(store->PutStage(KeyFor("good-stage"), std::string(600, 'g')).ok());
  store = factory.Damage(std::move(store), DamageTarget::Artifact(bad.key));
  store = factory.Damage(std::move(store), DamageTarget::Stage(KeyFor("bad-stage")));
  store = factory.Damage(std::move(store), DamageTarget::Alias(bad_alias));

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
  CHECK(GetAliasOrFail(*store, good_alias) == good.key);
  CHECK(GetAliasOrFail(*store, dangling) == KeyFor("never-stored"));

  auto again = store->Verify();
  REQUIRE(again.ok());
  CHECK(again->checked == 1 + 1 + 2);
  CHECK(again->dropped == 0);
  CHECK(store->Stats().corrupt_dropped == 3);
}

}  // namespace qdcache::store::testing::conformance
