// CUDA compiles: IR -> PTX -> cubin for an exact SM. No GPU needed (nvJitLink
// runs ptxas on the CPU); without CUDA support every case checks the refusal.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "compiler_test_support.h"

using namespace qdcache;
using namespace qdcache::compiler;
using namespace qdcache::compiler::testing;

namespace {

constexpr int kEmCuda = 190;

// Compiles tests/data/cuda/<name>.ll; nullopt (after checking the refusal)
// when built without CUDA.
std::optional<CompileOutput> CompileCuda(std::string_view ir, const std::string& sm,
                                         CompileOptions options = {},
                                         std::vector<std::string> entries = {}) {
  auto result = TheCompiler().Compile(Input(ir, Cuda(sm), options, std::move(entries)));
  if (!CudaAvailable()) {
    CHECK(result.status().code() == Code::kFailedPrecondition);
    CHECK_THAT(result.status().message(), Catch::Contains("built without CUDA"));
    return std::nullopt;
  }
  INFO(result.status().ToString());
  REQUIRE(result.ok());
  return std::move(result).value();
}

const EntryInfo* FindEntry(const CompileOutput& out, const std::string& name) {
  for (const EntryInfo& e : out.entries) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

// The SM a cubin was built for, from e_flags. nvJitLink 13 writes ELF OS/ABI
// 0x41 (CUDA) with ABI version 8, and the SM number in bits 8..15 of e_flags
// (sm_90: 0x06005a04, sm_75: 0x06004b04). Cubins of the older ABI (version
// < 8) keep the SM in the low byte.
int CubinSm(const Elf64_Ehdr& header) {
  if (header.e_ident[EI_ABIVERSION] >= 8) return static_cast<int>((header.e_flags >> 8) & 0xff);
  return static_cast<int>(header.e_flags & 0xff);
}

}  // namespace

TEST_CASE("Each CUDA test kernel compiles to a cubin for sm_90 and sm_75") {
  for (const char* kernel : {"saxpy", "block_reduce", "stencil2d"}) {
    for (const auto& [sm, number] : {std::pair<std::string, int>{"sm_90", 90}, {"sm_75", 75}}) {
      DYNAMIC_SECTION(kernel << " for " << sm) {
        const std::string ir = ReadTestData(std::string("cuda/") + kernel + ".ll");
        auto out = CompileCuda(ir, sm);
        if (!out) return;
        CHECK(out->kind == ArtifactKind::kCubin);
        Elf64_Ehdr header;
        REQUIRE(ReadElfHeader(out->payload, &header));
        CHECK(header.e_machine == kEmCuda);
        CHECK(header.e_ident[EI_OSABI] == 0x41);
        CHECK(CubinSm(header) == number);
        CHECK_THAT(out->ptx, Catch::Contains(".target " + sm));
        CHECK_THAT(out->ptx, Catch::Contains(".entry " + std::string(kernel) + "("));
        REQUIRE(out->entries.size() == 1);
        CHECK(out->entries[0].name == kernel);
        CHECK(out->entries[0].registers > 0);
      }
    }
  }
}

TEST_CASE("The PTX targets the toolchain's chosen PTX ISA version") {
  auto out = CompileCuda(ReadTestData("cuda/saxpy.ll"), "sm_90");
  if (!out) return;
  CHECK_THAT(out->ptx, Catch::Contains(".version " + TheCompiler().toolchain().ptx_isa_version));
}

TEST_CASE("block_reduce reports its static shared memory and launch bound") {
  auto out = CompileCuda(ReadTestData("cuda/block_reduce.ll"), "sm_90");
  if (!out) return;
  const EntryInfo* entry = FindEntry(*out, "block_reduce");
  REQUIRE(entry != nullptr);
  CHECK(entry->shared_bytes == 256 * 4);
  CHECK(entry->local_bytes == 0);
  CHECK(entry->max_threads_per_block == 256);
  CHECK_THAT(out->ptx, Catch::Contains("bar.sync"));
}

TEST_CASE("A kernel without a launch bound reports max_threads_per_block as unknown") {
  auto out = CompileCuda(ReadTestData("cuda/saxpy.ll"), "sm_90");
  if (!out) return;
  CHECK(out->entries.at(0).max_threads_per_block == -1);
  CHECK(out->entries.at(0).shared_bytes == 0);
}

TEST_CASE("The compile log carries nvJitLink's info log") {
  auto out = CompileCuda(ReadTestData("cuda/saxpy.ll"), "sm_90");
  if (!out) return;
  CHECK_THAT(out->log, Catch::Contains("saxpy"));
  CHECK(out->timings.link_seconds > 0);
}

TEST_CASE("An IR file shaped like LLVM's NVPTX codegen tests compiles") {
  auto out = CompileCuda(ReadTestData("cuda/llvm_test_style.ll"), "sm_90");
  if (!out) return;
  REQUIRE(out->entries.size() == 1);
  CHECK(out->entries[0].name == "scale_kernel");
  CHECK(out->entries[0].max_threads_per_block == 128);
}

TEST_CASE("A kernel marked only by the ptx_kernel calling convention is an entry") {
  const char* ir =
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "define ptx_kernel void @zero(ptr %p) {\n  store float 0.0, ptr %p\n  ret void\n}\n";
  auto out = CompileCuda(ir, "sm_90");
  if (!out) return;
  REQUIRE(out->entries.size() == 1);
  CHECK(out->entries[0].name == "zero");
}

TEST_CASE("A module without triple and datalayout gets the CUDA target's") {
  const char* ir =
      "define ptx_kernel void @zero(ptr %p) {\n  store float 0.0, ptr %p\n  ret void\n}\n";
  auto out = CompileCuda(ir, "sm_75");
  if (!out) return;
  CHECK_THAT(out->ptx, Catch::Contains(".address_size 64"));
}

TEST_CASE("An older nvptx64 datalayout that only lacks i128:128 still compiles") {
  std::string ir = ReadTestData("cuda/saxpy.ll");
  const std::string layout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64";
  ir.replace(ir.find(layout), layout.size(), "e-i64:64-v16:16-v32:32-n16:32:64");
  auto out = CompileCuda(ir, "sm_90");
  if (!out) return;
  CHECK_FALSE(out->payload.empty());
}

TEST_CASE("Bitcode assembled by LLVM 14 is auto-upgraded and compiles") {
  const std::optional<std::string> assembled = AssembleWithLlvm14("cuda/saxpy_llvm14.ll");
  if (!assembled) {
    WARN("llvm-as-14 not on PATH: skipping the old-bitcode test");
    return;
  }
  const std::string& bitcode = *assembled;
  REQUIRE(bitcode.substr(0, 4) == std::string("BC\xC0\xDE", 4));

  auto out = CompileCuda(bitcode, "sm_90");
  if (!out) return;
  REQUIRE(out->entries.size() == 1);
  CHECK(out->entries[0].name == "saxpy");
}

TEST_CASE("Bitcode inside the 0x0B17C0DE wrapper is accepted") {
  const std::optional<std::string> assembled = AssembleWithLlvm14("cuda/saxpy_llvm14.ll");
  if (!assembled) {
    WARN("llvm-as-14 not on PATH: skipping the wrapper test");
    return;
  }
  const std::string& raw = *assembled;
  // Wrapper header: magic, version, offset, size, cputype (5 little-endian u32).
  auto u32 = [](uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
  const std::string wrapped =
      u32(0x0B17C0DE) + u32(0) + u32(20) + u32(static_cast<uint32_t>(raw.size())) + u32(0) + raw;
  auto out = CompileCuda(wrapped, "sm_75");
  if (!out) return;
  CHECK_FALSE(out->payload.empty());
}

TEST_CASE("Requested entry points are checked but every kernel is reported") {
  const char* ir =
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "define ptx_kernel void @first(ptr %p) {\n  store float 1.0, ptr %p\n  ret void\n}\n"
      "define ptx_kernel void @second(ptr %p) {\n  store float 2.0, ptr %p\n  ret void\n}\n";
  auto out = CompileCuda(ir, "sm_90", {}, {"second"});
  if (!out) return;
  REQUIRE(out->entries.size() == 2);
  CHECK(out->entries[0].name == "first");
  CHECK(out->entries[1].name == "second");
}

TEST_CASE("link_libdevice resolves __nv_ functions and keeps only what is needed") {
  const char* ir =
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "declare float @__nv_expf(float)\n"
      "define ptx_kernel void @exp_kernel(ptr %p) {\n"
      "  %v = load float, ptr %p\n"
      "  %r = call float @__nv_expf(float %v)\n"
      "  store float %r, ptr %p\n"
      "  ret void\n"
      "}\n";
  if (CudaAvailable() && TheCompiler().toolchain().libdevice_digest.size() != 64) {
    WARN("libdevice not available: skipping");
    return;
  }
  CompileOptions options;
  options.link_libdevice = true;
  auto out = CompileCuda(ir, "sm_90", options);
  if (!out) return;
  CHECK_THAT(out->ptx, !Catch::Contains("__nv_expf"));  // inlined and internalized
  CHECK_THAT(out->ptx, !Catch::Contains("__nv_sinf"));  // not needed, not linked
  CHECK_THAT(out->ptx, Catch::Contains("ex2.approx"));
}

TEST_CASE("fast_math flushes f32 denormals to zero in the PTX") {
  CompileOptions options;
  options.fast_math = true;
  auto out = CompileCuda(ReadTestData("cuda/saxpy.ll"), "sm_90", options);
  if (!out) return;
  CHECK_THAT(out->ptx, Catch::Contains(".ftz.f32"));
}

TEST_CASE("fmad=false keeps multiply and add separate") {
  CompileOptions fused;
  auto with_fma = CompileCuda(ReadTestData("cuda/saxpy.ll"), "sm_90", fused);
  if (!with_fma) return;
  CHECK_THAT(with_fma->ptx, Catch::Contains("fma.rn.f32"));
  CompileOptions separate;
  separate.fmad = false;
  auto without = CompileCuda(ReadTestData("cuda/saxpy.ll"), "sm_90", separate);
  REQUIRE(without);
  CHECK_THAT(without->ptx, !Catch::Contains("fma.rn.f32"));
  CHECK_THAT(without->ptx, Catch::Contains("mul.rn.f32") || Catch::Contains("mul.f32"));
}

TEST_CASE("Every opt level compiles") {
  for (int level = 0; level <= 3; ++level) {
    DYNAMIC_SECTION("O" << level) {
      CompileOptions options;
      options.opt_level = level;
      auto out = CompileCuda(ReadTestData("cuda/stencil2d.ll"), "sm_90", options);
      if (!out) return;
      CHECK_FALSE(out->payload.empty());
    }
  }
}

TEST_CASE("max_registers limits the registers ptxas allocates") {
  CompileOptions options;
  options.max_registers = 16;
  auto out = CompileCuda(ReadTestData("cuda/stencil2d.ll"), "sm_90", options);
  if (!out) return;
  CHECK(out->entries.at(0).registers <= 16);
}

TEST_CASE("Compiling the same CUDA input twice gives identical bytes") {
  auto a = CompileCuda(ReadTestData("cuda/block_reduce.ll"), "sm_90");
  if (!a) return;
  auto b = CompileCuda(ReadTestData("cuda/block_reduce.ll"), "sm_90");
  CHECK(a->ptx == b->ptx);
  CHECK(a->payload == b->payload);
}
