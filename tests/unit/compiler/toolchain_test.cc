#include <catch2/catch.hpp>

#include "compiler/compiler.h"
#include "backends/cuda_support.h"
#include "compiler/ptxas_info.h"
#include "compiler_test_support.h"

using namespace qdcache::compiler;
using namespace qdcache::compiler::testing;

TEST_CASE("Toolchain info names the LLVM version") {
  const ToolchainInfo& info = TheCompiler().toolchain();
  CHECK_THAT(info.llvm_version, Catch::StartsWith("19."));
}

TEST_CASE("Toolchain info reports CUDA facts consistently") {
  const ToolchainInfo& info = TheCompiler().toolchain();
  if (!info.cuda_available) {
    CHECK(info.cuda_version == "none");
    CHECK(info.ptx_isa_version == "none");
    CHECK(info.libdevice_digest == "none");
    CHECK(info.cuda_sms.empty());
    return;
  }
  CHECK(info.cuda_version != "none");
  CHECK_THAT(info.ptx_isa_version, Catch::Matches("[0-9]+\\.[0-9]"));
  CHECK(std::find(info.cuda_sms.begin(), info.cuda_sms.end(), "sm_90") != info.cuda_sms.end());
  // A libdevice digest is 64 hex characters (or a stable failure label).
  CHECK((info.libdevice_digest.size() == 64 || info.libdevice_digest == "probe-failed:libdevice" ||
         info.libdevice_digest == "none"));
}

TEST_CASE("The chosen PTX ISA is the newest both LLVM and nvJitLink support") {
  const CudaSupport& cuda = GetCudaSupport();
  if (!cuda.available) return;
  CHECK(cuda.ptx_isa == std::min(cuda.llvm_max_ptx, cuda.cuda_max_ptx));
  CHECK(cuda.llvm_max_ptx >= 85);  // LLVM 19 knows ptx85
}

TEST_CASE("CUDA 13 drops SMs older than sm_75 and CUDA 12 keeps sm_50") {
  CHECK(OldestSmForCudaMajor(13) == 75);
  CHECK(OldestSmForCudaMajor(12) == 50);
}

TEST_CASE("The PTX ISA table follows the CUDA release notes") {
  CHECK(MaxPtxIsaForCuda(12, 4) == 84);
  CHECK(MaxPtxIsaForCuda(12, 6) == 85);
  CHECK(MaxPtxIsaForCuda(12, 8) == 87);
  CHECK(MaxPtxIsaForCuda(12, 9) == 88);
  CHECK(MaxPtxIsaForCuda(13, 0) == 90);
  CHECK(MaxPtxIsaForCuda(14, 2) == 90);  // newer than the table: its newest entry
  CHECK(MaxPtxIsaForCuda(10, 0) == 0);
}

TEST_CASE("The ptxas info log yields registers and shared and local memory per entry") {
  const char* log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'block_reduce' for 'sm_90'\n"
      "ptxas info    : Function properties for block_reduce\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 12 registers, used 1 barriers, 1024 bytes smem, 368 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function 'spilly' for 'sm_90'\n"
      "ptxas info    : Used 255 registers, 48 bytes lmem, 360 bytes cmem[0]\n"
      "info    : Function properties for 'block_reduce':\n"
      "info    : used 99 registers, used 1 barriers, 0 stack, 2048 bytes smem, 548 bytes cmem[0], "
      "0 bytes lmem\n";
  const auto resources = ParsePtxasInfoLog(log);
  REQUIRE(resources.count("block_reduce") == 1);
  CHECK(resources.at("block_reduce").registers == 12);
  CHECK(resources.at("block_reduce").shared_bytes == 1024);
  CHECK(resources.at("block_reduce").local_bytes == 0);
  REQUIRE(resources.count("spilly") == 1);
  CHECK(resources.at("spilly").registers == 255);
  CHECK(resources.at("spilly").shared_bytes == 0);
  CHECK(resources.at("spilly").local_bytes == 48);
}
