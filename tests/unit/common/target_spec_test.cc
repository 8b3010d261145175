#include <catch2/catch.hpp>

#include "common/target_spec.h"

using namespace qdcache;

TEST_CASE("cuda target specs name an SM", "[common]") {
  auto t = ParseTargetSpec("cuda:sm_90a");
  REQUIRE(t.ok());
  CHECK(t->cuda);
  CHECK(t->sm == "sm_90a");
  CHECK_FALSE(ParseTargetSpec("cuda:90").ok());
  CHECK_FALSE(ParseTargetSpec("cuda:").ok());
}

TEST_CASE("cpu target specs split the name from +/- features", "[common]") {
  auto t = ParseTargetSpec("cpu:x86-64+avx2,+fma-sse4a+amx-bf16");
  REQUIRE(t.ok());
  CHECK_FALSE(t->cuda);
  CHECK(t->cpu == "x86-64");
  // '-' is part of names; only a token start may be '-'.
  CHECK(t->features == std::vector<std::string>{"+avx2", "+fma-sse4a", "+amx-bf16"});
  auto u = ParseTargetSpec("cpu:x86-64,-sse4a,+avx2");
  REQUIRE(u.ok());
  CHECK(u->features == std::vector<std::string>{"-sse4a", "+avx2"});
}

TEST_CASE("cpu:native and unknown kinds are refused", "[common]") {
  CHECK_THAT(ParseTargetSpec("cpu:native").status().message(), Catch::Contains("native"));
  CHECK_FALSE(ParseTargetSpec("gpu:sm_90").ok());
  CHECK_FALSE(ParseTargetSpec("cpu:").ok());
  CHECK_FALSE(ParseTargetSpec("cpu:x86-64+").ok());
  CHECK_FALSE(ParseTargetSpec("cpu:x86 64").ok());
}
