// Identical concurrent compiles run the compiler once.
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

TEST_CASE("16 concurrent identical compile requests cause exactly one compile",
          "[integration][coalescing]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string target = CudaBuilt() ? "cuda:sm_90" : "cpu:x86-64";
  const std::string file = CudaBuilt() ? "cuda/stencil2d.ll" : "cpu/stencil2d.ll";
  v1::KernelDescriptor d = Descriptor(file, target);
  std::vector<v1::CompileResult> results(16);
  std::vector<std::thread> threads;
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&, i] {
      auto client = daemon.Connect();
      results[i] = CompileOne(*client, d);
    });
  }
  for (std::thread& t : threads) t.join();
  int compiled = 0;
  for (const v1::CompileResult& r : results) {
    REQUIRE(r.has_artifact());
    CHECK(r.artifact().payload() == results[0].artifact().payload());
    compiled += r.status() == v1::CACHE_STATUS_COMPILED;
  }
  CHECK(compiled == 1);
  auto stats = daemon.Connect()->Stats();
  REQUIRE(stats.ok());
  CHECK(stats->compiles() == 1);
  CHECK(stats->coalesced() + stats->hits() == 15);
}
