// AMDGPU compiles: IR -> AMDGPU object -> HSA code object, checked without a
// GPU: the ELF header, the kernel descriptors, the AMDHSA metadata, and the
// refusals of what the backend cannot take.
#include <catch2/catch.hpp>
#include <filesystem>

#include "compiler_test_support.h"
#include "tests/support/kernels.h"
#include "tests/support/temp_dir.h"

using namespace qdcache;
using namespace qdcache::compiler;
using namespace qdcache::compiler::testing;

namespace {

Target Amdgpu(const std::string& processor, std::vector<std::string> features = {}) {
  Target t;
  t.kind = TargetKind::kAmdgpu;
  t.cpu = processor;
  t.features = std::move(features);
  return t;
}

CompileOutput CompileAmdgpu(std::string_view ir, Target target, CompileOptions options = {},
                            std::vector<std::string> entries = {}) {
  auto result = TheCompiler().Compile(Input(ir, std::move(target), options, std::move(entries)));
  INFO(result.status().ToString());
  REQUIRE(result.ok());
  return std::move(result).value();
}

// EF_AMDGPU_MACH_AMDGCN_* of LLVM's BinaryFormat/ELF.h.
constexpr std::uint32_t kMachGfx90a = 0x3f;
constexpr std::uint32_t kMachGfx942 = 0x4c;
constexpr std::uint32_t kMachGfx1100 = 0x41;

using qdcache::testing::ElfSymbols;

std::vector<std::string> Undefined(const std::string& code_object) {
  std::vector<std::string> out;
  for (const auto& s : ElfSymbols(code_object)) {
    if (s.undefined) out.push_back(s.name);
  }
  return out;
}

bool Defines(const std::string& code_object, const std::string& name) {
  for (const auto& s : ElfSymbols(code_object)) {
    if (s.name == name && !s.undefined) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("an AMDGPU compile is an HSA code object for the requested processor, with kernel descriptors",
          "[amdgpu]") {
  const std::string ir = ReadTestData("amdgpu/block_reduce.ll");
  for (const auto& [processor, mach, wave] : {std::tuple{"gfx90a", kMachGfx90a, 64},
                                              std::tuple{"gfx942", kMachGfx942, 64},
                                              std::tuple{"gfx1100", kMachGfx1100, 32}}) {
    INFO(processor);
    const CompileOutput out = CompileAmdgpu(ir, Amdgpu(processor));
    CHECK(out.kind == ArtifactKind::kHsaCodeObject);
    const std::optional<std::uint32_t> flags = qdcache::testing::AmdgpuCodeObjectFlags(out.payload);
    REQUIRE(flags.has_value());
    CHECK((*flags & 0xff) == mach);
    CHECK(Undefined(out.payload).empty());
    REQUIRE(out.entries.size() == 2);
    for (const EntryInfo& e : out.entries) {
      INFO(e.name);
      CHECK(Defines(out.payload, e.name + ".kd"));
      CHECK(e.sgprs > 0);
      CHECK(e.vgprs > 0);
      CHECK(e.registers >= e.vgprs);
      CHECK(e.wavefront_size == wave);
      CHECK(e.local_bytes == 0);
      CHECK(e.kernarg_bytes > 0);
    }
    const auto& reduce = out.entries[0].name == "block_reduce" ? out.entries[0] : out.entries[1];
    CHECK(reduce.name == "block_reduce");
    CHECK(reduce.shared_bytes == 256 * 4);         // the LDS array
    CHECK(reduce.max_threads_per_block == 256);    // __launch_bounds__(256)
    const auto& scale = out.entries[0].name == "scale" ? out.entries[0] : out.entries[1];
    CHECK(scale.shared_bytes == 0);
    CHECK(scale.max_threads_per_block == 1024);
  }
}

TEST_CASE("AMDGPU register counts are the metadata's: VGPRs include the accumulation registers", "[amdgpu]") {
  // A kernel that uses accumulation register a40 (41 AGPRs).
  const std::string ir =
      "target triple = \"amdgcn-amd-amdhsa\"\n"
      "define amdgpu_kernel void @k() {\n  call void asm sideeffect \"\", \"~{a40}\"()\n  ret void\n}";
  for (const char* processor : {"gfx908", "gfx90a"}) {
    INFO(processor);
    const EntryInfo e = CompileAmdgpu(ir, Amdgpu(processor)).entries.at(0);
    CHECK(e.agprs == 41);
    CHECK(e.registers == e.vgprs);
    CHECK(e.vgprs >= e.agprs);  // gfx90a: arch + acc; gfx908: the larger of the two
  }
}

TEST_CASE("AMDGPU wavefront size and target-id features reach the code object", "[amdgpu]") {
  const std::string ir = ReadTestData("amdgpu/saxpy.ll");
  CompileOptions wave64;
  wave64.wavefront_size = 64;
  CHECK(CompileAmdgpu(ir, Amdgpu("gfx1100"), wave64).entries.at(0).wavefront_size == 64);
  CHECK(CompileAmdgpu(ir, Amdgpu("gfx1100")).entries.at(0).wavefront_size == 32);
  CompileOptions wave32;
  wave32.wavefront_size = 32;
  const Status refused = CompileStatus(ir, Amdgpu("gfx90a"), {}, wave32);
  CHECK(refused.code() == Code::kInvalidArgument);
  CHECK_THAT(refused.message(), Catch::Contains("wavefront"));

  // xnack+ and sramecc- are in e_flags (code object v4 and later).
  const CompileOutput on = CompileAmdgpu(ir, Amdgpu("gfx90a", {"sramecc-", "xnack+"}));
  const std::uint32_t flags = qdcache::testing::AmdgpuCodeObjectFlags(on.payload).value();
  CHECK((flags & 0x300) == 0x300);  // EF_AMDGPU_FEATURE_XNACK_ON_V4
  CHECK((flags & 0xc00) == 0x800);  // EF_AMDGPU_FEATURE_SRAMECC_OFF_V4
  const std::uint32_t any = qdcache::testing::AmdgpuCodeObjectFlags(CompileAmdgpu(ir, Amdgpu("gfx90a")).payload).value();
  CHECK((any & 0x300) == 0x100);  // EF_AMDGPU_FEATURE_XNACK_ANY_V4
}

TEST_CASE("the code object version is LLVM's default, the option's, or the module's", "[amdgpu]") {
  const std::string ir = ReadTestData("amdgpu/saxpy.ll");  // clang wrote amdhsa_code_object_version 500
  CompileOptions v5;
  v5.code_object_version = 5;
  CHECK(CompileAmdgpu(ir, Amdgpu("gfx90a"), v5).payload.at(EI_ABIVERSION) == 3);  // ELFABIVERSION_AMDGPU_HSA_V5
  // A flag that is no integer is refused, not misread.
  std::string odd = ir;
  odd.replace(odd.find("i32 1, !\"amdhsa_code_object_version\", i32 500"),
              std::string("i32 1, !\"amdhsa_code_object_version\", i32 500").size(),
              "i32 1, !\"amdhsa_code_object_version\", !\"five\"");
  const Status not_integer = CompileStatus(odd, Amdgpu("gfx90a"));
  CHECK(not_integer.code() == Code::kInvalidArgument);
  CHECK_THAT(not_integer.message(), Catch::Contains("is not an integer"));
  CompileOptions v4;
  v4.code_object_version = 4;
  const Status contradicts = CompileStatus(ir, Amdgpu("gfx90a"), {}, v4);
  CHECK(contradicts.code() == Code::kInvalidArgument);
  CHECK_THAT(contradicts.message(), Catch::Contains("amdhsa_code_object_version"));

  std::string unflagged = ir;
  const std::size_t flags = unflagged.find("!llvm.module.flags");
  REQUIRE(flags != std::string::npos);
  unflagged.erase(flags, unflagged.find('\n', flags) - flags);
  const CompileOutput four = CompileAmdgpu(unflagged, Amdgpu("gfx90a"), v4);
  CHECK(four.payload.at(EI_ABIVERSION) == 2);  // ELFABIVERSION_AMDGPU_HSA_V4
  CHECK(CompileAmdgpu(unflagged, Amdgpu("gfx90a")).payload.at(EI_ABIVERSION) == 3);
}

TEST_CASE("AMDGPU device libraries: linked as needed with link_device_libs, refused by name without", "[amdgpu]") {
  const std::string ir = ReadTestData("amdgpu/math.ll");
  const Status without = CompileStatus(ir, Amdgpu("gfx90a"));
  CHECK(without.code() == Code::kInvalidArgument);
  CHECK_THAT(without.message(), Catch::Contains("__ocml_exp_f32") && Catch::Contains("link_device_libs"));

  if (TheCompiler().toolchain().device_libs_digest == "none") {
    WARN("no ROCm device libraries were found (install rocm-device-libs): skipping");
    return;
  }
  CompileOptions options;
  options.link_device_libs = true;
  for (const char* processor : {"gfx90a", "gfx1030"}) {
    INFO(processor);
    const CompileOutput out = CompileAmdgpu(ir, Amdgpu(processor), options);
    CHECK(Undefined(out.payload).empty());
    CHECK(Defines(out.payload, "wave.kd"));
    // Nothing of the libraries is exported: only the kernel and its descriptor.
    for (const auto& s : ElfSymbols(out.payload)) {
      if (!s.dynamic) continue;
      CHECK_FALSE(std::string_view(s.name).starts_with("__ocml"));
      CHECK_FALSE(std::string_view(s.name).starts_with("__oclc"));
    }
  }
  // Fast math links the finite-only, unsafe and flush-denormal controls: other code.
  CompileOptions fast = options;
  fast.fast_math = true;
  CHECK(CompileAmdgpu(ir, Amdgpu("gfx90a"), fast).payload != CompileAmdgpu(ir, Amdgpu("gfx90a"), options).payload);
}

TEST_CASE("link_device_libs without the libraries it needs is FAILED_PRECONDITION saying what is missing",
          "[amdgpu]") {
  const std::string ir = ReadTestData("amdgpu/math.ll");
  CompileOptions options;
  options.link_device_libs = true;
  qdcache::testing::TempDir dir;
  auto status_with = [&](const std::string& libs, const std::string& processor = "gfx90a") {
    CompilerConfig config;
    config.device_libs_dir = libs;
    return MakeInProcessCompiler(config)->Compile(Input(ir, Amdgpu(processor), options)).status();
  };
  // A directory without the libraries, and one that is not there.
  const Status empty = status_with(dir.path());
  CHECK(empty.code() == Code::kFailedPrecondition);
  CHECK_THAT(empty.message(), Catch::Contains("holds no ocml.bc and ockl.bc"));
  const Status absent = status_with(dir / "absent");
  CHECK(absent.code() == Code::kFailedPrecondition);
  CHECK_THAT(absent.message(), Catch::Contains("cannot read the ROCm device-library directory"));
  CHECK(MakeInProcessCompiler(CompilerConfig{{}, dir / "absent"})->toolchain().device_libs_digest ==
        "probe-failed:rocm device libs");

  const std::string installed = QDCACHE_DEVICE_LIBS_DIR;
  if (installed.empty()) {
    WARN("no ROCm device libraries were found at build time (install rocm-device-libs): skipping the rest");
    return;
  }
  // The libraries without the ISA-version control ocml reads for gfx90a.
  const std::string partial = dir / "partial";
  std::filesystem::create_directory(partial);
  for (const auto& entry : std::filesystem::directory_iterator(installed)) {
    if (entry.path().filename() != "oclc_isa_version_90a.bc") {
      std::filesystem::copy_file(entry.path(), partial + "/" + entry.path().filename().string());
    }
  }
  const Status missing = status_with(partial);
  CHECK(missing.code() == Code::kFailedPrecondition);
  CHECK_THAT(missing.message(), Catch::Contains("lack oclc_isa_version_90a.bc for gfx90a") &&
                                    Catch::Contains("__oclc_ISA_version"));
  // Another set of libraries is another toolchain: every key changes with it.
  CHECK(MakeInProcessCompiler(CompilerConfig{{}, partial})->toolchain().device_libs_digest !=
        TheCompiler().toolchain().device_libs_digest);
}

TEST_CASE("AMDGPU targets are checked against LLVM's processors and their features", "[amdgpu]") {
  const std::string ir = ReadTestData("amdgpu/saxpy.ll");
  const Status unknown = CompileStatus(ir, Amdgpu("gfx9420"));
  CHECK(unknown.code() == Code::kInvalidArgument);
  CHECK_THAT(unknown.message(), Catch::Contains("unknown AMDGPU processor 'gfx9420'") &&
                                    Catch::Contains("gfx90a") && Catch::Contains("gfx1100"));
  const Status xnack = CompileStatus(ir, Amdgpu("gfx1100", {"xnack+"}));
  CHECK(xnack.code() == Code::kInvalidArgument);
  CHECK_THAT(xnack.message(), Catch::Contains("gfx1100 does not take the xnack feature"));
  const Status bogus = CompileStatus(ir, Amdgpu("gfx90a", {"wave64+"}));
  CHECK(bogus.code() == Code::kInvalidArgument);
  CHECK_THAT(bogus.message(), Catch::Contains("unknown AMDGPU target-id feature 'wave64'"));
  CHECK_THAT(CompileStatus(ir, Amdgpu("gfx9-generic")).message(),
             Catch::Contains("gfx9-generic needs code object version 6, not 5"));
  // Version 6, from the option or from the module's flag.
  CompileOptions v6;
  v6.code_object_version = 6;
  std::string flagged = ir;
  flagged.replace(flagged.find("amdhsa_code_object_version\", i32 500"),
                  std::string("amdhsa_code_object_version\", i32 500").size(), "amdhsa_code_object_version\", i32 600");
  CHECK(CompileStatus(flagged, Amdgpu("gfx9-generic")).ok());
  CHECK(CompileStatus(flagged, Amdgpu("gfx9-generic"), {}, v6).ok());
}

TEST_CASE("AMDGPU modules the backend cannot take are refused before codegen", "[amdgpu]") {
  const std::string saxpy = ReadTestData("amdgpu/saxpy.ll");
  auto with_triple = [&](const std::string& triple) {
    std::string ir = saxpy;
    const std::size_t at = ir.find("amdgcn-amd-amdhsa");
    REQUIRE(at != std::string::npos);
    return ir.replace(at, std::string("amdgcn-amd-amdhsa").size(), triple);
  };
  for (const char* triple : {"nvptx64-nvidia-cuda", "amdgcn-amd-amdpal", "r600--"}) {
    INFO(triple);
    const Status s = CompileStatus(with_triple(triple), Amdgpu("gfx90a"));
    CHECK(s.code() == Code::kInvalidArgument);
    CHECK_THAT(s.message(), Catch::Contains("contradicts target amdgpu:gfx90a"));
  }
  // No triple and no datalayout: the target's are filled in.
  std::string bare = saxpy;
  for (const char* line : {"target datalayout", "target triple"}) {
    const std::size_t at = bare.find(line);
    bare.erase(at, bare.find('\n', at) - at);
  }
  CHECK(CompileStatus(bare, Amdgpu("gfx942")).ok());

  const char* kCases[][2] = {
      {"define ptx_kernel void @k() { ret void }", "calling convention"},
      {"define void @f() { ret void }", "no kernels"},
      {"@lds = addrspace(3) global i32 7\n"
       "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
       "  %v = load i32, ptr addrspace(3) @lds\n  store i32 %v, ptr addrspace(1) %p\n  ret void\n}",
       "LDS variables can only be undef"},
      {"@priv = addrspace(5) global i32 0\n"
       "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
       "  %v = load i32, ptr addrspace(5) @priv\n  store i32 %v, ptr addrspace(1) %p\n  ret void\n}",
       "addrspace(5)"},
      {"define amdgpu_kernel void @k() {\n  call void asm sideeffect \".incbin \\22/etc/passwd\\22\", \"\"()\n"
       "  ret void\n}",
       "assembler directive"},
      {"module asm \".include \\22x\\22\"\ndefine amdgpu_kernel void @k() { ret void }", "module-level"},
      {"@big = addrspace(3) global [20000 x float] undef\n"
       "define amdgpu_kernel void @k(i32 %i) {\n  %p = getelementptr [20000 x float], ptr addrspace(3) @big, i32 0, "
       "i32 %i\n  store float 1.0, ptr addrspace(3) %p\n  ret void\n}",
       "bytes of LDS"},
      {"define amdgpu_kernel void @k() {\n  call void asm sideeffect \"s_nop 0\\0D.incbin \\22/etc/passwd\\22\", \"\"()\n"
       "  ret void\n}",
       "assembler directive"},
      {"@\".incbin\" = addrspace(1) global i8 0\n"
       "define amdgpu_kernel void @k() {\n"
       "  call void asm sideeffect \"${0:c} \\22/etc/passwd\\22\", \"i\"(ptr addrspace(1) @\".incbin\")\n  ret void\n}",
       "takes a global or constant expression as an operand"},
      {"define hidden amdgpu_kernel void @k() { ret void }", "no kernels"},
      {"declare void @g()\ndefine amdgpu_kernel void @k() {\n  call x86_stdcallcc void @g()\n  ret void\n}",
       "uses calling convention"},
      {"define amdgpu_kernel void @a() { ret void }\n"
       "define amdgpu_kernel void @k() {\n  call void @a()\n  ret void\n}",
       "calls a kernel"},
      {"@t = thread_local addrspace(1) global i32 0\n"
       "define amdgpu_kernel void @k() {\n  store i32 1, ptr addrspace(1) @t\n  ret void\n}",
       "thread_local"},
      {"define ptr @resolve() { ret ptr null }\n@i = ifunc void (), ptr @resolve\n"
       "define amdgpu_kernel void @k() {\n  call void @i()\n  ret void\n}",
       "ifunc"},
      {"declare float @helper(float)\n"
       "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n  %v = call float @helper(float 1.0)\n"
       "  store float %v, ptr addrspace(1) %p\n  ret void\n}",
       "undefined device functions: helper"},
  };
  for (const auto& [body, expected] : kCases) {
    INFO(body);
    const Status s = CompileStatus(std::string("target triple = \"amdgcn-amd-amdhsa\"\n") + body, Amdgpu("gfx90a"));
    CHECK(s.code() == Code::kInvalidArgument);
    CHECK_THAT(s.message(), Catch::Contains(expected));
  }
  // A directive behind a label, quoted or not, is still one.
  for (const char* label : {"x.y: .incbin", "\\22a b\\22: .include"}) {
    INFO(label);
    const std::string ir = std::string("target triple = \"amdgcn-amd-amdhsa\"\ndefine amdgpu_kernel void @k() {\n") +
                           "  call void asm sideeffect \"" + label + " \\22x\\22\", \"\"()\n  ret void\n}";
    CHECK_THAT(CompileStatus(ir, Amdgpu("gfx90a")).message(), Catch::Contains("assembler directive"));
  }
  // Instructions in inline assembly stay accepted.
  const std::string waitcnt =
      "target triple = \"amdgcn-amd-amdhsa\"\n"
      "define amdgpu_kernel void @k() {\n  call void asm sideeffect \"s_waitcnt vmcnt(0)\\0As_nop 0 ; 1.0\", \"\"()\n"
      "  ret void\n}";
  CHECK(CompileStatus(waitcnt, Amdgpu("gfx90a")).ok());
  // Entry points are checked like CUDA's.
  const Status missing = CompileStatus(saxpy, Amdgpu("gfx90a"), {"saxpyy"});
  CHECK(missing.code() == Code::kInvalidArgument);
  CHECK_THAT(missing.message(), Catch::Contains("'saxpyy' does not exist") && Catch::Contains("available: saxpy"));
}
