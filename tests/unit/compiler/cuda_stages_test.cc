// The CUDA path as two cacheable stages: CompileToPtx then LinkCubin, and the
// option keys that say which fields each stage reads.
#include <catch2/catch.hpp>

#include "compiler_test_support.h"

using namespace qdcache;
using namespace qdcache::compiler;
using namespace qdcache::compiler::testing;

namespace {

bool SkipWithoutCuda() {
  if (!CudaAvailable()) {
    WARN("CUDA not available: skipping");
    return true;
  }
  return false;
}

PtxOutput ToPtx(const CompileInput& input) {
  auto ptx = TheCompiler().CompileToPtx(input);
  INFO(ptx.status().ToString());
  REQUIRE(ptx.ok());
  return std::move(ptx).value();
}

CompileOutput Link(const PtxOutput& ptx, const Target& target, const CompileOptions& options) {
  auto out = TheCompiler().LinkCubin(ptx.ptx, ptx.entries, target, options);
  INFO(out.status().ToString());
  REQUIRE(out.ok());
  return std::move(out).value();
}

CompileOutput CompileOk(const CompileInput& input) {
  auto out = TheCompiler().Compile(input);
  INFO(out.status().ToString());
  REQUIRE(out.ok());
  return std::move(out).value();
}

CompileOptions WithMaxRegisters(std::uint32_t n) {
  CompileOptions o;
  o.max_registers = n;
  return o;
}

}  // namespace

TEST_CASE("CompileToPtx then LinkCubin gives exactly what Compile gives") {
  if (SkipWithoutCuda()) return;
  CompileOptions lineinfo_fast;
  lineinfo_fast.lineinfo = true;
  lineinfo_fast.fast_math = true;
  for (const char* kernel : {"saxpy", "block_reduce", "stencil2d", "llvm_test_style"}) {
    for (const CompileOptions& options : {CompileOptions{}, WithMaxRegisters(16), lineinfo_fast}) {
      DYNAMIC_SECTION(kernel << " " << StageOptionsKey(options, kStageCodegen) << " / " << options.max_registers) {
        const std::string ir = ReadTestData(std::string("cuda/") + kernel + ".ll");
        const CompileInput input = Input(ir, Cuda("sm_90"), options);
        const CompileOutput whole = CompileOk(input);
        const PtxOutput ptx = ToPtx(input);
        const CompileOutput staged = Link(ptx, input.target, options);
        CHECK(staged.kind == ArtifactKind::kCubin);
        CHECK(staged.payload == whole.payload);
        CHECK(staged.ptx == whole.ptx);
        CHECK(ptx.ptx == whole.ptx);
        REQUIRE(staged.entries.size() == whole.entries.size());
        for (size_t i = 0; i < whole.entries.size(); ++i) {
          CHECK(staged.entries[i].name == whole.entries[i].name);
          CHECK(staged.entries[i].registers == whole.entries[i].registers);
          CHECK(staged.entries[i].shared_bytes == whole.entries[i].shared_bytes);
          CHECK(staged.entries[i].local_bytes == whole.entries[i].local_bytes);
          CHECK(staged.entries[i].max_threads_per_block == whole.entries[i].max_threads_per_block);
        }
      }
    }
  }
}

TEST_CASE("CompileThroughCubin gives what CompileToPtx then LinkCubin give, and refuses what they refuse") {
  if (SkipWithoutCuda()) return;
  for (const char* kernel : {"saxpy", "block_reduce"}) {
    for (const CompileOptions& options : {CompileOptions{}, WithMaxRegisters(16)}) {
      DYNAMIC_SECTION(kernel << " / " << options.max_registers) {
        const std::string ir = ReadTestData(std::string("cuda/") + kernel + ".ll");
        const CompileInput input = Input(ir, Cuda("sm_90"), options);
        auto both = TheCompiler().CompileThroughCubin(input);
        INFO(both.status().ToString());
        REQUIRE(both.ok());
        const PtxOutput ptx = ToPtx(input);
        const CompileOutput cubin = Link(ptx, input.target, options);
        CHECK(both->ptx.ptx == ptx.ptx);
        CHECK(both->ptx.log == ptx.log);
        REQUIRE(both->ptx.entries.size() == ptx.entries.size());
        CHECK(both->ptx.entries[0].registers == -1);  // the PTX stage's own, not the link's
        CHECK(both->cubin.payload == cubin.payload);
        CHECK(both->cubin.ptx == cubin.ptx);
        REQUIRE(both->cubin.entries.size() == cubin.entries.size());
        for (std::size_t i = 0; i < cubin.entries.size(); ++i) {
          CHECK(both->cubin.entries[i].name == cubin.entries[i].name);
          CHECK(both->cubin.entries[i].registers == cubin.entries[i].registers);
        }
      }
    }
  }
  CHECK(TheCompiler().CompileThroughCubin(Input("this is not IR", Cuda("sm_90"))).status().code() ==
        Code::kInvalidArgument);
  const std::string saxpy = ReadTestData("cuda/saxpy.ll");
  CHECK(TheCompiler().CompileThroughCubin(Input(saxpy, Cpu("x86-64"))).status().code() == Code::kInvalidArgument);
}

TEST_CASE("CompileToPtx lists every kernel with its launch bound and unknown resources") {
  if (SkipWithoutCuda()) return;
  const PtxOutput ptx = ToPtx(Input(ReadTestData("cuda/block_reduce.ll"), Cuda("sm_90")));
  REQUIRE(ptx.entries.size() == 1);
  CHECK(ptx.entries[0].name == "block_reduce");
  CHECK(ptx.entries[0].max_threads_per_block == 256);
  CHECK(ptx.entries[0].registers == -1);
  CHECK(ptx.entries[0].shared_bytes == -1);
  CHECK(ptx.entries[0].local_bytes == -1);
  CHECK_THAT(ptx.ptx, Catch::Contains(".entry block_reduce("));
  CHECK(ptx.timings.codegen_seconds > 0);
  CHECK(ptx.timings.link_seconds == 0);
}

TEST_CASE("LinkCubin fills in the register and memory use ptxas reports") {
  if (SkipWithoutCuda()) return;
  const PtxOutput ptx = ToPtx(Input(ReadTestData("cuda/block_reduce.ll"), Cuda("sm_90")));
  const CompileOutput out = Link(ptx, Cuda("sm_90"), {});
  REQUIRE(out.entries.size() == 1);
  CHECK(out.entries[0].registers > 0);
  CHECK(out.entries[0].shared_bytes == 256 * 4);
  CHECK(out.entries[0].local_bytes == 0);
  CHECK(out.entries[0].max_threads_per_block == 256);
  CHECK_THAT(out.log, Catch::Contains("block_reduce"));
  CHECK(out.timings.link_seconds > 0);
  CHECK(out.timings.codegen_seconds == 0);
}

TEST_CASE("One PTX links for two register limits without recompiling") {
  if (SkipWithoutCuda()) return;
  const PtxOutput ptx = ToPtx(Input(ReadTestData("cuda/stencil2d.ll"), Cuda("sm_90")));
  const CompileOutput limited = Link(ptx, Cuda("sm_90"), WithMaxRegisters(16));
  const CompileOutput free = Link(ptx, Cuda("sm_90"), {});
  CHECK(limited.entries.at(0).registers <= 16);
  CHECK(limited.payload ==
        CompileOk(Input(ReadTestData("cuda/stencil2d.ll"), Cuda("sm_90"), WithMaxRegisters(16)))
            .payload);
  CHECK(free.ptx == limited.ptx);
}

TEST_CASE("CompileToPtx output does not depend on max_registers") {
  if (SkipWithoutCuda()) return;
  const std::string ir = ReadTestData("cuda/saxpy.ll");
  CHECK(ToPtx(Input(ir, Cuda("sm_90"), WithMaxRegisters(24))).ptx ==
        ToPtx(Input(ir, Cuda("sm_90"))).ptx);
}

TEST_CASE("CompileToPtx refuses a CPU target") {
  auto ptx = TheCompiler().CompileToPtx(Input(ReadTestData("cpu/saxpy.ll"), Cpu("x86-64")));
  CHECK(ptx.status().code() == Code::kInvalidArgument);
  CHECK_THAT(ptx.status().message(), Catch::Contains("needs a CUDA target"));
}

TEST_CASE("CompileToPtx refuses bad IR as Compile does") {
  if (SkipWithoutCuda()) return;
  const char* ir = "define ptx_kernel void @k() {\n  bogus\n}\n";
  const Status staged = TheCompiler().CompileToPtx(Input(ir, Cuda("sm_90"))).status();
  const Status whole = TheCompiler().Compile(Input(ir, Cuda("sm_90"))).status();
  CHECK(staged.code() == Code::kInvalidArgument);
  CHECK(staged.message() == whole.message());
}

TEST_CASE("LinkCubin refuses CPU targets and bad PTX") {
  SECTION("CPU target") {
    auto out = TheCompiler().LinkCubin(".version 8.0", {}, Cpu("x86-64"), {});
    CHECK(out.status().code() == Code::kInvalidArgument);
  }
  if (SkipWithoutCuda()) return;
  SECTION("empty PTX") {
    auto out = TheCompiler().LinkCubin("", {}, Cuda("sm_90"), {});
    CHECK(out.status().code() == Code::kInvalidArgument);
    CHECK_THAT(out.status().message(), Catch::Contains("empty PTX"));
  }
  SECTION("PTX with a syntax error") {
    const char* ptx =
        ".version 8.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry k()\n{\n  not_an_instruction;\n  ret;\n}\n";
    auto out = TheCompiler().LinkCubin(ptx, {}, Cuda("sm_90"), {});
    CHECK(out.status().code() == Code::kInvalidArgument);
    CHECK_THAT(out.status().message(), Catch::Contains("nvJitLink"));
  }
  SECTION("opt level out of range") {
    auto out = TheCompiler().LinkCubin("x", {}, Cuda("sm_90"), CompileOptions{.opt_level = 9});
    CHECK(out.status().code() == Code::kInvalidArgument);
  }
}

TEST_CASE("The toolchain reports the nvJitLink version the link stage uses") {
  const ToolchainInfo& info = TheCompiler().toolchain();
  CHECK_FALSE(info.nvjitlink_version.empty());
  CHECK(info.nvjitlink_version == info.cuda_version);
}
