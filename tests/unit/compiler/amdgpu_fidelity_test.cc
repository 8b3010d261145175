// Fidelity of AMDGPU code objects without a GPU: the .text of what qdcached
// makes equals what LLVM's own tools make of the same optimized IR,
// `llc-19 -mtriple=amdgcn-amd-amdhsa -mcpu=<gfx> -O<n> -filetype=obj` and
// `ld.lld-19 -shared`. The IR is the pipeline's own (OptimizedIr), so the
// comparison covers codegen and link; optimization is LLVM's pass pipeline.
#include <catch2/catch.hpp>

#include "compiler_test_support.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

using namespace qdcache;
using namespace qdcache::compiler;
using namespace qdcache::compiler::testing;

namespace {

Target AmdgpuTarget(const std::string& processor) {
  Target t;
  t.kind = TargetKind::kAmdgpu;
  t.cpu = processor;
  return t;
}

// The code object llc-19 and ld.lld-19 make of `ir`.
std::string Reference(const std::string& ir, const std::string& processor, int opt_level,
                      const std::string& mattr, const std::string& dir) {
  const std::string ll = dir + "/kernel.ll";
  const std::string object = dir + "/kernel.o";
  const std::string hsaco = dir + "/kernel.hsaco";
  qdcache::testing::WriteFileOrDie(ll, ir);
  std::vector<std::string> llc = {QDCACHE_LLC, "-mtriple=amdgcn-amd-amdhsa", "-mcpu=" + processor,
                                  "-O" + std::to_string(opt_level), "-filetype=obj", ll, "-o", object};
  if (!mattr.empty()) llc.push_back("-mattr=" + mattr);
  const qdcache::testing::RunResult compiled = qdcache::testing::Run(llc);
  INFO(compiled.err);
  REQUIRE(compiled.exit_code == 0);
  const qdcache::testing::RunResult linked = qdcache::testing::Run({QDCACHE_LD_LLD, "-shared", object, "-o", hsaco});
  INFO(linked.err);
  REQUIRE(linked.exit_code == 0);
  return qdcache::testing::ReadFileOrDie(hsaco);
}

void CheckFidelityOf(const std::string& ir, const std::string& processor, CompileOptions options,
                     const std::string& mattr = "") {
  INFO(processor << " at -O" << options.opt_level);
  const CompileInput input = Input(ir, AmdgpuTarget(processor), options);
  auto compiled = TheCompiler().Compile(input);
  INFO(compiled.status().ToString());
  REQUIRE(compiled.ok());
  auto optimized = OptimizedIr(input);
  REQUIRE(optimized.ok());
  qdcache::testing::TempDir dir;
  const std::string reference = Reference(*optimized, processor, options.opt_level, mattr, dir.path());
  const auto ours = qdcache::testing::ElfSections(compiled->payload, ".text");
  const auto theirs = qdcache::testing::ElfSections(reference, ".text");
  REQUIRE(ours.contains(".text"));
  CHECK(ours.at(".text").size() > 0);
  CHECK(ours == theirs);
}

void CheckFidelity(const std::string& file, const std::string& processor, CompileOptions options,
                   const std::string& mattr = "") {
  INFO(file);
  CheckFidelityOf(ReadTestData(file), processor, options, mattr);
}

bool HaveTools() { return std::string(QDCACHE_LLC).size() > 0 && std::string(QDCACHE_LD_LLD).size() > 0; }

}  // namespace

TEST_CASE("AMDGPU code objects: .text equals llc-19 + ld.lld-19 of the same optimized IR", "[amdgpu][fidelity]") {
  if (!HaveTools()) {
    WARN("llc-19 or ld.lld-19 was not found at build time (Debian: llvm-19, lld-19): skipping");
    return;
  }
  for (const char* file : {"amdgpu/saxpy.ll", "amdgpu/block_reduce.ll"}) {
    for (const char* processor : {"gfx90a", "gfx942", "gfx1100"}) {
      for (int level : {0, 3}) {
        CompileOptions options;
        options.opt_level = level;
        CheckFidelity(file, processor, options);
      }
    }
  }
  CompileOptions o2;
  o2.opt_level = 2;
  CheckFidelity("amdgpu/block_reduce.ll", "gfx1030", o2);
  CompileOptions wave64;
  wave64.wavefront_size = 64;
  CheckFidelity("amdgpu/block_reduce.ll", "gfx1100", wave64, "+wavefrontsize64");
}

TEST_CASE("AMDGPU code objects with device libraries linked: .text equals llc-19 + ld.lld-19", "[amdgpu][fidelity]") {
  if (!HaveTools()) {
    WARN("llc-19 or ld.lld-19 was not found at build time (Debian: llvm-19, lld-19): skipping");
    return;
  }
  if (TheCompiler().toolchain().device_libs_digest == "none") {
    WARN("no ROCm device libraries were found (install rocm-device-libs): skipping");
    return;
  }
  CompileOptions options;
  options.link_device_libs = true;
  CheckFidelity("amdgpu/math.ll", "gfx90a", options);
  options.fast_math = true;
  CheckFidelity("amdgpu/math.ll", "gfx1030", options);
}

TEST_CASE("AMDGPU code objects of HIP kernels clang-19 compiles: .text equals llc-19 + ld.lld-19",
          "[amdgpu][fidelity]") {
  const std::string clang = qdcache::testing::FindOnPath("clang-19");
  if (!HaveTools() || clang.empty()) {
    WARN("clang-19, llc-19 or ld.lld-19 is missing (Debian: clang-19, llvm-19, lld-19): skipping");
    return;
  }
  for (const char* processor : {"gfx90a", "gfx942", "gfx1100"}) {
    INFO("softclip.hip for " << processor);
    qdcache::testing::TempDir dir;
    const std::string ll = dir.path() + "/softclip.ll";
    const qdcache::testing::RunResult ir =
        qdcache::testing::Run({clang, "-x", "hip", "--cuda-device-only", std::string("--offload-arch=") + processor,
                               "-nogpulib", "-nogpuinc", "-O2", "-emit-llvm", "-S",
                               std::string(QDCACHE_TEST_DATA) + "/amdgpu/softclip.hip", "-o", ll});
    INFO(ir.err);
    REQUIRE(ir.exit_code == 0);
    CheckFidelityOf(qdcache::testing::ReadFileOrDie(ll), processor, CompileOptions{});
  }
}
