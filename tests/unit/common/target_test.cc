#include <catch2/catch.hpp>

#include "common/target.h"

using namespace qdcache;

TEST_CASE("cuda target specs name an SM", "[common]") {
  auto t = ParseTarget("cuda:sm_90a");
  REQUIRE(t.ok());
  CHECK(t->kind == TargetKind::kCuda);
  CHECK(t->sm == "sm_90a");
  CHECK_FALSE(ParseTarget("cuda:90").ok());
  CHECK_FALSE(ParseTarget("cuda:").ok());
}

TEST_CASE("cpu target specs split the name from +/- features", "[common]") {
  auto t = ParseTarget("cpu:x86-64+avx2,+fma-sse4a+amx-bf16");
  REQUIRE(t.ok());
  CHECK(t->kind == TargetKind::kCpu);
  CHECK(t->cpu == "x86-64");
  // '-' is part of names; only a token start may be '-'.
  CHECK(t->features == std::vector<std::string>{"+avx2", "+fma-sse4a", "+amx-bf16"});
  auto u = ParseTarget("cpu:x86-64,-sse4a,+avx2");
  REQUIRE(u.ok());
  CHECK(u->features == std::vector<std::string>{"-sse4a", "+avx2"});
}

TEST_CASE("cpu:native and unknown kinds are refused", "[common]") {
  CHECK_THAT(ParseTarget("cpu:native").status().message(), Catch::Contains("native"));
  CHECK_FALSE(ParseTarget("gpu:sm_90").ok());
  CHECK_FALSE(ParseTarget("cpu:").ok());
  CHECK_FALSE(ParseTarget("cpu:x86-64+").ok());
  CHECK_FALSE(ParseTarget("cpu:x86 64").ok());
}

TEST_CASE("every target family is found by its name and prints targets that parse back to them",
          "[common]") {
  for (const TargetFamily& family : TargetFamilies()) {
    INFO(family.name);
    CHECK(FindTargetFamily(family.name) == &family);
    CHECK(&FamilyOf(family.kind) == &family);
  }
  CHECK(FindTargetFamily("gpu") == nullptr);
  for (const char* spec : {"cuda:sm_90a", "cpu:x86-64", "cpu:x86-64,-avx2,+fma", "amdgpu:gfx942:xnack-"}) {
    INFO(spec);
    auto t = ParseTarget(spec);
    REQUIRE(t.ok());
    auto canonical = NormalizeTarget(*t);
    REQUIRE(canonical.ok());
    auto again = ParseTarget(canonical->ToString());
    REQUIRE(again.ok());
    CHECK(*NormalizeTarget(*again) == *canonical);
  }
  CHECK_THAT(ParseTarget("gpu:x").status().message(), Catch::Contains("cuda:sm_XX[a|f] or cpu:NAME"));
}

TEST_CASE("cpu names, feature names and feature lists longer than any real one are refused", "[common]") {
  auto normalized = [](const std::string& spec) {
    Expected<Target> t = ParseTarget(spec);
    return t.ok() ? NormalizeTarget(*t) : t;
  };
  CHECK(normalized("cpu:" + std::string(128, 'a')).ok());  // the syntax allows it; backends know CPUs
  const Status long_cpu = normalized("cpu:" + std::string(129, 'a')).status();
  CHECK(long_cpu.code() == Code::kInvalidArgument);
  CHECK(long_cpu.message().find("longer than any CPU") != std::string::npos);
  CHECK(long_cpu.message().size() < 200);  // the name is not echoed back
  CHECK(normalized("cpu:x86-64+" + std::string(129, 'f')).status().message().find("longer than any feature") !=
        std::string::npos);
  std::string many = "cpu:x86-64";
  for (int i = 0; i < 513; ++i) many += "+f" + std::to_string(i);
  CHECK(normalized(many).status().message().find("features (limit 512)") != std::string::npos);
  CHECK(normalized("cpu:x86-64+avx2").ok());
}

TEST_CASE("amdgpu target specs name a processor and AMD target-id features", "[common]") {
  auto normalized = [](const std::string& spec) {
    Expected<Target> t = ParseTarget(spec);
    return t.ok() ? NormalizeTarget(*t) : t;
  };
  Expected<Target> t = normalized("amdgpu:GFX90a:xnack+:sramecc-:xnack+");
  REQUIRE(t.ok());
  CHECK(t->kind == TargetKind::kAmdgpu);
  CHECK(t->cpu == "gfx90a");
  CHECK(t->features == std::vector<std::string>{"sramecc-", "xnack+"});
  CHECK(t->ToString() == "amdgpu:gfx90a:sramecc-:xnack+");
  CHECK(ParseTarget(t->ToString()).ok());
  CHECK(normalized("amdgpu:gfx1100")->ToString() == "amdgpu:gfx1100");
  CHECK(FamilyOf(TargetKind::kAmdgpu).artifact == ArtifactKind::kHsaCodeObject);

  const struct {
    const char* spec;
    const char* message;
  } refused[] = {
      {"amdgpu:", "processor is empty"},
      {"amdgpu:native", "'native' is not allowed"},
      {"amdgpu:gfx90a:xnack", "must be 'name+' or 'name-'"},
      {"amdgpu:gfx90a:+xnack", "must be 'name+' or 'name-'"},
      {"amdgpu:gfx90a:", "must be 'name+' or 'name-'"},
      {"amdgpu:gfx90a:xnack+:xnack-", "both on (+) and off (-)"},
      {"amdgpu:gfx90a:x,y+", "a name of letters and digits"},
      {"amdgpu:gfx 90a", "a character other than"},
  };
  for (const auto& [spec, message] : refused) {
    INFO(spec);
    const Status s = normalized(spec).status();
    CHECK(s.code() == Code::kInvalidArgument);
    CHECK_THAT(s.message(), Catch::Contains(message));
  }
  CHECK(normalized("amdgpu:" + std::string(65, 'g')).status().message().find("longer than any processor") !=
        std::string::npos);
  std::string many = "amdgpu:gfx90a";
  for (int i = 0; i < 17; ++i) many += ":f" + std::string(1, static_cast<char>('a' + i)) + "+";
  CHECK(normalized(many).status().message().find("features (limit 16)") != std::string::npos);
}
