// Per-level stats through a real daemon and real compiles: artifact misses
// and hits, the compile time hits save, and CUDA stage hits and misses
// (nvJitLink runs on the CPU: no GPU needed).
#include <catch2/catch.hpp>

#include "tests/support/cli_json.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

TEST_CASE(
    "a first compile is an artifact miss, and its repeat and its fast key are hits that save its "
    "compile time",
    "[integration][stats]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  d.set_fast_key("saxpy-v1");
  REQUIRE(CompileOne(*client, d).status() == v1::CACHE_STATUS_COMPILED);
  v1::Stats s = StatsOf(daemon);
  CHECK(s.artifact_misses() == 1);
  CHECK(s.hits() == 0);
  CHECK(s.compile_seconds_saved() == 0);

  REQUIRE(CompileOne(*client, d).status() == v1::CACHE_STATUS_HIT);
  s = StatsOf(daemon);
  CHECK(s.artifact_misses() == 1);
  CHECK(s.hits() == 1);
  const double one_compile = s.compile_seconds_saved();
  CHECK(one_compile > 0);  // the stored compile time of a real compile

  REQUIRE(LookupOne(daemon, d).status() == v1::CACHE_STATUS_ALIAS_HIT);
  CHECK(StatsOf(daemon).compile_seconds_saved() == Approx(2 * one_compile));
}

TEST_CASE("CUDA: a change only linking reads is a stage hit, different IR a stage miss",
          "[integration][stats][cuda]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  v1::KernelDescriptor d = Descriptor("cuda/saxpy.ll", "cuda:sm_90");
  REQUIRE(CompileOne(*client, d).status() == v1::CACHE_STATUS_COMPILED);
  v1::Stats s = StatsOf(daemon);
  CHECK(s.stage_misses() == 1);
  CHECK(s.stage_hits() == 0);

  d.mutable_options()->set_max_registers(32);  // the PTX is shared
  REQUIRE(CompileOne(*client, d).status() == v1::CACHE_STATUS_STAGE_HIT);
  s = StatsOf(daemon);
  CHECK(s.stage_hits() == 1);
  CHECK(s.stage_misses() == 1);
  CHECK(s.artifact_misses() == 2);

  REQUIRE(CompileOne(*client, Descriptor("cuda/stencil2d.ll", "cuda:sm_90")).status() ==
          v1::CACHE_STATUS_COMPILED);
  s = StatsOf(daemon);
  CHECK(s.stage_misses() == 2);
  CHECK(s.stage_hits() == 1);
}

TEST_CASE("the stats reset zeroes the per-level misses and the time saved",
          "[integration][stats]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  const v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  REQUIRE(CompileOne(*client, d).status() == v1::CACHE_STATUS_COMPILED);
  REQUIRE(CompileOne(*client, d).status() == v1::CACHE_STATUS_HIT);
  auto before = client->Stats(/*reset=*/true);
  REQUIRE(before.ok());
  CHECK(before->artifact_misses() == 1);
  CHECK(before->compile_seconds_saved() > 0);
  v1::Stats after = StatsOf(daemon);
  CHECK(after.artifact_misses() == 0);
  CHECK(after.stage_misses() == 0);
  CHECK(after.compile_seconds_saved() == 0);
}
