#include "common/target.h"

#include <catch2/catch.hpp>

#include "backends/in_process_compiler.h"
#include "compiler/compiler.h"
#include "compiler_test_support.h"

using namespace qdcache;
using namespace qdcache::compiler;
using namespace qdcache::compiler::testing;

TEST_CASE("ParseTarget reads a CUDA SM") {
  auto t = ParseTarget("cuda:sm_90a");
  REQUIRE(t.ok());
  CHECK(t->kind == TargetKind::kCuda);
  CHECK(t->sm == "sm_90a");
  CHECK(t->ToString() == "cuda:sm_90a");
}

TEST_CASE("ParseTarget reads a CPU name with features including dashed feature names") {
  auto t = ParseTarget("cpu:x86-64-v3+avx2,+fma-fast,-avx512f+amx-bf16");
  REQUIRE(t.ok());
  CHECK(t->kind == TargetKind::kCpu);
  CHECK(t->cpu == "x86-64-v3");
  CHECK(t->features == std::vector<std::string>{"+avx2", "+fma-fast", "-avx512f", "+amx-bf16"});
}

TEST_CASE("ParseTarget refuses malformed specs") {
  for (const char* spec : {"", "gpu:sm_90", "cuda:SM_90", "cuda:sm_", "cuda:90", "cpu:", "cpu:+avx",
                           "cpu:x86-64+", "cpu:x86-64,avx"}) {
    auto t = ParseTarget(spec);
    INFO(spec);
    REQUIRE_FALSE(t.ok());
    CHECK(t.status().code() == Code::kInvalidArgument);
  }
}

TEST_CASE("NormalizeTarget sorts and de-duplicates features by name") {
  auto t = NormalizeTarget(Cpu("x86-64", {"+fma", "-avx512f", "+avx2", "+fma"}));
  REQUIRE(t.ok());
  CHECK(t->features == std::vector<std::string>{"+avx2", "-avx512f", "+fma"});
  CHECK(t->ToString() == "cpu:x86-64+avx2,-avx512f,+fma");
}

TEST_CASE("NormalizeTarget refuses a feature both enabled and disabled") {
  auto t = NormalizeTarget(Cpu("x86-64", {"+avx2", "-avx2"}));
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == Code::kInvalidArgument);
  CHECK_THAT(t.status().message(), Catch::Contains("avx2"));
}

// Found by tests/fuzz (request_decode): a wire target whose CPU or feature
// name held ',', '+' or a control byte normalized to text that reads back as
// another target, or not at all.
TEST_CASE("NormalizeTarget refuses CPU and feature names the target syntax cannot spell") {
  for (const Target& target :
       {Cpu("x86-64+avx2"), Cpu("x86-64,fma"), Cpu("x86 64"), Cpu("cpu:x86-64"),
        Cpu("x86-64", {"+avx2,+fma"}), Cpu("x86-64", {"+av\x06" "2"}), Cpu("x86-64", {"-a+b"})}) {
    auto t = NormalizeTarget(target);
    INFO(target.cpu);
    REQUIRE_FALSE(t.ok());
    CHECK(t.status().code() == Code::kInvalidArgument);
    CHECK_THAT(t.status().message(), Catch::Contains("has a character other than"));
  }
  CHECK(NormalizeTarget(Cpu("x86-64-v3", {"+amx-bf16", "+avx512.x_y"})).ok());
}

// Also found by request_decode: a lookup for CPU "native" decoded (and
// missed) where a compile refused it; both refuse it now.
TEST_CASE("NormalizeTarget refuses CPU native, as the target syntax does") {
  auto t = NormalizeTarget(Cpu("native"));
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == Code::kInvalidArgument);
  CHECK_THAT(t.status().message(), Catch::Contains("'native' is not allowed"));
}

TEST_CASE(
    "Target::ToString round-trips through ParseTarget, also with a leading disabled feature") {
  for (const Target& target :
       {Cuda("sm_75"), Cpu("x86-64"), Cpu("x86-64", {"-avx"}), Cpu("skylake", {"+avx2", "-fma"})}) {
    auto parsed = ParseTarget(target.ToString());
    REQUIRE(parsed.ok());
    CHECK(*parsed == target);
  }
}

TEST_CASE("ValidateTarget accepts known x86-64 CPUs and features") {
  CHECK(ValidateTarget(Cpu("x86-64")).ok());
  CHECK(ValidateTarget(Cpu("skylake-avx512", {"-avx512f"})).ok());
  CHECK(ValidateTarget(Cpu("x86-64-v3", {"+avx2", "+fma"})).ok());
}

TEST_CASE("ValidateTarget refuses CPU native") {
  Status s = ValidateTarget(Cpu("native"));
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("native"));
}

TEST_CASE("ValidateTarget refuses an unknown CPU, the nearest named and the list cut short") {
  Status s = ValidateTarget(Cpu("pentium-9000"));
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("pentium-9000") && Catch::Contains("alderlake") &&
                              Catch::Contains("more; `qdcache targets` lists them"));
  CHECK(s.message().size() < 400);
  Status typo = ValidateTarget(Cpu("skylak"));
  CHECK_THAT(typo.message(), Catch::Contains("did you mean 'skylake'?"));
}

TEST_CASE("ValidateTarget refuses a 32-bit-only x86 CPU") {
  Status s = ValidateTarget(Cpu("i686"));
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("64-bit"));
}

TEST_CASE("ValidateTarget refuses an unknown x86 feature") {
  Status s = ValidateTarget(Cpu("x86-64", {"+warp-drive"}));
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("warp-drive") && Catch::Contains("adx") &&
                              Catch::Contains("more; `qdcache targets` lists them"));
  Status typo = ValidateTarget(Cpu("x86-64", {"+avx512fx"}));
  CHECK_THAT(typo.message(), Catch::Contains("did you mean 'avx512f'?"));
}

TEST_CASE("ValidateTarget refuses disabling SSE2 on x86-64") {
  Status s = ValidateTarget(Cpu("x86-64", {"-sse2"}));
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("SSE2"));
}

TEST_CASE(
    "ValidateTarget refuses an SM unsupported by LLVM or nvJitLink, listing the supported ones") {
  Status s = ValidateTarget(Cuda("sm_35"));
  if (!CudaAvailable()) {
    CHECK(s.code() == Code::kFailedPrecondition);
    return;
  }
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("sm_35") && Catch::Contains("sm_90"));
  CHECK(ValidateTarget(Cuda("sm_999")).code() == Code::kInvalidArgument);
}

TEST_CASE("ValidateTarget accepts sm_75 and sm_90 when CUDA is available") {
  if (!CudaAvailable()) {
    CHECK(ValidateTarget(Cuda("sm_90")).code() == Code::kFailedPrecondition);
    CHECK_THAT(ValidateTarget(Cuda("sm_90")).message(), Catch::Contains("built without CUDA"));
    return;
  }
  CHECK(ValidateTarget(Cuda("sm_75")).ok());
  CHECK(ValidateTarget(Cuda("sm_90")).ok());
}

