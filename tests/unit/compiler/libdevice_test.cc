// libdevice against the linked LLVM: functions whose bodies need intrinsics
// this LLVM lacks are refused by name; everything else links to a cubin with
// no unresolved calls.
#include <catch2/catch.hpp>

#include "compiler_test_support.h"

using namespace qdcache;
using namespace qdcache::compiler;
using namespace qdcache::compiler::testing;

namespace {

// A kernel applying each of `functions` (float -> float) to *p in turn.
std::string KernelCalling(const std::vector<std::string>& functions) {
  std::string ir = "target triple = \"nvptx64-nvidia-cuda\"\n";
  for (const std::string& f : functions) ir += "declare float @" + f + "(float)\n";
  ir += "define ptx_kernel void @k(ptr %p) {\n  %v0 = load float, ptr %p\n";
  int n = 0;
  for (const std::string& f : functions) {
    ir += "  %v" + std::to_string(n + 1) + " = call float @" + f + "(float %v" + std::to_string(n) +
          ")\n";
    ++n;
  }
  ir += "  store float %v" + std::to_string(n) + ", ptr %p\n  ret void\n}\n";
  return ir;
}

bool SkipWithoutLibdevice() {
  if (!CudaAvailable()) {
    WARN("CUDA not available: skipping");
    return true;
  }
  if (TheCompiler().toolchain().libdevice_digest.size() != 64) {
    WARN("libdevice not available: skipping");
    return true;
  }
  return false;
}

Expected<CompileOutput> CompileWithLibdevice(const std::string& ir, int opt_level = 3) {
  CompileOptions options;
  options.link_libdevice = true;
  options.opt_level = opt_level;
  return TheCompiler().Compile(Input(ir, Cuda("sm_90"), options));
}

// CUDA 13's libdevice implements __nv_fast_tanhf with llvm.nvvm.tanh.approx.f32
// (for __CUDA_ARCH >= 730), an intrinsic LLVM 19 does not have.
bool LibdeviceIsNewerThanLlvm() {
  const ToolchainInfo& info = TheCompiler().toolchain();
  return info.llvm_version.starts_with("19.") && info.cuda_version.starts_with("13.");
}

}  // namespace

TEST_CASE("__nv_expf and __nv_sinf link to a cubin without unresolved calls") {
  if (SkipWithoutLibdevice()) return;
  for (int level : {0, 3}) {
    DYNAMIC_SECTION("O" << level) {
      auto out = CompileWithLibdevice(KernelCalling({"__nv_expf", "__nv_sinf"}), level);
      INFO(out.status().ToString());
      REQUIRE(out.ok());
      CHECK_FALSE(out->payload.empty());
      CHECK_THAT(out->ptx, !Catch::Contains(".extern .func"));
      CHECK_THAT(out->ptx, !Catch::Contains("llvm.nvvm"));
    }
  }
}

TEST_CASE("A libdevice function needing an intrinsic LLVM lacks is refused by name") {
  if (SkipWithoutLibdevice()) return;
  auto out = CompileWithLibdevice(KernelCalling({"__nv_fast_tanhf"}));
  if (!LibdeviceIsNewerThanLlvm()) {
    WARN("this LLVM / libdevice pair: __nv_fast_tanhf may compile; checking that it links");
    if (out.ok()) CHECK_THAT(out->ptx, !Catch::Contains(".extern .func"));
    return;
  }
  INFO(out.status().ToString());
  CHECK(out.status().code() == Code::kInvalidArgument);
  CHECK_THAT(out.status().message(), Catch::Contains("llvm.nvvm.tanh.approx.f32"));
  CHECK_THAT(out.status().message(), Catch::Contains("__nv_fast_tanhf"));
  CHECK_THAT(out.status().message(), Catch::Contains("does not know"));
}

TEST_CASE("The refusal also holds at O0 where the call is not optimized away") {
  if (SkipWithoutLibdevice() || !LibdeviceIsNewerThanLlvm()) return;
  auto out = CompileWithLibdevice(KernelCalling({"__nv_fast_tanhf"}), 0);
  CHECK(out.status().code() == Code::kInvalidArgument);
  CHECK_THAT(out.status().message(), Catch::Contains("__nv_fast_tanhf"));
}

TEST_CASE("__nv_tanhf either links cleanly or is refused by name") {
  if (SkipWithoutLibdevice()) return;
  auto out = CompileWithLibdevice(KernelCalling({"__nv_tanhf"}));
  if (out.ok()) {
    CHECK_THAT(out->ptx, !Catch::Contains(".extern .func"));
  } else {
    CHECK(out.status().code() == Code::kInvalidArgument);
    CHECK_THAT(out.status().message(), Catch::Contains("__nv_tanhf"));
  }
}

TEST_CASE("Kernels that do not need the unknown intrinsic are unaffected by it") {
  if (SkipWithoutLibdevice()) return;
  // Declared but never called: nothing of __nv_fast_tanhf survives optimization.
  std::string ir = KernelCalling({"__nv_expf"});
  ir.insert(ir.find("define"), "declare float @__nv_fast_tanhf(float)\n");
  auto out = CompileWithLibdevice(ir);
  INFO(out.status().ToString());
  REQUIRE(out.ok());
  CHECK_THAT(out->ptx, !Catch::Contains(".extern .func"));
}

TEST_CASE("A kernel calling an intrinsic LLVM does not know is refused by name") {
  if (!CudaAvailable()) return;
  const char* ir =
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "declare float @llvm.nvvm.not.an.intrinsic.f32(float)\n"
      "define ptx_kernel void @k(ptr %p) {\n"
      "  %v = load float, ptr %p\n"
      "  %r = call float @llvm.nvvm.not.an.intrinsic.f32(float %v)\n"
      "  store float %r, ptr %p\n"
      "  ret void\n"
      "}\n";
  auto out = TheCompiler().Compile(Input(ir, Cuda("sm_90")));
  INFO(out.status().ToString());
  CHECK(out.status().code() == Code::kInvalidArgument);
  CHECK_THAT(out.status().message(), Catch::Contains("llvm.nvvm.not.an.intrinsic.f32"));
  CHECK_THAT(out.status().message(), !Catch::Contains("libdevice"));
}
