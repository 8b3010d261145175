// CPU compiles: IR -> x86-64 object -> ELF shared object, loaded and called.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <thread>

#include "compiler_test_support.h"

using namespace qdcache;
using namespace qdcache::compiler;
using namespace qdcache::compiler::testing;

namespace {

using SaxpyFn = void(int64_t, float, const float*, float*);
using ReduceFn = float(const float*, int64_t);
using StencilFn = void(const float*, float*, int64_t, int64_t);

CompileOutput CompileCpu(std::string_view ir, Target target = Cpu("x86-64"),
                         CompileOptions options = {}, std::vector<std::string> entries = {}) {
  auto result = TheCompiler().Compile(Input(ir, std::move(target), options, std::move(entries)));
  INFO(result.status().ToString());
  REQUIRE(result.ok());
  return std::move(result).value();
}

std::vector<float> Ramp(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>((i * 7919) % 101) - 3.0f;
  return v;
}

void CheckSaxpy(const LoadedLibrary& library) {
  auto* saxpy = library.Get<SaxpyFn>("saxpy");
  REQUIRE(saxpy != nullptr);
  const int64_t n = 1003;
  const std::vector<float> x = Ramp(n, 0.5f);
  std::vector<float> y = Ramp(n, 0.25f);
  std::vector<float> expected = y;
  for (int64_t i = 0; i < n; ++i) expected[i] = 2.5f * x[i] + y[i];
  saxpy(n, 2.5f, x.data(), y.data());
  for (int64_t i = 0; i < n; ++i) REQUIRE(y[i] == Approx(expected[i]).margin(1e-5));
}

}  // namespace

TEST_CASE("saxpy compiles to a loadable shared object that computes y = a*x + y") {
  CompileOutput out = CompileCpu(ReadTestData("cpu/saxpy.ll"));
  CHECK(out.kind == ArtifactKind::kSharedObject);
  CHECK(out.ptx.empty());
  Elf64_Ehdr header;
  REQUIRE(ReadElfHeader(out.payload, &header));
  CHECK(header.e_machine == EM_X86_64);
  CHECK(header.e_type == ET_DYN);
  REQUIRE(out.entries.size() == 1);
  CHECK(out.entries[0].name == "saxpy");
  LoadedLibrary library(out.payload);
  INFO(library.error());
  REQUIRE(library.ok());
  CheckSaxpy(library);
}

TEST_CASE("block_reduce compiles to a function summing n floats") {
  CompileOutput out = CompileCpu(ReadTestData("cpu/block_reduce.ll"));
  LoadedLibrary library(out.payload);
  INFO(library.error());
  REQUIRE(library.ok());
  auto* reduce = library.Get<ReduceFn>("block_reduce");
  REQUIRE(reduce != nullptr);
  const std::vector<float> x = Ramp(4099, 0.125f);
  double expected = 0;
  for (float v : x) expected += v;
  CHECK(reduce(x.data(), static_cast<int64_t>(x.size())) == Approx(expected).epsilon(1e-4));
  CHECK(reduce(x.data(), 0) == 0.0f);
}

TEST_CASE("stencil2d averages interior cells and copies borders") {
  CompileOutput out = CompileCpu(ReadTestData("cpu/stencil2d.ll"));
  LoadedLibrary library(out.payload);
  INFO(library.error());
  REQUIRE(library.ok());
  auto* stencil = library.Get<StencilFn>("stencil2d");
  REQUIRE(stencil != nullptr);
  const int64_t w = 37;
  const int64_t h = 23;
  const std::vector<float> in = Ramp(w * h, 1.0f);
  std::vector<float> out_grid(w * h, -1.0f);
  stencil(in.data(), out_grid.data(), w, h);
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      const int64_t i = y * w + x;
      const bool border = x == 0 || y == 0 || x == w - 1 || y == h - 1;
      const float expected =
          border ? in[i] : 0.2f * (in[i] + in[i - w] + in[i + w] + in[i + 1] + in[i - 1]);
      REQUIRE(out_grid[i] == Approx(expected).margin(1e-5));
    }
  }
}

TEST_CASE("Every opt level produces a working shared object") {
  for (int level = 0; level <= 3; ++level) {
    DYNAMIC_SECTION("O" << level) {
      CompileOptions options;
      options.opt_level = level;
      CompileOutput out = CompileCpu(ReadTestData("cpu/saxpy.ll"), Cpu("x86-64"), options);
      LoadedLibrary library(out.payload);
      REQUIRE(library.ok());
      CheckSaxpy(library);
    }
  }
}

TEST_CASE("A named CPU with explicit features compiles") {
  CompileOutput out =
      CompileCpu(ReadTestData("cpu/stencil2d.ll"), Cpu("x86-64-v2", {"+popcnt", "-avx"}));
  CHECK_FALSE(out.payload.empty());
}

TEST_CASE("fast_math still computes the sum within float tolerance") {
  CompileOptions options;
  options.fast_math = true;
  CompileOutput out = CompileCpu(ReadTestData("cpu/block_reduce.ll"), Cpu("x86-64"), options);
  LoadedLibrary library(out.payload);
  REQUIRE(library.ok());
  const std::vector<float> x = Ramp(1000, 0.5f);
  double expected = 0;
  for (float v : x) expected += v;
  CHECK(library.Get<ReduceFn>("block_reduce")(x.data(), 1000) == Approx(expected).epsilon(1e-4));
}

TEST_CASE("A module calling C math functions links libm and loads") {
  const char* ir =
      "target triple = \"x86_64-unknown-linux-gnu\"\n"
      "declare float @expf(float)\n"
      "declare double @atan2(double, double)\n"
      "define float @soft(float %x, double %y) {\n"
      "  %e = call float @expf(float %x)\n"
      "  %a = call double @atan2(double %y, double 1.0)\n"
      "  %af = fptrunc double %a to float\n"
      "  %r = fadd float %e, %af\n"
      "  ret float %r\n"
      "}\n";
  CompileOutput out = CompileCpu(ir);
  CHECK(out.payload.find("libm.so") != std::string::npos);  // DT_NEEDED entry
  LoadedLibrary library(out.payload);
  INFO(library.error());
  REQUIRE(library.ok());
  auto* soft = library.Get<float(float, double)>("soft");
  REQUIRE(soft != nullptr);
  CHECK(soft(1.0f, 1.0) == Approx(std::exp(1.0f) + std::atan2(1.0, 1.0)).epsilon(1e-5));
}

TEST_CASE("memcpy imports are allowed") {
  const char* ir =
      "target triple = \"x86_64-unknown-linux-gnu\"\n"
      "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n"
      "define void @copy(ptr %d, ptr %s, i64 %n) {\n"
      "  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)\n"
      "  ret void\n"
      "}\n";
  CompileOutput out = CompileCpu(ir);
  LoadedLibrary library(out.payload);
  REQUIRE(library.ok());
  char src[] = "kernel";
  char dst[7] = {};
  library.Get<void(char*, const char*, int64_t)>("copy")(dst, src, 7);
  CHECK(std::string(dst) == "kernel");
}

TEST_CASE("A module without triple and datalayout gets the CPU target's") {
  const char* ir = "define i64 @twice(i64 %x) {\n  %r = shl i64 %x, 1\n  ret i64 %r\n}\n";
  CompileOutput out = CompileCpu(ir);
  LoadedLibrary library(out.payload);
  REQUIRE(library.ok());
  CHECK(library.Get<int64_t(int64_t)>("twice")(21) == 42);
}

TEST_CASE("Bitcode assembled by LLVM 14 with typed pointers and an old datalayout compiles and runs") {
  const std::optional<std::string> assembled = AssembleWithLlvm14("cpu/saxpy_llvm14.ll");
  if (!assembled) {
    WARN("llvm-as-14 not on PATH: skipping the old-bitcode test");
    return;
  }
  const std::string& bitcode = *assembled;
  CompileOutput out = CompileCpu(bitcode);
  LoadedLibrary library(out.payload);
  REQUIRE(library.ok());
  CheckSaxpy(library);
}

TEST_CASE("Compiling the same CPU input twice gives identical bytes") {
  const std::string ir = ReadTestData("cpu/stencil2d.ll");
  CHECK(CompileCpu(ir).payload == CompileCpu(ir).payload);
}

TEST_CASE("The source file name does not change the artifact") {
  std::string ir = ReadTestData("cpu/saxpy.ll");
  std::string renamed = ir;
  renamed.replace(renamed.find("cpu/saxpy.c"), 11, "elsewhere.c");
  CHECK(CompileCpu(ir).payload == CompileCpu(renamed).payload);
}

TEST_CASE("Concurrent compiles on several threads all succeed") {
  const std::string ir = ReadTestData("cpu/saxpy.ll");
  std::vector<std::string> payloads(4);
  std::vector<std::string> errors(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < payloads.size(); ++t) {
    threads.emplace_back([&, t] {
      auto result = TheCompiler().Compile(Input(ir, Cpu("x86-64")));
      if (result.ok()) {
        payloads[t] = result->payload;
      } else {
        errors[t] = result.status().ToString();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (size_t t = 0; t < payloads.size(); ++t) {
    INFO(errors[t]);
    CHECK_FALSE(payloads[t].empty());
    CHECK(payloads[t] == payloads[0]);
  }
}
