#include "bench/bench_kernels.h"

#include <cstdio>

#include "tests/support/kernels.h"

namespace qdcache::bench {

std::string CudaChainKernel(int ops, std::uint64_t salt) {
  std::string ir =
      "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n"
      "target triple = \"nvptx64-nvidia-cuda\"\n\n"
      "define void @bench_kernel(ptr %x, ptr %y, i32 %n) {\n"
      "entry:\n"
      "  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
      "  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
      "  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
      "  %base = mul i32 %ctaid, %ntid\n"
      "  %i = add i32 %base, %tid\n"
      "  %in = icmp slt i32 %i, %n\n"
      "  br i1 %in, label %body, label %done\n\n"
      "body:\n"
      "  %idx = sext i32 %i to i64\n"
      "  %px = getelementptr inbounds float, ptr %x, i64 %idx\n"
      "  %v0 = load float, ptr %px, align 4\n";
  char line[160];
  std::uint64_t state = testing::SplitMix64(salt);
  for (int k = 1; k <= ops; ++k) {
    state = testing::SplitMix64(state);
    // Integral constants are exact in float; alternate multiply and add so
    // nothing folds without fast-math.
    const unsigned c = static_cast<unsigned>(state % 4093) + 2;
    std::snprintf(line, sizeof(line), "  %%v%d = %s float %%v%d, %u.0\n", k, k % 2 ? "fmul" : "fadd",
                  k - 1, c);
    ir += line;
  }
  std::snprintf(line, sizeof(line),
                "  %%py = getelementptr inbounds float, ptr %%y, i64 %%idx\n"
                "  store float %%v%d, ptr %%py, align 4\n"
                "  br label %%done\n\n",
                ops);
  ir += line;
  ir +=
      "done:\n"
      "  ret void\n"
      "}\n\n"
      "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
      "declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
      "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n\n"
      "!nvvm.annotations = !{!0}\n"
      "!0 = !{ptr @bench_kernel, !\"kernel\", i32 1}\n";
  return ir;
}

}  // namespace qdcache::bench
