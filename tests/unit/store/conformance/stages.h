// Conformance: stage outputs. Round trips, a namespace of their own, exact
// counters and what PutStage refuses.
// Part of the suite: include conformance/suite.h (see store_conformance.h).
#pragma once

#include "tests/unit/store/store_conformance.h"

namespace qdcache::store::testing::conformance {

TEMPLATE_TEST_CASE("a stage output reads back byte for byte", "[store][conformance][stage]",
                   QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  const std::string small = std::string(".version 8.0\0binary\xff", 20);
  const std::string large(200 << 10, 'x');
  REQUIRE(store->PutStage(KeyFor("small"), small).ok());
  REQUIRE(store->PutStage(KeyFor("large"), large).ok());
  CHECK(GetStageOrFail(*store, KeyFor("small")) == small);
  CHECK(GetStageOrFail(*store, KeyFor("large")) == large);
  CHECK_FALSE(GetStageOrFail(*store, KeyFor("absent")).has_value());
}

TEMPLATE_TEST_CASE("stages and artifacts are separate namespaces", "[store][conformance][stage]",
                   QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  const ArtifactRecord r = MakeRecord("shared-key");
  REQUIRE(store->Put(r).ok());
  CHECK_FALSE(GetStageOrFail(*store, r.key).has_value());
  REQUIRE(store->PutStage(r.key, "ptx").ok());
  CHECK(GetStageOrFail(*store, r.key) == "ptx");
  CHECK(GetOrFail(*store, r.key)->payload == r.payload);
}

TEMPLATE_TEST_CASE("stage outputs are counted exactly, overwrite included",
                   "[store][conformance][stage][stats]", QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  REQUIRE(store->PutStage(KeyFor("a"), std::string(100, 'a')).ok());
  REQUIRE(store->PutStage(KeyFor("b"), std::string(300, 'b')).ok());
  REQUIRE(GetStageOrFail(*store, KeyFor("a")).has_value());
  REQUIRE(store->PutStage(KeyFor("a"), std::string(40, 'A')).ok());
  const ArtifactRecord r = MakeRecord("artifact", 1000);
  REQUIRE(store->Put(r).ok());
  const StoreStats s = store->Stats();
  CHECK(s.stage_entries == 2);
  CHECK(s.stage_bytes == 340);
  CHECK(s.artifacts == 1);
  CHECK(s.total_bytes == 340 + Bytes(r));
  CHECK(GetStageOrFail(*store, KeyFor("a")) == std::string(40, 'A'));
}

TEMPLATE_TEST_CASE("PutStage rejects an empty key", "[store][conformance][stage]",
                   QDCACHE_STORE_CONFORMANCE_FACTORIES) {
  TestType factory;
  auto store = factory.Make({});
  CHECK(store->PutStage("", "value").code() == Code::kInvalidArgument);
  CHECK(store->Stats().stage_entries == 0);
}

}  // namespace qdcache::store::testing::conformance
