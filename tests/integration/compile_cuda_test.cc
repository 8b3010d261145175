// A real qdcached compiles CUDA kernels to cubins and serves repeats from its store.
#include <catch2/catch.hpp>

#include "tests/support/cli_json.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

TEST_CASE("cuda kernels compile to a cubin for the exact SM", "[integration][cuda]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  for (const char* kernel : {"saxpy", "block_reduce", "stencil2d"}) {
    for (const auto& [target, sm] : {std::pair{"cuda:sm_90", 90}, std::pair{"cuda:sm_75", 75}}) {
      INFO(kernel << " " << target);
      v1::CompileResult r = CompileOne(*client, Descriptor(std::string("cuda/") + kernel + ".ll", target));
      REQUIRE(r.status() == v1::CACHE_STATUS_COMPILED);
      CHECK(r.artifact().kind() == v1::ARTIFACT_KIND_CUBIN);
      CHECK(CubinSm(r.artifact().payload()) == sm);
      CHECK(r.artifact().artifact_key().size() == 32);
      REQUIRE(r.artifact().entries_size() >= 1);
      CHECK(r.artifact().entries(0).name() == kernel);
    }
  }
}

TEST_CASE("a repeated cuda compile is a hit with identical bytes, also after a restart",
          "[integration][cuda]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  v1::KernelDescriptor d = Descriptor("cuda/saxpy.ll", "cuda:sm_90");
  std::string first;
  {
    auto client = daemon.Connect();
    v1::CompileResult compiled = CompileOne(*client, d);
    REQUIRE(compiled.status() == v1::CACHE_STATUS_COMPILED);
    first = compiled.artifact().payload();
    v1::CompileResult hit = CompileOne(*client, d);
    REQUIRE(hit.status() == v1::CACHE_STATUS_HIT);
    CHECK(hit.artifact().payload() == first);
    CHECK(hit.artifact().artifact_key() == compiled.artifact().artifact_key());
  }
  REQUIRE(daemon.Stop() == 0);
  daemon.Start();
  auto client = daemon.Connect();
  v1::CompileResult after = CompileOne(*client, d);
  REQUIRE(after.status() == v1::CACHE_STATUS_HIT);
  CHECK(after.artifact().payload() == first);
  auto stats = client->Stats();
  REQUIRE(stats.ok());
  CHECK(stats->compiles() == 0);
}

TEST_CASE("include_ptx returns the PTX the cubin was linked from", "[integration][cuda]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  v1::CompileRequest request;
  *request.add_kernels() = Descriptor("cuda/saxpy.ll", "cuda:sm_90");
  request.set_include_ptx(true);
  auto response = client->Compile(request);
  REQUIRE(response.ok());
  REQUIRE(response->results(0).has_artifact());
  const std::string& ptx = response->results(0).artifact().ptx();
  CHECK(ptx.find(".target sm_90") != std::string::npos);
  CHECK(ptx.find(".entry saxpy") != std::string::npos);
}

namespace {

// What `qdcache targets --json` says of the cuda family.
bool CudaFamilyAvailable(const DaemonProcess& daemon) {
  const nlohmann::json targets = Json(Cli(daemon, {"targets", "--json"}));
  for (const nlohmann::json& family : targets.at("families")) {
    if (family.at("family") == "cuda") return family.at("available").get<bool>();
  }
  FAIL("no cuda family in qdcache targets");
  return false;
}

}  // namespace

// CUDA's libraries are loaded at run time (backends/cuda_libraries.h): a
// daemon whose cuda-libraries directory lacks them starts, serves CPU
// compiles, and refuses CUDA ones saying which file it could not load, where.
TEST_CASE("without CUDA's libraries the daemon serves the CPU and refuses CUDA, naming the missing library",
          "[integration][cuda]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  TempDir empty;  // no libnvJitLink.so.* in it
  DaemonProcess daemon(dir.path(), {"--cuda-libraries", empty.path()});
  daemon.Start();
  auto client = daemon.Connect();
  v1::CompileResult cpu = CompileOne(*client, Descriptor("cpu/saxpy.ll", "cpu:x86-64"));
  CHECK(cpu.status() == v1::CACHE_STATUS_COMPILED);
  v1::CompileResult cuda = CompileOne(*client, Descriptor("cuda/saxpy.ll", "cuda:sm_90"));
  REQUIRE(cuda.has_error());
  INFO(cuda.error().message());
  CHECK(cuda.error().code() == static_cast<int>(Code::kFailedPrecondition));
  CHECK_THAT(cuda.error().message(), Catch::Contains("libnvJitLink.so.") && Catch::Contains(empty.path()) &&
                                         Catch::Contains("cuda-libraries"));
  auto stats = client->Stats();
  REQUIRE(stats.ok());
  CHECK(stats->compiles() == 1);
  // The daemon's own answer about its targets agrees with its workers.
  CHECK_FALSE(CudaFamilyAvailable(daemon));
}

TEST_CASE("cuda-libraries directories holding CUDA's libraries are where LLVM IR, CUDA C++ and NVVM IR compile from",
          "[integration][cuda]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  TempDir empty;  // tried first, in vain: the list is searched in order
  DaemonProcess daemon(dir.path(), {"--cuda-libraries", empty.path() + ":" + QDCACHE_TEST_NVJITLINK_DIR});
  daemon.Start();
  auto client = daemon.Connect();
  v1::CompileResult r = CompileOne(*client, Descriptor("cuda/saxpy.ll", "cuda:sm_90"));
  INFO((r.has_error() ? r.error().message() : ""));
  REQUIRE(r.status() == v1::CACHE_STATUS_COMPILED);
  CHECK(CubinSm(r.artifact().payload()) == 90);
  CHECK(CudaFamilyAvailable(daemon));
  // NVRTC (with its builtins, opened beside it) and libNVVM, by path too.
  for (const char* input : {"cuda_cpp/half_axpy.cu", "nvvm/axpy.nvvm"}) {
    INFO(input);
    const std::string out = dir.path() + "/out.cubin";
    const nlohmann::json compiled = Json(Cli(
        daemon, {"compile", TestData(input), "--target", "cuda:sm_90", "--link-libdevice", "-o", out, "--json"}));
    CHECK(compiled.at("status") == "compiled");
    CHECK(CubinSm(ReadFileOrDie(out)) == 90);
  }
}
