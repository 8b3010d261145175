// Configured limits: past each one the answer names the limit, nothing is
// stored, and the daemon keeps serving.
#include <catch2/catch.hpp>
#include <sstream>
#include <thread>

#include "client/wire_target.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

v1::KernelDescriptor CpuKernel(const std::string& ir) {
  v1::KernelDescriptor d;
  d.set_ir(ir);
  *d.mutable_target() = *client::ParseWireTarget("cpu:x86-64");
  return d;
}
}  // namespace

TEST_CASE("IR above --max-ir-bytes is refused RESOURCE_EXHAUSTED", "[integration][limits]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--max-ir-bytes", "1K"});
  daemon.Start();
  std::string ir = "define void @f() {\n  ret void\n}\n";
  ir.append(2048, ';');
  v1::CompileResult r = CompileOne(*daemon.Connect(), CpuKernel(ir + "\n"));
  CHECK(r.error().code() == static_cast<int>(Code::kResourceExhausted));
  CHECK_THAT(r.error().message(), Catch::Contains("--max-ir-bytes"));
  CHECK(CompileOne(*daemon.Connect(), Descriptor("cpu/saxpy.ll", "cpu:x86-64")).has_artifact() == false);
  CHECK(StatsOf(daemon).store_artifacts() == 0);  // saxpy.ll is larger than 1K too
}

TEST_CASE("batches above --max-batch are refused as a whole", "[integration][limits]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--max-batch", "2"});
  daemon.Start();
  v1::CompileRequest compile;
  for (int i = 0; i < 3; ++i) *compile.add_kernels() = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  auto c = daemon.Connect()->Compile(compile);
  CHECK(c.status().code() == Code::kResourceExhausted);
  CHECK_THAT(c.status().message(), Catch::Contains("--max-batch"));
  v1::LookupRequest lookup;
  for (int i = 0; i < 3; ++i) {
    v1::FastKeyQuery* q = lookup.add_queries();
    q->set_fast_key("k" + std::to_string(i));
    *q->mutable_target() = *client::ParseWireTarget("cpu:x86-64");
  }
  auto l = daemon.Connect()->Lookup(lookup);
  CHECK(l.status().code() == Code::kResourceExhausted);
  compile.mutable_kernels()->RemoveLast();
  auto ok = daemon.Connect()->Compile(compile);
  REQUIRE(ok.ok());
  CHECK(ok->results(0).has_artifact());
}

TEST_CASE("an artifact too large for a response is refused and not stored", "[integration][limits]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--max-message-bytes", "1M"});
  daemon.Start();
  v1::KernelDescriptor d = CpuKernel(
      "@g = global <2097152 x i8> splat (i8 1)\n"
      "define i8 @f(i64 %i) {\n  %p = getelementptr i8, ptr @g, i64 %i\n"
      "  %v = load i8, ptr %p\n  ret i8 %v\n}\n");
  v1::CompileResult r = CompileOne(*daemon.Connect(), d);
  CHECK(r.error().code() == static_cast<int>(Code::kResourceExhausted));
  CHECK_THAT(r.error().message(), Catch::Contains("--max-message-bytes"));
  CHECK(StatsOf(daemon).store_artifacts() == 0);
}

TEST_CASE("a full compile queue answers UNAVAILABLE naming --max-queue", "[integration][limits]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--workers", "1", "--max-queue", "1"});
  daemon.Start();
  // One slow compile runs, one waits; a third finds the queue full.
  std::vector<std::thread> slow;
  for (const char* name : {"a", "b"}) {
    slow.emplace_back([&daemon, name] {
      try {
        (void)CompileOne(*daemon.Connect(), SlowCpuKernel(40000, name));
      } catch (const std::exception&) {
        // ended by the daemon's SIGKILL below
      }
    });
  }
  KillAndJoin stop(daemon, slow);
  auto client = daemon.Connect();
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::uint64_t in_flight = 0;
  while (in_flight < 2 && std::chrono::steady_clock::now() < give_up) {
    auto s = client->Stats();
    REQUIRE(s.ok());
    in_flight = s->in_flight();
  }
  REQUIRE(in_flight == 2);
  v1::CompileResult r = CompileOne(*client, SlowCpuKernel(100, "c"));
  CHECK(r.error().code() == static_cast<int>(Code::kUnavailable));
  CHECK_THAT(r.error().message(), Catch::Contains("--max-queue"));
  auto s = client->Stats();
  REQUIRE(s.ok());
  CHECK(s->queue_rejections() == 1);
}
