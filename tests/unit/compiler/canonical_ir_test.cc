// Compiler::CanonicalIrDigest: inputs that compile to the same artifact share
// a digest; inputs that may not, do not. Run over the repository's kernels
// and over small inline modules.
#include <catch2/catch.hpp>
#include <thread>

#include "canonical_ir_test_support.h"
#include "backends/ir_assembler.h"

using namespace qdcache;
using namespace qdcache::compiler;
using namespace qdcache::compiler::testing;

namespace {

// A kernel reading a constant table, with an attribute group, a launch bound
// and a module flag: one of each thing the perturbation cases change.
constexpr const char* kCudaTable = R"(source_filename = "table.cu"
target triple = "nvptx64-nvidia-cuda"

@table = internal addrspace(1) global [4 x float] [float 1.0, float 2.0, float 3.0, float 4.0], align 4

define ptx_kernel void @lookup(ptr %out, i32 %i) #0 {
entry:
  %idx = and i32 %i, 3
  %wide = zext i32 %idx to i64
  %slot = getelementptr inbounds [4 x float], ptr addrspace(1) @table, i64 0, i64 %wide
  %v = load float, ptr addrspace(1) %slot, align 4
  %scaled = fmul float %v, 2.5
  store float %scaled, ptr %out, align 4
  ret void
}

attributes #0 = { nounwind "no-trapping-math"="true" }

!nvvm.annotations = !{!0}
!llvm.module.flags = !{!1}
!0 = !{ptr @lookup, !"maxntidx", i32 128}
!1 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
)";

constexpr const char* kCpuTable = R"(source_filename = "table.c"
target triple = "x86_64-unknown-linux-gnu"

@table = internal constant [4 x float] [float 1.0, float 2.0, float 3.0, float 4.0], align 16

define float @lookup(i64 %i) #0 {
entry:
  %idx = and i64 %i, 3
  %slot = getelementptr inbounds [4 x float], ptr @table, i64 0, i64 %idx
  %v = load float, ptr %slot, align 4
  %scaled = fmul float %v, 2.5
  ret float %scaled
}

attributes #0 = { nounwind "no-trapping-math"="true" }

!llvm.module.flags = !{!0}
!0 = !{i32 8, !"PIC Level", i32 2}
)";

// The same function with full debug info: a subprogram, a dbg.value
// intrinsic (the pre-LLVM-19 form), !dbg locations and the debug module flags.
constexpr const char* kCpuScaleWithDebugInfo = R"(source_filename = "/home/someone/scale.c"
target triple = "x86_64-unknown-linux-gnu"

define float @scale(float %v, float %s) !dbg !5 {
entry:
  call void @llvm.dbg.value(metadata float %v, metadata !10, metadata !DIExpression()), !dbg !12
  %r = fmul float %v, %s, !dbg !12
  ret float %r, !dbg !13
}

declare void @llvm.dbg.value(metadata, metadata, metadata)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "hand-written", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "scale.c", directory: "/home/someone")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 8, !"PIC Level", i32 2}
!5 = distinct !DISubprogram(name: "scale", scope: !1, file: !1, line: 3, type: !6, scopeLine: 3, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !9)
!6 = !DISubroutineType(types: !7)
!7 = !{!8, !8, !8}
!8 = !DIBasicType(name: "float", size: 32, encoding: DW_ATE_float)
!9 = !{!10}
!10 = !DILocalVariable(name: "v", arg: 1, scope: !5, file: !1, line: 3, type: !8)
!12 = !DILocation(line: 4, column: 12, scope: !5)
!13 = !DILocation(line: 4, column: 3, scope: !5)
)";

constexpr const char* kCpuScale = R"(source_filename = "scale.c"
target triple = "x86_64-unknown-linux-gnu"

define float @scale(float %v, float %s) {
entry:
  %r = fmul float %v, %s
  ret float %r
}

!llvm.module.flags = !{!0}
!0 = !{i32 8, !"PIC Level", i32 2}
)";

struct InlineModule {
  const char* name;
  const char* ir;
  bool cuda;
};

const InlineModule kInlineModules[] = {
    {"inline CUDA table", kCudaTable, true},
    {"inline CPU table", kCpuTable, false},
    {"inline CPU scale", kCpuScale, false},
};

// Checks that `edit` keeps the digest of every repository kernel and inline
// module.
template <typename Edit>
void CheckDigestKept(Edit edit) {
  for (const TestKernel& kernel : TestKernels()) {
    DYNAMIC_SECTION(kernel.path) {
      if (SkipWithoutCuda(kernel.cuda)) return;
      const std::string ir = ReadTestData(kernel.path);
      const Target target = TargetFor(kernel.cuda);
      CHECK(DigestOf(edit(ir), target) == DigestOf(ir, target));
    }
  }
  for (const InlineModule& module : kInlineModules) {
    DYNAMIC_SECTION(module.name) {
      if (SkipWithoutCuda(module.cuda)) return;
      const Target target = TargetFor(module.cuda);
      CHECK(DigestOf(edit(module.ir), target) == DigestOf(module.ir, target));
    }
  }
}

struct Perturbation {
  const char* where;  // a test kernel path or an inline module
  std::string ir;
  bool cuda;
  std::string from;
  std::string to;
};

void CheckDigestsDiffer(const std::vector<Perturbation>& cases) {
  for (const Perturbation& p : cases) {
    DYNAMIC_SECTION(p.where << ": '" << p.from << "' -> '" << p.to << "'") {
      if (SkipWithoutCuda(p.cuda)) return;
      const Target target = TargetFor(p.cuda);
      CHECK(DigestOf(ReplaceFirst(p.ir, p.from, p.to), target) != DigestOf(p.ir, target));
    }
  }
}

Perturbation OnKernel(const char* path, std::string from, std::string to) {
  return {path, ReadTestData(path), std::string_view(path).starts_with("cuda/"), std::move(from),
          std::move(to)};
}

Perturbation OnInline(const char* ir, bool cuda, std::string from, std::string to) {
  return {cuda ? "inline CUDA table" : "inline CPU module", ir, cuda, std::move(from),
          std::move(to)};
}

}  // namespace

// ---- Edits that cannot change the artifact keep the digest. ----

TEST_CASE("Digest: the module identifier does not matter") {
  CheckDigestKept([](const std::string& ir) { return "; ModuleID = '/elsewhere/k.bc'\n" + ir; });
}

TEST_CASE("Digest: source_filename does not matter without debug info") {
  CheckDigestKept([](const std::string& ir) {
    return "source_filename = \"/home/other/renamed.cu\"\n" +
           DropLinesStartingWith(ir, "source_filename");
  });
}

TEST_CASE("Digest: comments and whitespace do not matter") {
  CheckDigestKept([](const std::string& ir) { return Reformat(ir); });
}

TEST_CASE("Digest: local value names (arguments instructions blocks) do not matter") {
  CheckDigestKept([](const std::string& ir) { return RenameLocals(ir); });
}

TEST_CASE("Digest: text IR and its bitcode have one digest") {
  CheckDigestKept([](const std::string& ir) {
    Expected<std::string> bitcode = AssembleBitcode(ir);
    REQUIRE(bitcode.ok());
    REQUIRE(bitcode->substr(0, 4) == std::string("BC\xC0\xDE", 4));
    return *bitcode;
  });
}

TEST_CASE("Digest: text IR and its bitcode have one digest also when debug info is kept") {
  for (const char* kernel :
       {"cuda/saxpy_debug.ll", "cpu/saxpy_debug.ll", "cpu/stencil2d_debug.ll"}) {
    DYNAMIC_SECTION(kernel) {
      const bool cuda = std::string_view(kernel).starts_with("cuda/");
      if (SkipWithoutCuda(cuda)) return;
      const std::string ir = ReadTestData(kernel);
      Expected<std::string> bitcode = AssembleBitcode(ir);
      REQUIRE(bitcode.ok());
      CHECK(DigestOf(*bitcode, TargetFor(cuda), true) == DigestOf(ir, TargetFor(cuda), true));
    }
  }
  SECTION("inline module with a dbg.value intrinsic") {
    Expected<std::string> bitcode = AssembleBitcode(kCpuScaleWithDebugInfo);
    REQUIRE(bitcode.ok());
    CHECK(DigestOf(*bitcode, Cpu("x86-64"), true) ==
          DigestOf(kCpuScaleWithDebugInfo, Cpu("x86-64"), true));
  }
}

TEST_CASE("Digest: a module without triple and datalayout equals one with the target's") {
  CheckDigestKept([](const std::string& ir) {
    return DropLinesStartingWith(DropLinesStartingWith(ir, "target triple"), "target datalayout");
  });
}

TEST_CASE("Digest: debug info does not matter unless kept") {
  for (const char* kernel : {"cuda/saxpy", "cuda/stencil2d", "cpu/saxpy", "cpu/stencil2d"}) {
    DYNAMIC_SECTION(kernel) {
      const bool cuda = std::string_view(kernel).starts_with("cuda/");
      if (SkipWithoutCuda(cuda)) return;
      const std::string plain = ReadTestData(std::string(kernel) + ".ll");
      const std::string with_debug = ReadTestData(std::string(kernel) + "_debug.ll");
      REQUIRE_THAT(with_debug, Catch::Contains("!dbg"));
      CHECK(DigestOf(with_debug, TargetFor(cuda)) == DigestOf(plain, TargetFor(cuda)));
      CHECK(DigestOf(with_debug, TargetFor(cuda), true) != DigestOf(plain, TargetFor(cuda), true));
    }
  }
  SECTION("inline module with a dbg.value intrinsic") {
    CHECK(DigestOf(kCpuScaleWithDebugInfo, Cpu("x86-64")) == DigestOf(kCpuScale, Cpu("x86-64")));
  }
}

TEST_CASE("Digest: the same IR has the same digest for every SM and every CPU") {
  const std::string cpu_ir = ReadTestData("cpu/saxpy.ll");
  CHECK(DigestOf(cpu_ir, Cpu("x86-64")) == DigestOf(cpu_ir, Cpu("skylake-avx512", {"+avx2"})));
  if (SkipWithoutCuda(true)) return;
  const std::string cuda_ir = ReadTestData("cuda/saxpy.ll");
  CHECK(DigestOf(cuda_ir, Cuda("sm_75")) == DigestOf(cuda_ir, Cuda("sm_90")));
}

TEST_CASE("Digest: the same IR read twice gives the same digest") {
  const std::string ir = ReadTestData("cpu/stencil2d.ll");
  CHECK(DigestOf(ir, Cpu("x86-64")) == DigestOf(ir, Cpu("x86-64")));
}

// ---- Edits that can change the artifact change the digest. ----

TEST_CASE("Digest: one changed instruction changes it") {
  CheckDigestsDiffer({
      OnKernel("cuda/saxpy.ll", "icmp slt i32 %add, %n", "icmp sle i32 %add, %n"),
      OnKernel("cuda/block_reduce.ll", "icmp slt i32 %add, %n", "icmp sle i32 %add, %n"),
      OnKernel("cuda/stencil2d.ll", "%mul = mul nuw nsw i32 %0, %1",
               "%mul = add nuw nsw i32 %0, %1"),
      OnKernel("cuda/llvm_test_style.ll", "%r = fmul float %v, %s", "%r = fadd float %v, %s"),
      OnKernel("cpu/saxpy.ll", "icmp sgt i64 %n, 0", "icmp sge i64 %n, 0"),
      OnKernel("cpu/block_reduce.ll", "fadd float %sum.05, %0", "fsub float %sum.05, %0"),
      OnKernel("cpu/stencil2d.ll", "%mul = mul nuw nsw i64 %y.062, %w",
               "%mul = add nuw nsw i64 %y.062, %w"),
      OnInline(kCudaTable, true, "fmul float %v, 2.5", "fadd float %v, 2.5"),
      OnInline(kCpuTable, false, "fmul float %v, 2.5", "fadd float %v, 2.5"),
  });
}

TEST_CASE("Digest: one changed constant changes it") {
  CheckDigestsDiffer({
      OnKernel("cuda/block_reduce.ll", "icmp eq i32 %0, 0", "icmp eq i32 %0, 1"),
      OnKernel("cpu/saxpy.ll", "icmp sgt i64 %n, 0", "icmp sgt i64 %n, 1"),
      OnKernel("cpu/stencil2d.ll", "add nsw i64 %w, -1", "add nsw i64 %w, -2"),
      OnInline(kCudaTable, true, "2.5", "3.5"),
      OnInline(kCpuTable, false, "2.5", "3.5"),
      OnInline(kCpuTable, false, "and i64 %i, 3", "and i64 %i, 1"),
  });
}

TEST_CASE("Digest: a changed function attribute changes it") {
  CheckDigestsDiffer({
      OnKernel("cuda/saxpy.ll", "\"no-trapping-math\"=\"true\"", "\"no-trapping-math\"=\"false\""),
      OnKernel("cuda/llvm_test_style.ll", "float %s) {", "float %s) noinline {"),
      OnKernel("cpu/saxpy.ll", "uwtable \"min", "\"min"),
      OnKernel("cpu/block_reduce.ll", "memory(argmem: read) uwtable \"min",
               "memory(read) uwtable \"min"),
      OnInline(kCudaTable, true, "{ nounwind", "{ nounwind noinline"),
      OnInline(kCpuTable, false, "\"no-trapping-math\"=\"true\"", "\"no-trapping-math\"=\"false\""),
  });
}

TEST_CASE("Digest: a changed global initializer changes it") {
  CheckDigestsDiffer({
      OnKernel("cuda/block_reduce.ll", "[256 x float] undef", "[256 x float] zeroinitializer"),
      OnInline(kCudaTable, true, "float 2.0", "float 2.5"),
      OnInline(kCpuTable, false, "float 4.0]", "float -4.0]"),
  });
}

TEST_CASE("Digest: a changed kernel launch bound (maxntid) changes it") {
  CheckDigestsDiffer({
      OnKernel("cuda/block_reduce.ll", "!\"maxntidx\", i32 256", "!\"maxntidx\", i32 128"),
      OnKernel("cuda/llvm_test_style.ll", "!\"maxntidx\", i32 128", "!\"maxntidx\", i32 64"),
      OnInline(kCudaTable, true, "!\"maxntidx\", i32 128", "!\"maxntidx\", i32 256"),
  });
}

TEST_CASE("Digest: a changed module flag changes it") {
  CheckDigestsDiffer({
      OnKernel("cuda/saxpy.ll", "!\"nvvm-reflect-ftz\", i32 0", "!\"nvvm-reflect-ftz\", i32 1"),
      OnKernel("cuda/stencil2d.ll", "!\"nvvm-reflect-ftz\", i32 0", "!\"nvvm-reflect-ftz\", i32 1"),
      OnKernel("cpu/saxpy.ll", "!\"PIC Level\", i32 2", "!\"PIC Level\", i32 1"),
      OnInline(kCudaTable, true, "!\"nvvm-reflect-ftz\", i32 0", "!\"nvvm-reflect-ftz\", i32 1"),
  });
}

TEST_CASE("Digest: differing debug info changes it when debug info is kept") {
  const std::string moved = ReplaceFirst(kCpuScaleWithDebugInfo, "!DILocation(line: 4, column: 12",
                                         "!DILocation(line: 5, column: 12");
  CHECK(DigestOf(moved, Cpu("x86-64"), true) !=
        DigestOf(kCpuScaleWithDebugInfo, Cpu("x86-64"), true));
  CHECK(DigestOf(moved, Cpu("x86-64"), false) ==
        DigestOf(kCpuScaleWithDebugInfo, Cpu("x86-64"), false));

  const std::string renamed_file =
      ReplaceFirst(kCpuScaleWithDebugInfo, "filename: \"scale.c\"", "filename: \"other.c\"");
  CHECK(DigestOf(renamed_file, Cpu("x86-64"), true) !=
        DigestOf(kCpuScaleWithDebugInfo, Cpu("x86-64"), true));

  const std::string cpu = ReadTestData("cpu/saxpy_debug.ll");
  const std::string cpu_moved = ReplaceFirst(cpu, "line: 4", "line: 40");
  CHECK(DigestOf(cpu_moved, Cpu("x86-64"), true) != DigestOf(cpu, Cpu("x86-64"), true));
}

TEST_CASE("Digest: source_filename counts when debug info is kept") {
  const std::string ir = ReadTestData("cpu/saxpy_debug.ll");
  const std::string renamed =
      ReplaceFirst(ir, "source_filename = \"cpu/saxpy.c\"", "source_filename = \"cpu/other.c\"");
  CHECK(DigestOf(renamed, Cpu("x86-64"), true) != DigestOf(ir, Cpu("x86-64"), true));
}

TEST_CASE("Digest: keeping debug info or not are distinct digests of one module") {
  CHECK(DigestOf(kCpuScale, Cpu("x86-64"), true) != DigestOf(kCpuScale, Cpu("x86-64"), false));
}

// ---- Refusals are Compile's. ----

TEST_CASE("Digest: bad input is refused with Compile's code and message") {
  const std::string add =
      "target triple = \"x86_64-unknown-linux-gnu\"\n"
      "define i32 @add(i32 %a, i32 %b) {\n  %r = add i32 %a, %b\n  ret i32 %r\n}\n";
  std::string with_nul = add;
  with_nul.insert(10, 1, '\0');
  struct Case {
    const char* name;
    std::string ir;
    Target target;
  };
  const std::vector<Case> cases = {
      {"empty", "", Cpu("x86-64")},
      {"whitespace", " \n\t ", Cpu("x86-64")},
      {"NUL byte", with_nul, Cpu("x86-64")},
      {"syntax error", "define i32 @f(i32 %a) {\n  %r = bogus i32 %a, 1\n  ret i32 %r\n}\n",
       Cpu("x86-64")},
      {"truncated bitcode", std::string("BC\xC0\xDE", 4), Cpu("x86-64")},
      {"verifier",
       "define i32 @f(i32 %a) {\nentry:\n  br label %next\nnext:\n  %r = add i32 %r, 1\n"
       "  ret i32 %r\n}\n",
       Cpu("x86-64")},
      {"triple", ReadTestData("cuda/saxpy.ll"), Cpu("x86-64")},
      {"datalayout", "target datalayout = \"E-m:e-i64:64-n8:16:32:64-S128\"\n" + add,
       Cpu("x86-64")},
      {"native CPU", add, Cpu("native")},
      {"unknown CPU feature", add, Cpu("x86-64", {"+nonsense"})},
      {"CPU IR for CUDA", add, Cuda("sm_90")},
      {"unsupported SM", ReadTestData("cuda/saxpy.ll"), Cuda("sm_10")},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const Status compiled = TheCompiler().Compile(Input(c.ir, c.target)).status();
      const Status digested = TheCompiler().CanonicalIrDigest(c.ir, c.target, false).status();
      INFO("Compile: " << compiled.ToString() << "\nDigest: " << digested.ToString());
      REQUIRE_FALSE(compiled.ok());
      CHECK(digested.code() == compiled.code());
      CHECK(digested.message() == compiled.message());
    }
  }
}

TEST_CASE("Digest: concurrent calls agree") {
  const std::string ir = ReadTestData("cpu/stencil2d.ll");
  const std::string expected = DigestOf(ir, Cpu("x86-64"));
  std::vector<std::string> digests(4);
  std::vector<std::thread> threads;
  for (std::string& digest : digests) {
    threads.emplace_back([&ir, &digest] {
      auto d = TheCompiler().CanonicalIrDigest(ir, Cpu("x86-64"), false);
      if (d.ok()) digest = ToHex(*d);
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& digest : digests) CHECK(digest == expected);
}
