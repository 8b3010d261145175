// Every way the compiler refuses bad input: the code and a precise message.
#include <catch2/catch.hpp>

#include "compiler_test_support.h"

using namespace qdcache;
using namespace qdcache::compiler;
using namespace qdcache::compiler::testing;

namespace {

constexpr const char* kCpuAdd =
    "target triple = \"x86_64-unknown-linux-gnu\"\n"
    "define i32 @add(i32 %a, i32 %b) {\n"
    "  %r = add i32 %a, %b\n"
    "  ret i32 %r\n"
    "}\n";

void CheckInputRefused(const Status& status, const std::string& substring,
                  Code code = Code::kInvalidArgument) {
  INFO(status.ToString());
  CHECK(status.code() == code);
  CHECK_THAT(status.message(), Catch::Contains(substring));
}

}  // namespace

TEST_CASE("Empty input is refused") {
  CheckInputRefused(CompileStatus("", Cpu("x86-64")), "empty input");
}

TEST_CASE("Whitespace-only input is refused as empty") {
  CheckInputRefused(CompileStatus(" \n\t\r\n ", Cpu("x86-64")), "empty input");
}

TEST_CASE("Text IR with an embedded NUL byte is refused with the offset") {
  std::string ir = kCpuAdd;
  ir.insert(10, 1, '\0');
  CheckInputRefused(CompileStatus(ir, Cpu("x86-64")), "NUL byte at offset 10");
}

TEST_CASE("A text IR syntax error reports line:column") {
  const char* ir =
      "define i32 @f(i32 %a) {\n"
      "  %r = bogus i32 %a, 1\n"
      "  ret i32 %r\n"
      "}\n";
  CheckInputRefused(CompileStatus(ir, Cpu("x86-64")), "2:8: expected instruction opcode");
}

TEST_CASE("A use of an undefined value reports its line:column") {
  const char* ir =
      "define i32 @f(i32 %a) {\n"
      "  ret i32 %missing\n"
      "}\n";
  CheckInputRefused(CompileStatus(ir, Cpu("x86-64")), "2:11: use of undefined value '%missing'");
}

TEST_CASE("Truncated bitcode is refused") {
  // Magic only: recognised as bitcode, then nothing to read.
  CheckInputRefused(CompileStatus(std::string("BC\xC0\xDE", 4), Cpu("x86-64")), "invalid bitcode");
  CheckInputRefused(CompileStatus(std::string("BC\xC0\xDE\x35\x14\x00\x00\x05\x00", 10), Cpu("x86-64")),
               "invalid bitcode");
}

TEST_CASE("A bitcode wrapper around garbage is refused") {
  std::string wrapper("\xDE\xC0\x17\x0B", 4);
  wrapper += std::string(16, '\x01');
  CheckInputRefused(CompileStatus(wrapper, Cpu("x86-64")), "invalid bitcode");
}

TEST_CASE("A module the IR verifier rejects is refused with the verifier's message") {
  const char* ir =
      "define i32 @f(i32 %a) {\n"
      "entry:\n"
      "  br label %next\n"
      "next:\n"
      "  %r = add i32 %r, 1\n"
      "  ret i32 %r\n"
      "}\n";
  CheckInputRefused(CompileStatus(ir, Cpu("x86-64")),
               "IR verifier failed: Only PHI nodes may reference their own value");
}

TEST_CASE("An x86-64 module is refused for a CUDA target") {
  if (!CudaAvailable()) return;
  CheckInputRefused(CompileStatus(kCpuAdd, Cuda("sm_90")),
               "module triple 'x86_64-unknown-linux-gnu' contradicts target cuda:sm_90");
}

TEST_CASE("An nvptx64 module is refused for a CPU target") {
  CheckInputRefused(CompileStatus(ReadTestData("cuda/saxpy.ll"), Cpu("x86-64")),
               "module triple 'nvptx64-nvidia-cuda' contradicts target cpu:x86-64");
}

TEST_CASE("A 32-bit nvptx module is refused for CUDA") {
  if (!CudaAvailable()) return;
  const char* ir =
      "target triple = \"nvptx-nvidia-cuda\"\n"
      "define ptx_kernel void @k() {\n  ret void\n}\n";
  CheckInputRefused(CompileStatus(ir, Cuda("sm_90")), "32-bit nvptx is not supported");
}

TEST_CASE("A non-ELF x86-64 module is refused for a CPU target") {
  std::string ir = kCpuAdd;
  ir.replace(ir.find("x86_64-unknown-linux-gnu"), 24, "x86_64-pc-windows-msvc");
  CheckInputRefused(CompileStatus(ir, Cpu("x86-64")), "only ELF");
}

TEST_CASE("A datalayout with 32-bit pointers is refused for x86-64") {
  std::string ir =
      std::string("target datalayout = \"e-p:32:32-i64:64-n8:16:32:64-S128\"\n") + kCpuAdd;
  CheckInputRefused(CompileStatus(ir, Cpu("x86-64")), "is incompatible with target cpu:x86-64");
}

TEST_CASE("A big-endian datalayout is refused") {
  std::string ir = std::string("target datalayout = \"E-m:e-i64:64-n8:16:32:64-S128\"\n") + kCpuAdd;
  CheckInputRefused(CompileStatus(ir, Cpu("x86-64")), "endianness");
}

TEST_CASE("An NVPTX datalayout with 32-bit shared-memory pointers is refused") {
  if (!CudaAvailable()) return;
  std::string ir = ReadTestData("cuda/saxpy.ll");
  const std::string layout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64";
  ir.replace(ir.find(layout), layout.size(), "e-p3:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64");
  CheckInputRefused(CompileStatus(ir, Cuda("sm_90")), "address space 3 are 32-bit");
}

TEST_CASE("A CUDA module without kernels is refused") {
  if (!CudaAvailable()) return;
  const char* ir =
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "define void @helper() {\n  ret void\n}\n";
  CheckInputRefused(CompileStatus(ir, Cuda("sm_90")), "the module has no kernels");
}

TEST_CASE("A CPU module without exported functions is refused") {
  const char* ir =
      "define internal i32 @hidden1() {\n  ret i32 1\n}\n"
      "define hidden i32 @hidden2() {\n  ret i32 2\n}\n";
  CheckInputRefused(CompileStatus(ir, Cpu("x86-64")), "no exported functions");
}

TEST_CASE("A requested entry point that does not exist is refused by name") {
  CheckInputRefused(CompileStatus(kCpuAdd, Cpu("x86-64"), {"subtract"}),
               "entry point 'subtract' does not exist");
}

TEST_CASE("A requested CUDA entry point that is not a kernel is refused by name") {
  if (!CudaAvailable()) return;
  CheckInputRefused(CompileStatus(ReadTestData("cuda/llvm_test_style.ll"), Cuda("sm_90"), {"scale"}),
               "entry point 'scale' is not a kernel");
}

TEST_CASE("A requested CPU entry point with internal linkage is refused by name") {
  std::string ir = std::string(kCpuAdd) + "define internal i32 @secret() {\n  ret i32 7\n}\n";
  CheckInputRefused(CompileStatus(ir, Cpu("x86-64"), {"secret"}),
               "entry point 'secret' is not an exported function");
}

TEST_CASE("A CUDA kernel calling an undefined device function is refused before nvJitLink") {
  if (!CudaAvailable()) return;
  const char* ir =
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "declare float @mystery(float)\n"
      "define ptx_kernel void @k(ptr %p) {\n"
      "  %v = load float, ptr %p\n"
      "  %r = call float @mystery(float %v)\n"
      "  store float %r, ptr %p\n"
      "  ret void\n"
      "}\n";
  CheckInputRefused(CompileStatus(ir, Cuda("sm_90")), "undefined device functions: mystery");
}

TEST_CASE("A libdevice call without link_libdevice is refused with a hint") {
  if (!CudaAvailable()) return;
  const char* ir =
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "declare float @__nv_expf(float)\n"
      "define ptx_kernel void @k(ptr %p) {\n"
      "  %v = load float, ptr %p\n"
      "  %r = call float @__nv_expf(float %v)\n"
      "  store float %r, ptr %p\n"
      "  ret void\n"
      "}\n";
  CheckInputRefused(CompileStatus(ir, Cuda("sm_90")), "__nv_expf (__nv_* functions come from libdevice");
}

TEST_CASE("A CPU module importing a non-allowlisted symbol is refused by name") {
  const char* ir =
      "target triple = \"x86_64-unknown-linux-gnu\"\n"
      "declare i32 @puts(ptr)\n"
      "@msg = private constant [3 x i8] c\"hi\\00\"\n"
      "define i32 @shout() {\n"
      "  %r = call i32 @puts(ptr @msg)\n"
      "  ret i32 %r\n"
      "}\n";
  CheckInputRefused(CompileStatus(ir, Cpu("x86-64")),
               "undefined symbols that a kernel library may not import: puts");
}

TEST_CASE("An opt level outside 0..3 is refused") {
  CompileOptions options;
  options.opt_level = 4;
  CheckInputRefused(CompileStatus(kCpuAdd, Cpu("x86-64"), {}, options), "opt_level must be 0..3");
}

TEST_CASE("CPU native is refused at compile time") {
  CheckInputRefused(CompileStatus(kCpuAdd, Cpu("native")), "native");
}

TEST_CASE("An unsupported SM is refused at compile time") {
  const Status status = CompileStatus(ReadTestData("cuda/saxpy.ll"), Cuda("sm_50"));
  if (!CudaAvailable()) {
    CheckInputRefused(status, "built without CUDA", Code::kFailedPrecondition);
    return;
  }
  CheckInputRefused(status, "unsupported CUDA SM 'sm_50'");
}

TEST_CASE("A static shared array larger than a block may have is refused before ptxas") {
  if (!CudaAvailable()) return;
  const char* ir =
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "@big = internal addrspace(3) global [1048576 x float] undef, align 4\n"
      "define ptx_kernel void @hog(ptr %out, i32 %i) {\n"
      "  %idx = zext i32 %i to i64\n"
      "  %p = getelementptr [1048576 x float], ptr addrspace(3) @big, i64 0, i64 %idx\n"
      "  store float 1.0, ptr addrspace(3) %p\n"
      "  call void @llvm.nvvm.barrier0()\n"
      "  %v = load float, ptr addrspace(3) %p\n"
      "  store float %v, ptr %out\n"
      "  ret void\n"
      "}\n"
      "declare void @llvm.nvvm.barrier0()\n";
  CheckInputRefused(CompileStatus(ir, Cuda("sm_90")), "at most 49152 bytes of static shared memory");
}

TEST_CASE("Inline asm that ptxas rejects is an input error, not a process exit") {
  if (!CudaAvailable()) {
    WARN("no CUDA toolkit: skipping");
    return;
  }
  const char* ir =
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "define ptx_kernel void @k(ptr %p) {\n"
      "  %v = call i32 asm \"mov.b32 $0, 1;\", \"=q\"()\n"
      "  store i32 %v, ptr %p\n"
      "  ret void\n"
      "}\n";
  CheckInputRefused(CompileStatus(ir, Cuda("sm_90")), "Arguments mismatch for instruction 'mov'");
}

TEST_CASE("CPU module-level assembly is refused (the assembler could read files via .incbin)") {
  std::string ir = std::string(kCpuAdd) + "module asm \".incbin \\22/etc/hostname\\22\"\n";
  CheckInputRefused(CompileStatus(ir, Cpu("x86-64")), "module-level inline assembly");
}

TEST_CASE("CPU inline assembly in a function is refused") {
  const char* ir =
      "define void @f() {\n"
      "  call void asm sideeffect \".incbin \\22/etc/hostname\\22\", \"\"()\n"
      "  ret void\n"
      "}\n";
  CheckInputRefused(CompileStatus(ir, Cpu("x86-64")), "inline assembly in @f");
}

TEST_CASE("A CUDA module with global constructors is refused instead of aborting the backend") {
  if (!CudaAvailable()) {
    WARN("no CUDA toolkit: skipping");
    return;
  }
  const char* ir =
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] "
      "[{ i32, ptr, ptr } { i32 65535, ptr @init, ptr null }]\n"
      "define internal void @init() {\n  ret void\n}\n"
      "define ptx_kernel void @k() {\n  ret void\n}\n";
  CheckInputRefused(CompileStatus(ir, Cuda("sm_90")), "llvm.global_ctors");
}

TEST_CASE("An initialized shared-memory global is refused instead of aborting the backend") {
  if (!CudaAvailable()) {
    WARN("no CUDA toolkit: skipping");
    return;
  }
  const char* ir =
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "@s = internal addrspace(3) global float 1.0\n"
      "define ptx_kernel void @k(ptr %p) {\n"
      "  %v = load float, ptr addrspace(3) @s\n  store float %v, ptr %p\n  ret void\n}\n";
  CheckInputRefused(CompileStatus(ir, Cuda("sm_90")), "addrspace(3)");
}

TEST_CASE("An absurd launch bound is reported as unknown, not wrapped") {
  if (!CudaAvailable()) {
    WARN("no CUDA toolkit: skipping");
    return;
  }
  const char* ir =
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "define void @k(ptr %p) {\n  store float 1.0, ptr %p\n  ret void\n}\n"
      "!nvvm.annotations = !{!0}\n"
      "!0 = !{ptr @k, !\"kernel\", i32 1, !\"maxntidx\", i32 65536, !\"maxntidy\", i32 65536}\n";
  auto out = TheCompiler().Compile(Input(ir, Cuda("sm_90")));
  if (!out.ok()) {
    // ptxas may refuse the bound itself; what matters is a clean status.
    CHECK(out.status().code() == Code::kInvalidArgument);
    return;
  }
  REQUIRE(out->entries.size() == 1);
  CHECK(out->entries[0].max_threads_per_block == -1);
}

TEST_CASE("object sizes follow DataLayout's struct rules at the bounds, and a space's total is bounded too") {
  const std::string cuda = "target triple = \"nvptx64-nvidia-cuda\"\n";
  const std::string kernel = "define ptx_kernel void @k(ptr %p) {\n  store i32 1, ptr %p\n  ret void\n}\n";
  // Packed: 49151 + 1 = 49152 bytes, the bound. Unpacked: the i16 is aligned
  // to 2, so 49151 + 1 + 2 = 49154.
  CHECK(CompileStatus(cuda + "@s = addrspace(3) global <{ [49151 x i8], i8 }> undef\n" + kernel, Cuda("sm_90")).ok());
  CheckInputRefused(CompileStatus(cuda + "@s = addrspace(3) global { [49151 x i8], i16 } undef\n" + kernel, Cuda("sm_90")),
               "shared variable @s is 49154 bytes");
  // Padding inside elements: { i8, i64 } is 16 bytes (the i64 aligned to 8),
  // 3072 of them 49152.
  CHECK(CompileStatus(cuda + "@s = addrspace(3) global [3072 x { i8, i64 }] undef\n" + kernel, Cuda("sm_90")).ok());
  CheckInputRefused(CompileStatus(cuda + "@s = addrspace(3) global [3073 x { i8, i64 }] undef\n" + kernel, Cuda("sm_90")),
               "shared variable @s is 49168 bytes");
  // Three globals of 2^46 bytes: each within the bound, together not.
  std::string ir = kCpuAdd;
  for (int i = 0; i < 3; ++i) ir += "@g" + std::to_string(i) + " = global [70368744177664 x i8] zeroinitializer\n";
  CheckInputRefused(CompileStatus(ir, Cpu("x86-64")),
               "the module's globals in addrspace(0) total 211106232532992 bytes (reached at @g2)");
}
