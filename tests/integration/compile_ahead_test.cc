// A CUDA miss's compile begun beside its digest (CallControl::compile_ahead,
// worker.proto's DigestRequest.compile_ahead). A compile worker answers the
// digest while it compiles; the compile request that asks for exactly that
// compile is answered from it, any other drops it; and through the daemon,
// a miss is answered with the artifact a fresh compile makes, while one
// given up (the IR was stored under another spelling) costs no later
// compile its worker.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "common/target.h"
#include "compiler/compiler.h"
#include "compiler/worker_process.h"
#include "compiler/worker_protocol.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

// A compile through to a cubin of `ir` for sm_90, as the pool encodes it.
worker::v1::CompileRequest ThroughCubinRequest(const std::string& ir) {
  worker::v1::CompileRequest c;
  c.set_ir(ir);
  compiler::ToWire(ParseTarget("cuda:sm_90").value(), c.mutable_target());
  compiler::ToWire(CompileOptions{}, c.mutable_options());
  c.set_input_kind(static_cast<int>(compiler::InputKindId::kLlvmText));
  return c;
}

worker::v1::Request CompileRequestOf(const std::string& ir) {
  worker::v1::Request r;
  *r.mutable_compile_through_cubin() = ThroughCubinRequest(ir);
  return r;
}

// The digest of `ir`; with `ahead`, its compile (CompileRequestOf(ir)) begun beside it.
worker::v1::Request DigestRequestOf(const std::string& ir, bool ahead) {
  worker::v1::Request r;
  worker::v1::DigestRequest* d = r.mutable_digest();
  d->set_ir(ir);
  compiler::ToWire(ParseTarget("cuda:sm_90").value(), d->mutable_target());
  if (ahead) {
    *d->mutable_compile_ahead() = ThroughCubinRequest(ir);
    d->mutable_compile_ahead()->clear_ir();  // the digest's
  }
  return r;
}

worker::v1::Request DropRequest() {
  worker::v1::Request r;
  r.mutable_drop_ahead();
  return r;
}

class AheadWorker {
 public:
  AheadWorker() {
    compiler::WorkerSpawnConfig config;
    config.executable = DaemonBinary();
    auto spawned = compiler::WorkerProcess::Spawn(config);
    INFO(spawned.status().ToString());
    REQUIRE(spawned.ok());
    process_ = std::move(spawned).value();
  }
  worker::v1::Response Call(const worker::v1::Request& request) {
    auto response = process_->Call(request, compiler::CallControl{});
    INFO(response.status().ToString());
    REQUIRE(response.ok());
    return std::move(response).value();
  }

 private:
  std::unique_ptr<compiler::WorkerProcess> process_;
};

std::string CudaData(const std::string& relative) {
  return Descriptor(relative, "cuda:sm_90").ir();
}

}  // namespace

TEST_CASE("a compile worker answers a digest while it compiles, and the compile asked next from that",
          "[integration][workers][compile_ahead]") {
  if (!CudaBuilt()) {
    WARN("built without the CUDA Toolkit (nvJitLink): skipping, no cubin to compile");
    return;
  }
  const std::string saxpy = CudaData("cuda/saxpy.ll"), stencil = CudaData("cuda/stencil2d.ll");
  AheadWorker worker;
  // What a worker makes without any compile ahead.
  const worker::v1::Response fresh = worker.Call(CompileRequestOf(saxpy));
  REQUIRE(fresh.code() == 0);
  REQUIRE_FALSE(fresh.output().payload().empty());
  const worker::v1::Response fresh_stencil = worker.Call(CompileRequestOf(stencil));
  REQUIRE(fresh_stencil.code() == 0);
  const worker::v1::Response digest = worker.Call(DigestRequestOf(saxpy, false));
  REQUIRE(digest.code() == 0);
  REQUIRE(digest.digest().size() == 32);

  SECTION("the compile asked for is answered from the one begun with the digest") {
    const worker::v1::Response ahead = worker.Call(DigestRequestOf(saxpy, true));
    CHECK(ahead.code() == 0);
    CHECK(ahead.digest() == digest.digest());
    const worker::v1::Response compiled = worker.Call(CompileRequestOf(saxpy));
    CHECK(compiled.answered_ahead());
    CHECK(compiled.code() == 0);
    CHECK(compiled.output().payload() == fresh.output().payload());
    CHECK(compiled.output().ptx() == fresh.output().ptx());
    CHECK(compiled.ptx_stage().entries_size() == fresh.ptx_stage().entries_size());
    // Answered once: the same request again is compiled afresh.
    const worker::v1::Response again = worker.Call(CompileRequestOf(saxpy));
    CHECK_FALSE(again.answered_ahead());
    CHECK(again.output().payload() == fresh.output().payload());
  }
  SECTION("another compile is not answered from it") {
    REQUIRE(worker.Call(DigestRequestOf(saxpy, true)).code() == 0);
    const worker::v1::Response other = worker.Call(CompileRequestOf(stencil));
    CHECK_FALSE(other.answered_ahead());
    CHECK(other.code() == 0);
    CHECK(other.output().payload() == fresh_stencil.output().payload());
    // ... and it is gone: its own request later is compiled afresh.
    CHECK_FALSE(worker.Call(CompileRequestOf(saxpy)).answered_ahead());
  }
  SECTION("dropped, it answers nothing, and the worker goes on") {
    REQUIRE(worker.Call(DigestRequestOf(saxpy, true)).code() == 0);
    const worker::v1::Response dropped = worker.Call(DropRequest());
    CHECK(dropped.code() == 0);
    CHECK_FALSE(dropped.has_output());
    const worker::v1::Response next = worker.Call(CompileRequestOf(saxpy));
    CHECK_FALSE(next.answered_ahead());
    CHECK(next.output().payload() == fresh.output().payload());
  }
  SECTION("IR that does not parse: both the digest and the compile ahead fail") {
    const worker::v1::Response refused = worker.Call(DigestRequestOf("define void @broken( {", true));
    CHECK(refused.code() == static_cast<int>(Code::kInvalidArgument));
    CHECK(refused.digest().empty());
    // Dropping says the compile failed too: the pool retires such a worker.
    CHECK(worker.Call(DropRequest()).code() != 0);
  }
}

TEST_CASE("a CUDA miss is answered from the compile begun beside its digest, a fresh compile's artifact",
          "[integration][workers][compile_ahead]") {
  if (!CudaBuilt()) {
    WARN("built without the CUDA Toolkit (nvJitLink): skipping, no cubin to compile");
    return;
  }
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--workers", "1"});
  daemon.Start();
  auto client = daemon.Connect();

  v1::KernelDescriptor saxpy = Descriptor("cuda/saxpy.ll", "cuda:sm_90");
  const v1::CompileResult first = CompileOne(*client, saxpy);
  REQUIRE(first.status() == v1::CACHE_STATUS_COMPILED);
  v1::Stats stats = StatsOf(daemon);
  CHECK(stats.compiles_ahead() == 1);
  CHECK(stats.compiles_answered_ahead() == 1);
  CHECK(stats.compile_parses_reused() == 0);  // the compile ahead parsed for itself
  // Compiled again without a digest (it is remembered), so without a
  // compile ahead: the same artifact.
  saxpy.set_recache(true);
  const v1::CompileResult again = CompileOne(*client, saxpy);
  REQUIRE(again.status() == v1::CACHE_STATUS_COMPILED);
  CHECK(again.artifact().payload() == first.artifact().payload());
  CHECK(StatsOf(daemon).compiles_ahead() == 1);

  // The same kernel spelled otherwise: digested (and its compile begun),
  // then found stored. The compile is given up, and its worker, the only
  // compile worker, serves the next miss.
  v1::KernelDescriptor respelled = Descriptor("cuda/saxpy.ll", "cuda:sm_90");
  respelled.set_ir(respelled.ir() + "\n; the same kernel, another spelling\n");
  CHECK(CompileOne(*client, respelled).status() == v1::CACHE_STATUS_HIT);
  stats = StatsOf(daemon);
  CHECK(stats.compiles_ahead() == 2);
  CHECK(stats.compiles_answered_ahead() == 1);
  const v1::CompileResult stencil = CompileOne(*client, Descriptor("cuda/stencil2d.ll", "cuda:sm_90"));
  REQUIRE(stencil.status() == v1::CACHE_STATUS_COMPILED);
  v1::KernelDescriptor stencil_again = Descriptor("cuda/stencil2d.ll", "cuda:sm_90");
  stencil_again.set_recache(true);
  CHECK(CompileOne(*client, stencil_again).artifact().payload() == stencil.artifact().payload());
  stats = StatsOf(daemon);
  CHECK(stats.worker_crashes() == 0);
  CHECK(stats.worker_starts() == stats.workers_live());  // none was replaced
}
