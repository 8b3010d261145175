// The bad-input front door: naming foreign inputs, nesting and expansion
// limits, and CUDA sizes no GPU can launch. (The whole malformed-input corpus
// runs against a real daemon in tests/integration/bad_corpus_test.cc.)
#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "compiler/input_sniff.h"
#include "compiler/ir_limits.h"
#include "compiler_test_support.h"

using namespace qdcache;
using namespace qdcache::compiler;
using namespace qdcache::compiler::testing;

namespace {

const std::string kCpuTriple = "target triple = \"x86_64-unknown-linux-gnu\"\n";
const std::string kCudaTriple = "target triple = \"nvptx64-nvidia-cuda\"\n";

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.append(s);
  return out;
}

// A CPU module with `@g` of `depth` nested array types.
std::string NestedArrayGlobal(int depth) {
  std::string ir = kCpuTriple;
  ir.append("@g = global ").append(Repeat("[1 x ", depth)).append("i32").append(Repeat("]", depth));
  ir.append(" zeroinitializer\ndefine ptr @f() {\n  ret ptr @g\n}\n");
  return ir;
}

// A CPU module whose `@h` is `depth` nested constant GEPs.
std::string NestedConstantGlobal(int depth) {
  std::string ir = kCpuTriple;
  ir.append("@g = global [4 x i8] zeroinitializer\n@h = global ");
  ir.append(Repeat("ptr getelementptr (i8, ", depth))
      .append("ptr @g")
      .append(Repeat(", i64 1)", depth));
  ir.append("\ndefine ptr @f() {\n  ret ptr @h\n}\n");
  return ir;
}

// `n` named types, each the only member of the one before.
std::string NamedTypeChain(int n) {
  std::string ir = kCpuTriple;
  for (int i = 0; i < n; ++i) {
    ir.append("%t" + std::to_string(i) + " = type { %t" + std::to_string(i + 1) + " }\n");
  }
  ir.append("%t" + std::to_string(n) + " = type { i32 }\n@g = global %t0 zeroinitializer\n");
  ir.append("define ptr @f() {\n  ret ptr @g\n}\n");
  return ir;
}

std::string ReadBadCorpus(const std::string& file) {
  std::ifstream in(std::string(QDCACHE_BAD_CORPUS) + "/" + file, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

Status DigestStatus(std::string_view ir, const Target& target) {
  return TheCompiler().CanonicalIrDigest(ir, target, false).status();
}

void CheckRefused(const Status& status, const std::string& substring) {
  INFO(status.ToString());
  CHECK(status.code() == Code::kInvalidArgument);
  CHECK_THAT(status.message(), Catch::Contains(substring));
}

}  // namespace

TEST_CASE("Nesting scan counts brackets and reports where the limit is passed") {
  CHECK_FALSE(FindExcessNesting("", 2).has_value());
  CHECK_FALSE(FindExcessNesting("{ [ ] }", 2).has_value());
  const auto excess = FindExcessNesting("a\n{ ( <x> ) }\n  {[(", 2);
  REQUIRE(excess.has_value());
  CHECK(excess->line == 2);
  CHECK(excess->column == 5);  // the '<'
  const auto later = FindExcessNesting("{ }\n{ }\n  {[(", 2);
  REQUIRE(later.has_value());
  CHECK(later->line == 3);
  CHECK(later->column == 5);
}

TEST_CASE("Nesting scan skips strings and comments, and ignores stray closers") {
  CHECK_FALSE(FindExcessNesting("!0 = !{!\"((((((\"}\n; [[[[[[\n{", 2).has_value());
  CHECK_FALSE(FindExcessNesting(")))] ( [", 2).has_value());
  // A string spanning lines still counts its lines.
  const auto excess = FindExcessNesting("\"a\nb\"\n(((", 2);
  REQUIRE(excess.has_value());
  CHECK(excess->line == 3);
  CHECK(excess->column == 3);
}

TEST_CASE("IR nesting up to the limit is accepted, one level more is refused with line:column") {
  CHECK(DigestStatus(NestedArrayGlobal(kMaxIrNestingDepth), Cpu("x86-64")).ok());
  CheckRefused(DigestStatus(NestedArrayGlobal(kMaxIrNestingDepth + 1), Cpu("x86-64")),
               "IR nesting depth exceeds the limit of 256 at 2:");
  CheckRefused(DigestStatus(NestedConstantGlobal(100000), Cpu("x86-64")),
               "IR nesting depth exceeds the limit of 256 at 3:");
}

TEST_CASE("Types nested through named structs are refused past the limit") {
  CHECK(DigestStatus(NamedTypeChain(kMaxIrNestingDepth - 1), Cpu("x86-64")).ok());
  CheckRefused(DigestStatus(NamedTypeChain(kMaxIrNestingDepth + 1), Cpu("x86-64")),
               "type nesting depth exceeds the limit of 256 (in @g)");
  CheckRefused(CompileStatus(NamedTypeChain(100000), Cpu("x86-64")),
               "type nesting depth exceeds the limit of 256");
}

TEST_CASE("Constants nested up to the limit are accepted") {
  CHECK(DigestStatus(NestedConstantGlobal(kMaxIrNestingDepth), Cpu("x86-64")).ok());
}

// Bitcode skips the text scan; these come from tests/data/bad/generate.sh.
TEST_CASE("Constant nesting in bitcode is refused past the limit") {
  const std::string bitcode = ReadBadCorpus("deep_constant_expression.bc");
  REQUIRE(IsBitcode(bitcode));
  CheckRefused(DigestStatus(bitcode, Cpu("x86-64")),
               "constant nesting depth exceeds the limit of 256 (in @k)");
  CheckRefused(CompileStatus(bitcode, Cpu("x86-64")), "constant nesting depth exceeds");
}

TEST_CASE(
    "Bitcode constants sharing subexpressions are refused before the printer spells them out") {
  const std::string bitcode = ReadBadCorpus("constant_dag.bc");
  REQUIRE(IsBitcode(bitcode));
  CheckRefused(DigestStatus(bitcode, Cpu("x86-64")), "expand to more than 16777216 nodes");
}

// Found by tests/fuzz (ir_front_door): LLVM's readers run UpgradeDebugInfo,
// which calls report_fatal_error (the process exits) for a module the
// verifier rejects once it carries the current "Debug Info Version".
TEST_CASE("A verifier failure in a module with current debug info is refused, not fatal") {
  const std::string ir = kCpuTriple +
                         "define i32 @f() {\n  %a = add i32 %b, 1\n  %b = add i32 %a, 1\n"
                         "  ret i32 %a\n}\n!llvm.module.flags = !{!0}\n"
                         "!0 = !{i32 2, !\"Debug Info Version\", i32 3}\n";
  CheckRefused(DigestStatus(ir, Cpu("x86-64")), "IR verifier failed: Instruction does not dominate");
  CheckRefused(CompileStatus(ir, Cpu("x86-64")), "IR verifier failed");
  // lld resets LLVM's options on every link: still refused after one.
  REQUIRE(CompileStatus(ReadTestData("cpu/saxpy.ll"), Cpu("x86-64")).ok());
  CheckRefused(CompileStatus(ir, Cpu("x86-64")), "IR verifier failed");
  const std::string bitcode = ReadBadCorpus("verifier_failure_debug_info.bc");
  REQUIRE(IsBitcode(bitcode));
  CheckRefused(DigestStatus(bitcode, Cpu("x86-64")), "IR verifier failed");
}

TEST_CASE("Debug info of another version is stripped with a warning, as LLVM's upgrade did") {
  std::string ir = ReadTestData("cpu/saxpy_debug.ll");
  const std::string current = "!\"Debug Info Version\", i32 3}";
  const size_t at = ir.find(current);
  REQUIRE(at != std::string::npos);
  ir.replace(at, current.size(), "!\"Debug Info Version\", i32 2}");
  auto out = TheCompiler().Compile(Input(ir, Cpu("x86-64"), CompileOptions{.debug = true}));
  REQUIRE(out.ok());
  CHECK_THAT(out->log, Catch::Contains("debug info of version 2 was stripped"));
  CHECK(TheCompiler().CanonicalIrDigest(ir, Cpu("x86-64"), true).ok());
}

// Found by tests/fuzz (ir_front_door): llvm::isBitcode read four bytes of a
// one- to three-byte input. Heap buffers of the exact size, so that ASan
// builds see any over-read.
TEST_CASE("Inputs shorter than a bitcode magic are not bitcode, and are read in bounds") {
  for (const std::string& prefix : {std::string("B"), std::string("BC"), std::string("BC\xC0"),
                                    std::string("\xDE"), std::string("\xDE\xC0\x17")}) {
    const auto bytes = std::make_unique<char[]>(prefix.size());
    std::memcpy(bytes.get(), prefix.data(), prefix.size());
    const std::string_view input(bytes.get(), prefix.size());
    CHECK_FALSE(IsBitcode(input));
    CHECK(TheCompiler().CanonicalIrDigest(input, Cpu("x86-64"), false).status().code() ==
          Code::kInvalidArgument);
  }
}

TEST_CASE("Foreign inputs are named") {
  CHECK(SniffForeignInput("\x1f\x8b\x08\x00").what.find("gzip") != std::string_view::npos);
  CHECK(SniffForeignInput(std::string_view("\x7f"
                                           "ELF\x02\x01",
                                           6))
            .certain);
  CHECK(SniffForeignInput(std::string_view("\xff\xfet\0a\0r\0", 8)).what.find("UTF-16") !=
        std::string_view::npos);
  // UTF-16LE without a byte-order mark.
  CHECK(SniffForeignInput(std::string_view("t\0a\0r\0g\0e\0t\0 \0t\0", 16)).certain);
  CHECK(SniffForeignInput("\xef\xbb\xbf"
                          "define")
            .what.find("byte-order mark") != std::string_view::npos);
  CHECK(SniffForeignInput("BC\xc0\xdf").what.find("damaged magic") != std::string_view::npos);

  const ForeignInput ptx = SniffForeignInput("//\n// Generated\n\n.version 8.5\n.target sm_90\n");
  CHECK(ptx.what == "PTX assembly; send it as source kind PTX (--kind ptx, kind=\"ptx\")");
  CHECK_FALSE(ptx.certain);
  const ForeignInput cuda = SniffForeignInput("#include \"x.h\"\n__global__ void k() {}\n");
  CHECK(cuda.what.find("CUDA source") != std::string_view::npos);
  CHECK_FALSE(cuda.certain);

  CHECK(SniffForeignInput(kCpuTriple + "define void @f() {\n  ret void\n}\n").what.empty());
  CHECK(SniffForeignInput("").what.empty());
}

TEST_CASE("Foreign inputs are refused by what they are, text formats on a parse error") {
  CheckRefused(CompileStatus("\x1f\x8b\x08\x00garbage", Cpu("x86-64")), "it is a gzip stream");
  CheckRefused(
      CompileStatus(".version 8.5\n.target sm_90\n", Cpu("x86-64")),
      "IR parse error at 1:1: expected top-level entity (the input looks like PTX assembly; send it as source kind PTX (--kind ptx, kind=\"ptx\"))");
}

TEST_CASE("Bitcode that is not a whole number of words is refused as such") {
  const std::string bitcode("BC\xc0\xde\x35\x14\x00\x00\x05", 9);
  CheckRefused(CompileStatus(bitcode, Cpu("x86-64")),
               "9 bytes is not a whole number of 32-bit words");
}

TEST_CASE("CUDA sizes no GPU can launch are refused before codegen") {
  if (!CudaAvailable()) return;
  const std::string shared = kCudaTriple +
                             "@s = internal addrspace(3) global [12289 x float] undef, align 4\n"
                             "define ptx_kernel void @k(ptr %p) {\n"
                             "  store ptr addrspacecast (ptr addrspace(3) @s to ptr), ptr %p\n"
                             "  ret void\n}\n";
  CheckRefused(CompileStatus(shared, Cuda("sm_90")),
               "shared variable @s is 49156 bytes; a block has at most 49152");
  const std::string shared_ok = kCudaTriple +
                                "@s = internal addrspace(3) global [12288 x float] undef, align 4\n"
                                "define ptx_kernel void @k(ptr %p) {\n"
                                "  store ptr addrspacecast (ptr addrspace(3) @s to ptr), ptr %p\n"
                                "  ret void\n}\n";
  CHECK(CompileStatus(shared_ok, Cuda("sm_90")).ok());

  const std::string local = kCudaTriple +
                            "define ptx_kernel void @k(ptr %p) {\n"
                            "  %a = alloca i8, i64 524289\n"
                            "  store volatile i8 1, ptr %a\n"
                            "  ret void\n}\n";
  CheckRefused(CompileStatus(local, Cuda("sm_90")), "@k allocates 524289 bytes of local memory");

  const std::string long_name =
      kCudaTriple + "define ptx_kernel void @" + Repeat("k", 65537) + "() {\n  ret void\n}\n";
  CheckRefused(CompileStatus(long_name, Cuda("sm_90")),
               "function name of 65537 bytes is longer than the 65536 bytes");
}
