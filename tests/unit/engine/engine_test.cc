// Engine logic with a scripted compiler (counts calls, can be held at a gate)
// over a real RocksDB store in a temporary directory.
#include <algorithm>
#include <catch2/catch.hpp>
#include <condition_variable>
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

using engine::testing::ScriptedCompiler;
using Fixture = engine::testing::EngineFixture<ScriptedCompiler>;

v1::KernelDescriptor Kernel(const std::string& ir) {
  v1::KernelDescriptor d;
  d.set_ir(ir);
  d.mutable_target()->mutable_cpu()->set_cpu("x86-64");
  return d;
}

}  // namespace

TEST_CASE("identical in-flight compiles are coalesced into one", "[daemon][engine]") {
  Fixture f;
  f.compiler.Close();
  v1::KernelDescriptor d = Kernel("ir");
  (void)f.engine->Explain(d, {});  // its digest memoized: Compile keys on this thread
  std::vector<v1::CompileResult> results(8);
  std::latch done(8);
  for (int i = 0; i < 8; ++i) {
    f.engine->Compile(d, {}, false, nullptr, [&, i](v1::CompileResult r) {
      results[i] = std::move(r);
      done.count_down();
    });
  }
  CHECK(f.engine->Stats().coalesced == 7);  // all joined before the compile could finish
  f.compiler.Open();
  done.wait();
  CHECK(f.compiler.calls() == 1);
  int compiled = 0, coalesced = 0;
  for (const auto& r : results) {
    compiled += r.status() == v1::CACHE_STATUS_COMPILED;
    coalesced += r.status() == v1::CACHE_STATUS_COALESCED;
    CHECK(r.artifact().payload() == "artifact:ir");
  }
  CHECK(compiled == 1);
  CHECK(coalesced == 7);
}

TEST_CASE("each waiter of a coalesced compile gets its own lineage's miss reason", "[daemon][engine]") {
  // Two tenants' waiters of one compile, interleaved: the tenant whose
  // kernel (entry point "f") had an earlier artifact is told what changed,
  // the other nothing, however the bursts of alike waiters fall.
  Fixture f;
  const Peer one{"uid:1"}, two{"uid:2"};
  v1::KernelDescriptor old_kernel = Kernel("old");
  old_kernel.add_entry_points("f");
  const v1::CompileResult old_result = f.CompileSync(old_kernel, one);
  REQUIRE(old_result.status() == v1::CACHE_STATUS_COMPILED);
  v1::KernelDescriptor d = Kernel("new");
  d.add_entry_points("f");
  (void)f.engine->Explain(d, {});  // its digest memoized: Compile keys on this thread
  f.compiler.Close();
  const std::vector<Peer> peers = {one, one, two, one, two, two};
  std::vector<v1::CompileResult> results(peers.size());
  std::latch done(static_cast<std::ptrdiff_t>(peers.size()));
  for (std::size_t i = 0; i < peers.size(); ++i) {
    f.engine->Compile(d, peers[i], false, nullptr, [&, i](v1::CompileResult r) {
      results[i] = std::move(r);
      done.count_down();
    });
  }
  f.compiler.Open();
  done.wait();
  CHECK(f.compiler.calls() == 2);
  for (std::size_t i = 0; i < peers.size(); ++i) {
    INFO("waiter " << i << " of " << peers[i].tenant);
    REQUIRE(results[i].status() != v1::CACHE_STATUS_ERROR);
    if (peers[i].tenant == one.tenant) {
      REQUIRE(results[i].has_miss_reason());
      CHECK(results[i].miss_reason().previous_artifact_key() == old_result.artifact().artifact_key());
      CHECK(results[i].miss_reason().basis() == "entry_points");
      REQUIRE(results[i].miss_reason().changes_size() > 0);
      CHECK(results[i].miss_reason().changes(0).name() == "ir");
    } else {
      CHECK_FALSE(results[i].has_miss_reason());
    }
  }
}

TEST_CASE("a stored artifact is served without compiling", "[daemon][engine]") {
  Fixture f;
  CHECK(f.CompileSync(Kernel("ir")).status() == v1::CACHE_STATUS_COMPILED);
  v1::CompileResult hit = f.CompileSync(Kernel("ir"));
  CHECK(hit.status() == v1::CACHE_STATUS_HIT);
  CHECK(hit.artifact().payload() == "artifact:ir");
  CHECK(f.compiler.calls() == 1);
}

TEST_CASE("compile errors reach every waiter and are not stored", "[daemon][engine]") {
  Fixture f;
  v1::CompileResult r = f.CompileSync(Kernel("fail"));
  CHECK(r.status() == v1::CACHE_STATUS_ERROR);
  CHECK(r.error().code() == static_cast<int>(Code::kInvalidArgument));
  CHECK(f.store->Stats().artifacts == 0);
  CHECK(f.CompileSync(Kernel("fail")).status() == v1::CACHE_STATUS_ERROR);
  CHECK(f.compiler.calls() == 2);
}

TEST_CASE("no_store compiles every time and writes nothing", "[daemon][engine]") {
  Fixture f;
  v1::KernelDescriptor d = Kernel("ir");
  d.set_no_store(true);
  d.set_fast_key("k");
  CHECK(f.CompileSync(d).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(f.CompileSync(d).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(f.compiler.calls() == 2);
  CHECK(f.store->Stats().artifacts == 0);
  CHECK(f.store->Stats().aliases == 0);
}

TEST_CASE("recache compiles again and overwrites", "[daemon][engine]") {
  Fixture f;
  CHECK(f.CompileSync(Kernel("ir")).status() == v1::CACHE_STATUS_COMPILED);
  v1::KernelDescriptor d = Kernel("ir");
  d.set_recache(true);
  CHECK(f.CompileSync(d).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(f.compiler.calls() == 2);
  CHECK(f.store->Stats().artifacts == 1);
}

TEST_CASE("a fast key records an alias that Lookup resolves for the same tenant only", "[daemon][engine]") {
  Fixture f;
  v1::KernelDescriptor d = Kernel("ir");
  d.set_fast_key("fast");
  d.set_namespace_("ns");
  REQUIRE(f.CompileSync(d, Peer{"uid:1000"}).status() == v1::CACHE_STATUS_COMPILED);
  v1::FastKeyQuery q;
  q.set_fast_key("fast");
  q.set_namespace_("ns");
  *q.mutable_target() = d.target();
  v1::CompileResult hit = f.engine->Lookup(q, Peer{"uid:1000"}, false);
  CHECK(hit.status() == v1::CACHE_STATUS_ALIAS_HIT);
  CHECK(hit.artifact().payload() == "artifact:ir");
  CHECK(f.engine->Lookup(q, Peer{"uid:1001"}, false).status() == v1::CACHE_STATUS_MISS);
}

TEST_CASE("a hit is checked against the requested entry points", "[daemon][engine]") {
  Fixture f;
  REQUIRE(f.CompileSync(Kernel("ir")).status() == v1::CACHE_STATUS_COMPILED);
  v1::KernelDescriptor d = Kernel("ir");
  d.add_entry_points("missing");
  v1::CompileResult r = f.CompileSync(d);
  CHECK(r.status() == v1::CACHE_STATUS_ERROR);
  CHECK_THAT(r.error().message(), Catch::Contains("missing"));
}

TEST_CASE("after Drain, requests that need a compile are UNAVAILABLE", "[daemon][engine]") {
  Fixture f;
  f.engine->Drain();
  v1::CompileResult r = f.CompileSync(Kernel("ir"));
  CHECK(r.error().code() == static_cast<int>(Code::kUnavailable));
}

TEST_CASE("a change that only affects linking reuses the cached PTX", "[daemon][engine]") {
  Fixture f;
  v1::KernelDescriptor d;
  d.set_ir("kernel");
  d.mutable_target()->mutable_cuda()->set_sm("sm_90");
  REQUIRE(f.CompileSync(d).status() == v1::CACHE_STATUS_COMPILED);
  d.mutable_options()->set_max_registers(32);
  v1::CompileResult r = f.CompileSync(d);
  CHECK(r.status() == v1::CACHE_STATUS_STAGE_HIT);
  CHECK(r.artifact().payload() == "cubin:ptx:kernel/32");
  CHECK(f.compiler.ptx_calls() == 1);
  CHECK(f.compiler.link_calls() == 2);
  CHECK(f.engine->Stats().stage_hits == 1);
}

TEST_CASE("recache bypasses the stage caches", "[daemon][engine]") {
  Fixture f;
  v1::KernelDescriptor d;
  d.set_ir("kernel");
  d.mutable_target()->mutable_cuda()->set_sm("sm_90");
  REQUIRE(f.CompileSync(d).status() == v1::CACHE_STATUS_COMPILED);
  d.set_recache(true);
  CHECK(f.CompileSync(d).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(f.compiler.ptx_calls() == 2);
}

TEST_CASE("explain lists every key component and the key they hash to", "[daemon][engine]") {
  Fixture f;
  v1::KernelDescriptor d = Kernel("ir");
  (*d.mutable_key_extras())["FRONTEND"] = "v2";
  v1::Explanation e = f.engine->Explain(d, Peer{"uid:1"});
  REQUIRE_FALSE(e.has_error());
  CHECK(e.artifact_key().size() == 32);
  std::vector<std::string> names;
  for (const auto& c : e.components()) names.push_back(c.name());
  for (const char* want : {"schema", "input_kind", "ir", "target", "options.opt_level", "options.fast_math",
                           "options.fmad", "options.debug", "options.lineinfo", "options.max_registers",
                           "options.link_libdevice", "key_extras.FRONTEND", "toolchain"}) {
    INFO(want);
    CHECK(std::find(names.begin(), names.end(), want) != names.end());
  }
  // The same key the compile path uses.
  v1::CompileResult r = f.CompileSync(d);
  CHECK(r.artifact().artifact_key() == e.artifact_key());
}

namespace {

struct Answer {
  v1::CompileResult result;
  std::latch done{1};
};

void CompileAsync(Engine& engine, const v1::KernelDescriptor& d,
                  const std::shared_ptr<Engine::Call>& call, Answer& answer) {
  engine.Compile(d, {}, false, call, [&answer](v1::CompileResult r) {
    answer.result = std::move(r);
    answer.done.count_down();
  });
}

}  // namespace

TEST_CASE("keying that waits for a busy worker holds neither the caller nor hits", "[daemon][engine]") {
  Fixture f;
  const v1::KernelDescriptor warm = Kernel("warm");
  REQUIRE(f.CompileSync(warm).status() == v1::CACHE_STATUS_COMPILED);
  f.compiler.CloseDigests();  // new IR cannot be keyed until reopened
  Answer fresh;
  const v1::KernelDescriptor cold = Kernel("cold");
  CompileAsync(*f.engine, cold, nullptr, fresh);  // returns while its keying waits
  f.compiler.WaitForDigestCalls(2);
  // On the same thread: IR keyed before needs no worker, so it is a hit
  // while the other request's digest is still held.
  v1::CompileResult hit = f.CompileSync(warm);
  CHECK(hit.status() == v1::CACHE_STATUS_HIT);
  CHECK(f.engine->Stats().in_flight == 1);  // the held keying
  f.compiler.OpenDigests();
  fresh.done.wait();
  CHECK(fresh.result.status() == v1::CACHE_STATUS_COMPILED);
  CHECK(f.compiler.digest_calls() == 2);
}

TEST_CASE("a cancelled call is answered at once and its lone compile is told to stop",
          "[daemon][engine]") {
  Fixture f;
  f.compiler.Close();
  auto call = std::make_shared<Engine::Call>();
  Answer a;
  v1::KernelDescriptor d = Kernel("ir");
  CompileAsync(*f.engine, d, call, a);
  f.compiler.WaitForCalls(1);  // the compile runs, held at the gate
  f.engine->Cancel(call);
  a.done.wait();  // before the compile could finish: the gate is closed
  CHECK(a.result.status() == v1::CACHE_STATUS_ERROR);
  CHECK(a.result.error().code() == static_cast<int>(Code::kCancelled));
  // A later item of the same call is answered CANCELLED without compiling.
  Answer later;
  CompileAsync(*f.engine, Kernel("other"), call, later);
  later.done.wait();
  CHECK(later.result.error().code() == static_cast<int>(Code::kCancelled));
  f.compiler.Open();
  f.engine->Drain();
  CHECK(f.compiler.saw_cancelled() == 1);
  CHECK(f.compiler.calls() == 1);
  CHECK(f.engine->Stats().cancelled == 2);
}

TEST_CASE("a compile another call still waits for survives one caller's cancel",
          "[daemon][engine]") {
  Fixture f;
  f.compiler.Close();
  auto a_call = std::make_shared<Engine::Call>();
  auto b_call = std::make_shared<Engine::Call>();
  Answer a, b;
  v1::KernelDescriptor d = Kernel("ir");
  CompileAsync(*f.engine, d, a_call, a);
  CompileAsync(*f.engine, d, b_call, b);
  f.engine->Cancel(a_call);
  a.done.wait();
  CHECK(a.result.error().code() == static_cast<int>(Code::kCancelled));
  f.compiler.Open();
  b.done.wait();
  CHECK(b.result.status() == v1::CACHE_STATUS_COMPILED);
  CHECK(b.result.artifact().payload() == "artifact:ir");
  CHECK(f.compiler.saw_cancelled() == 0);
}

TEST_CASE("after a flight is cancelled the next request starts a fresh one", "[daemon][engine]") {
  Fixture f;
  f.compiler.Close();
  auto call = std::make_shared<Engine::Call>();
  Answer a, c;
  v1::KernelDescriptor d = Kernel("ir");
  CompileAsync(*f.engine, d, call, a);
  f.engine->Cancel(call);
  a.done.wait();
  CompileAsync(*f.engine, d, nullptr, c);  // must not join the dying flight
  CHECK(f.engine->Stats().coalesced == 0);
  f.compiler.Open();
  c.done.wait();
  CHECK(c.result.status() != v1::CACHE_STATUS_ERROR);
  CHECK(c.result.artifact().payload() == "artifact:ir");
}

TEST_CASE("an input that crashed the compiler is answered from memory", "[daemon][engine]") {
  Fixture f;
  v1::CompileResult first = f.CompileSync(Kernel("crash"));
  CHECK(first.error().code() == static_cast<int>(Code::kInternal));
  v1::CompileResult again = f.CompileSync(Kernel("crash"));
  CHECK(again.error().code() == static_cast<int>(Code::kInternal));
  CHECK_THAT(again.error().message(), Catch::Contains("compiler crashed") && Catch::Contains("remembered"));
  CHECK(f.compiler.calls() == 1);
  CHECK(f.engine->Stats().remembered_failures == 1);
  CHECK(f.store->Stats().artifacts == 0);
}

TEST_CASE("one waiter's wrong entry point does not fail the others on its flight", "[daemon][engine]") {
  Fixture f;
  f.compiler.Close();
  v1::KernelDescriptor wrong = Kernel("ir");
  wrong.add_entry_points("nope");
  v1::KernelDescriptor right = Kernel("ir");
  right.add_entry_points("f");
  (void)f.engine->Explain(right, {});  // its digest memoized: Compile keys on this thread
  Answer a, b;
  CompileAsync(*f.engine, wrong, nullptr, a);  // leads the flight
  CompileAsync(*f.engine, right, nullptr, b);  // joins it
  CHECK(f.engine->Stats().coalesced == 1);
  f.compiler.Open();
  a.done.wait();
  b.done.wait();
  CHECK(a.result.error().code() == static_cast<int>(Code::kInvalidArgument));
  CHECK_THAT(a.result.error().message(), Catch::Contains("nope"));
  REQUIRE(b.result.has_artifact());
  CHECK(b.result.artifact().payload() == "artifact:ir");
}

TEST_CASE("a tenant whose inputs keep using up workers is refused new work, keeps its hits, and "
          "does not affect other tenants",
          "[daemon][engine][budget]") {
  Fixture f([](EngineConfig& c) { c.failure_budget = {3, std::chrono::hours(1)}; });
  const Peer storm{"token:storm"}, good{"token:good"};
  REQUIRE(f.CompileSync(Kernel("warm"), storm).status() == v1::CACHE_STATUS_COMPILED);
  // Keying failures (the digest worker refuses the IR) and compile failures
  // both use up a worker.
  CHECK(f.CompileSync(Kernel("bad digest 1"), storm).error().code() == int(Code::kInvalidArgument));
  CHECK(f.CompileSync(Kernel("bad digest 2"), storm).error().code() == int(Code::kInvalidArgument));
  CHECK(f.CompileSync(Kernel("fail"), storm).error().code() == int(Code::kInvalidArgument));
  const int digests = f.compiler.digest_calls(), compiles = f.compiler.calls();

  v1::CompileResult refused = f.CompileSync(Kernel("bad digest 3"), storm);
  CHECK(refused.error().code() == int(Code::kResourceExhausted));
  CHECK(f.CompileSync(Kernel("fresh"), storm).error().code() == int(Code::kResourceExhausted));
  CHECK(f.compiler.digest_calls() == digests);  // refused before any worker was asked
  CHECK(f.compiler.calls() == compiles);
  CHECK(f.CompileSync(Kernel("warm"), storm).status() == v1::CACHE_STATUS_HIT);

  CHECK(f.CompileSync(Kernel("fresh"), good).status() == v1::CACHE_STATUS_COMPILED);
  const EngineStats s = f.engine->Stats();
  CHECK(s.peer_worker_failures == 3);
  CHECK(s.peer_failure_refusals == 2);
}
