// What the engine does for peers that may not write (role read), and the
// stats reset, with the scripted compiler over a real RocksDB store.
#include <catch2/catch.hpp>
#include <filesystem>
#include <latch>
#include <mutex>

#include "common/digest.h"
#include "engine/engine.h"
#include "tests/unit/engine/engine_fixture.h"
#include "tests/unit/engine/scripted_compiler.h"

using namespace qdcache;
using namespace qdcache::engine;

namespace {

using Fixture = engine::testing::EngineFixture<engine::testing::ScriptedCompiler>;

const Peer kReader{"token:reader", /*may_write=*/false};
const Peer kWriter{"token:writer", /*may_write=*/true};

v1::KernelDescriptor AliasedCpuKernel(const std::string& ir) {
  v1::KernelDescriptor d;
  d.set_ir(ir);
  d.mutable_target()->mutable_cpu()->set_cpu("x86-64");
  d.set_fast_key("fast");
  d.set_namespace_("ns");
  return d;
}

v1::FastKeyQuery QueryFor(const v1::KernelDescriptor& d) {
  v1::FastKeyQuery q;
  q.set_fast_key(d.fast_key());
  q.set_namespace_(d.namespace_());
  *q.mutable_target() = d.target();
  return q;
}

}  // namespace

TEST_CASE("a peer that may not write is served a compile, but nothing is stored",
          "[daemon][engine][auth]") {
  Fixture f;
  const v1::KernelDescriptor d = AliasedCpuKernel("ir-r");
  v1::CompileResult first = f.CompileSync(d, kReader);
  REQUIRE(first.status() == v1::CACHE_STATUS_COMPILED);
  CHECK(first.artifact().payload() == "artifact:ir-r");
  CHECK(f.store->Stats().artifacts == 0);
  CHECK(f.store->Stats().aliases == 0);
  CHECK(f.engine->Lookup(QueryFor(d), kReader, false).status() == v1::CACHE_STATUS_MISS);
  // Nothing was stored, so the next request compiles again.
  CHECK(f.CompileSync(d, kReader).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(f.compiler.calls() == 2);
}

TEST_CASE("a peer that may not write still hits what writers stored", "[daemon][engine][auth]") {
  Fixture f;
  const v1::KernelDescriptor d = AliasedCpuKernel("ir-w");
  REQUIRE(f.CompileSync(d, kWriter).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(f.store->Stats().artifacts == 1);
  CHECK(f.store->Stats().aliases == 1);
  v1::CompileResult hit = f.CompileSync(d, kReader);
  CHECK(hit.status() == v1::CACHE_STATUS_HIT);
  CHECK(f.compiler.calls() == 1);
  // The hit records no alias for the reader.
  CHECK(f.store->Stats().aliases == 1);
  CHECK(f.engine->Lookup(QueryFor(d), kReader, false).status() == v1::CACHE_STATUS_MISS);
  CHECK(f.engine->Lookup(QueryFor(d), kWriter, false).status() == v1::CACHE_STATUS_ALIAS_HIT);
}

TEST_CASE("a peer that may not write stores no CUDA stage outputs", "[daemon][engine][auth]") {
  Fixture f;
  v1::KernelDescriptor d;
  d.set_ir("cuda-ir");
  d.mutable_target()->mutable_cuda()->set_sm("sm_90");
  REQUIRE(f.CompileSync(d, kReader).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(f.store->Stats().stage_entries == 0);
  CHECK(f.store->Stats().artifacts == 0);
  REQUIRE(f.CompileSync(d, kWriter).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(f.store->Stats().stage_entries > 0);
  CHECK(f.compiler.ptx_calls() == 2);
}

TEST_CASE("ResetStats zeroes the engine's counters but not the store's sizes", "[daemon][engine]") {
  Fixture f;
  const v1::KernelDescriptor d = AliasedCpuKernel("ir-s");
  REQUIRE(f.CompileSync(d, kWriter).status() == v1::CACHE_STATUS_COMPILED);
  REQUIRE(f.CompileSync(d, kWriter).status() == v1::CACHE_STATUS_HIT);
  v1::FastKeyQuery missing = QueryFor(d);
  missing.set_fast_key("other");
  REQUIRE(f.engine->Lookup(missing, kWriter, false).status() == v1::CACHE_STATUS_MISS);
  EngineStats before = f.engine->Stats();
  REQUIRE(before.compiles == 1);
  REQUIRE(before.hits == 1);
  REQUIRE(before.misses == 1);
  REQUIRE(before.requests == 3);

  f.engine->ResetStats();
  EngineStats after = f.engine->Stats();
  CHECK(after.compiles == 0);
  CHECK(after.hits == 0);
  CHECK(after.misses == 0);
  CHECK(after.requests == 0);
  CHECK(after.errors == 0);
  CHECK(after.compile_seconds == 0);
  CHECK(f.store->Stats().artifacts == 1);  // the store's facts are not the engine's to reset
  CHECK(after.toolchain == before.toolchain);
  // Counting resumes from zero.
  REQUIRE(f.CompileSync(d, kWriter).status() == v1::CACHE_STATUS_HIT);
  CHECK(f.engine->Stats().hits == 1);
}
