// The engine's per-level counters (artifact and stage misses, compile time
// saved by hits) and the compile event it reports for metrics.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "common/digest.h"
#include "engine/engine.h"
#include "tests/unit/engine/engine_fixture.h"
#include "tests/unit/engine/scripted_compiler.h"

using namespace qdcache;
using namespace qdcache::engine;

namespace {

using Fixture = engine::testing::EngineFixture<engine::testing::ScriptedCompiler>;

v1::KernelDescriptor Avx2CpuKernel(const std::string& ir) {
  v1::KernelDescriptor d;
  d.set_ir(ir);
  d.mutable_target()->mutable_cpu()->set_cpu("x86-64");
  d.mutable_target()->mutable_cpu()->add_features("+avx2");
  return d;
}

v1::KernelDescriptor CudaKernel(const std::string& ir) {
  v1::KernelDescriptor d;
  d.set_ir(ir);
  d.mutable_target()->mutable_cuda()->set_sm("sm_90");
  return d;
}

// Gives the stored record of `d` a known compile time (what a hit saves).
void SetStoredCompileMicros(Fixture& f, const v1::KernelDescriptor& d, std::uint64_t micros) {
  const std::string key = f.engine->Explain(d, Peer{"uid:1"}).artifact_key();
  auto record = f.store->Get(key);
  REQUIRE(record.ok());
  REQUIRE(record->has_value());
  (*record)->compile_micros = micros;
  REQUIRE(f.store->Put(**record).ok());
}

}  // namespace

TEST_CASE(
    "a first compile is an artifact miss, and a repeat is a hit that saves the stored compile time",
    "[daemon][engine][stats]") {
  Fixture f;
  const v1::KernelDescriptor d = Avx2CpuKernel("ir");
  REQUIRE(f.CompileSync(d).status() == v1::CACHE_STATUS_COMPILED);
  EngineStats s = f.engine->Stats();
  CHECK(s.artifact_misses == 1);
  CHECK(s.hits == 0);
  CHECK(s.compile_seconds_saved == 0);

  SetStoredCompileMicros(f, d, 1'500'000);
  REQUIRE(f.CompileSync(d).status() == v1::CACHE_STATUS_HIT);
  s = f.engine->Stats();
  CHECK(s.artifact_misses == 1);
  CHECK(s.hits == 1);
  CHECK(s.compile_seconds_saved == Approx(1.5));
}

TEST_CASE("a stored compile time counts at most the compile timeout as saved",
          "[daemon][engine][stats]") {
  Fixture f([](EngineConfig& c) { c.compile_timeout = std::chrono::seconds(120); });
  const v1::KernelDescriptor d = Avx2CpuKernel("ir");
  REQUIRE(f.CompileSync(d).status() == v1::CACHE_STATUS_COMPILED);
  // A record from a remote cache or a bundle says whatever its writer put there.
  SetStoredCompileMicros(f, d, UINT64_MAX);
  REQUIRE(f.CompileSync(d).status() == v1::CACHE_STATUS_HIT);
  REQUIRE(f.CompileSync(d).status() == v1::CACHE_STATUS_HIT);
  CHECK(f.engine->Stats().compile_seconds_saved == Approx(240));
}

TEST_CASE("without a compile timeout a hit counts at most an hour as saved",
          "[daemon][engine][stats]") {
  Fixture f;
  v1::KernelDescriptor d = Avx2CpuKernel("ir");
  d.set_fast_key("fast");
  d.set_namespace_("ns");
  REQUIRE(f.CompileSync(d, Peer{"uid:1"}).status() == v1::CACHE_STATUS_COMPILED);
  SetStoredCompileMicros(f, d, UINT64_MAX / 2);
  REQUIRE(f.CompileSync(d, Peer{"uid:1"}).status() == v1::CACHE_STATUS_HIT);
  v1::FastKeyQuery q;
  q.set_fast_key("fast");
  q.set_namespace_("ns");
  *q.mutable_target() = d.target();
  REQUIRE(f.engine->Lookup(q, Peer{"uid:1"}, false).status() == v1::CACHE_STATUS_ALIAS_HIT);
  CHECK(f.engine->Stats().compile_seconds_saved == Approx(2 * 3600));
}

TEST_CASE("an alias hit adds its artifact's compile time to the time saved",
          "[daemon][engine][stats]") {
  Fixture f;
  v1::KernelDescriptor d = Avx2CpuKernel("ir");
  d.set_fast_key("fast");
  d.set_namespace_("ns");
  REQUIRE(f.CompileSync(d, Peer{"uid:1"}).status() == v1::CACHE_STATUS_COMPILED);
  SetStoredCompileMicros(f, d, 250'000);
  v1::FastKeyQuery q;
  q.set_fast_key("fast");
  q.set_namespace_("ns");
  *q.mutable_target() = d.target();
  REQUIRE(f.engine->Lookup(q, Peer{"uid:1"}, false).status() == v1::CACHE_STATUS_ALIAS_HIT);
  REQUIRE(f.engine->Lookup(q, Peer{"uid:1"}, false).status() == v1::CACHE_STATUS_ALIAS_HIT);
  CHECK(f.engine->Stats().compile_seconds_saved == Approx(0.5));
  // A miss saves nothing.
  q.set_fast_key("other");
  REQUIRE(f.engine->Lookup(q, Peer{"uid:1"}, false).status() == v1::CACHE_STATUS_MISS);
  CHECK(f.engine->Stats().compile_seconds_saved == Approx(0.5));
}

TEST_CASE("a compile that fails still counts as an artifact miss", "[daemon][engine][stats]") {
  Fixture f;
  REQUIRE(f.CompileSync(Avx2CpuKernel("fail")).status() == v1::CACHE_STATUS_ERROR);
  CHECK(f.engine->Stats().artifact_misses == 1);
}

TEST_CASE("no_store and recache items never looked at the store: no artifact miss",
          "[daemon][engine][stats]") {
  Fixture f;
  v1::KernelDescriptor d = Avx2CpuKernel("ir");
  d.set_no_store(true);
  REQUIRE(f.CompileSync(d).status() == v1::CACHE_STATUS_COMPILED);
  d.set_no_store(false);
  d.set_recache(true);
  REQUIRE(f.CompileSync(d).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(f.engine->Stats().artifact_misses == 0);
  CHECK(f.engine->Stats().compiles == 2);
}

TEST_CASE("CUDA: new IR is a stage miss, an option only linking reads is a stage hit",
          "[daemon][engine][stats]") {
  Fixture f;
  v1::KernelDescriptor d = CudaKernel("kernel");
  REQUIRE(f.CompileSync(d).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(f.engine->Stats().stage_misses == 1);

  d.mutable_options()->set_max_registers(32);  // read by the cubin stage only
  REQUIRE(f.CompileSync(d).status() == v1::CACHE_STATUS_STAGE_HIT);
  EngineStats s = f.engine->Stats();
  CHECK(s.stage_hits == 1);
  CHECK(s.stage_misses == 1);
  CHECK(s.artifact_misses == 2);  // both were new artifacts

  REQUIRE(f.CompileSync(CudaKernel("other kernel")).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(f.engine->Stats().stage_misses == 2);
  // CPU compiles have no stages.
  REQUIRE(f.CompileSync(Avx2CpuKernel("ir")).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(f.engine->Stats().stage_misses == 2);
}

TEST_CASE("ResetStats zeroes the per-level misses and the time saved", "[daemon][engine][stats]") {
  Fixture f;
  const v1::KernelDescriptor d = CudaKernel("kernel");
  REQUIRE(f.CompileSync(d).status() == v1::CACHE_STATUS_COMPILED);
  SetStoredCompileMicros(f, d, 1000);
  REQUIRE(f.CompileSync(d).status() == v1::CACHE_STATUS_HIT);
  EngineStats before = f.engine->Stats();
  REQUIRE(before.artifact_misses == 1);
  REQUIRE(before.stage_misses == 1);
  REQUIRE(before.compile_seconds_saved > 0);
  f.engine->ResetStats();
  EngineStats after = f.engine->Stats();
  CHECK(after.artifact_misses == 0);
  CHECK(after.stage_misses == 0);
  CHECK(after.compile_seconds_saved == 0);
}

TEST_CASE("every compile that ran is reported once with its target family and outcome",
          "[daemon][engine][stats]") {
  std::mutex mu;
  std::vector<std::pair<std::string, bool>> events;
  Fixture f([&](EngineConfig& c) {
    c.on_compile = [&](const CompileEvent& e) {
      std::lock_guard lock(mu);
      events.emplace_back(std::string(e.target), e.ok);
      CHECK(e.seconds >= 0);
    };
  });
  REQUIRE(f.CompileSync(Avx2CpuKernel("ir")).status() == v1::CACHE_STATUS_COMPILED);
  REQUIRE(f.CompileSync(Avx2CpuKernel("ir")).status() == v1::CACHE_STATUS_HIT);  // no compile ran
  REQUIRE(f.CompileSync(Avx2CpuKernel("fail")).status() == v1::CACHE_STATUS_ERROR);
  REQUIRE(f.CompileSync(CudaKernel("kernel")).status() == v1::CACHE_STATUS_COMPILED);
  f.engine->Drain();
  std::lock_guard lock(mu);
  // CPU features are left out: they would multiply the values a metric label takes.
  const std::vector<std::pair<std::string, bool>> want = {
      {"cpu:x86-64", true}, {"cpu:x86-64", false}, {"cuda:sm_90", true}};
  CHECK(events == want);
}
