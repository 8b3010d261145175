// Conformance: List. Most recently used first, with each artifact's facts,
// and never an access itself.
// Part of the suite: include conformance/suite.h (see store_conformance.h).
#pragma once

#include "tests/unit/store/store_conformance.h"

namespace qdcache::store::testing::conformance {

TEMPLATE_TEST_CASE("List reports artifacts most recently used first, with their facts",
                   "[store][conformance][admin]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  using namespace std::chrono_literals;
  TestType factory;
  auto clock = FakeClock::Make();
  auto store = factory.Make(WithClock(clock));
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
  REQUIRE(Present(*store, a.key));

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

TEMPLATE_TEST_CASE("List does not count as an access", "[store][conformance][admin]",
                   QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  const ArtifactRecord a = MakeRecord("a");
  const ArtifactRecord b = MakeRecord("b");
  REQUIRE(store->Put(a).ok());
  REQUIRE(store->Put(b).ok());
  CHECK(ListedKeys(*store) == std::vector<std::string>{b.key, a.key});
  CHECK(ListedKeys(*store) == std::vector<std::string>{b.key, a.key});
  auto trimmed = store->TrimTo(Bytes(b));
  REQUIRE(trimmed.ok());
  CHECK(ListedKeys(*store) == std::vector<std::string>{b.key});
}

}  // namespace qdcache::store::testing::conformance
