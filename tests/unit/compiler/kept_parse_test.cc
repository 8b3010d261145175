// A miss's IR parsed once: a digest that keeps its parse (CallControl::
// kept_parse) has the digest it would have had, and the compile of the same
// bytes that takes the module makes the artifact a fresh parse makes.
#include <catch2/catch.hpp>

#include "backends/kept_parse.h"
#include "canonical_ir_test_support.h"

using namespace qdcache;
using namespace qdcache::compiler;
using namespace qdcache::compiler::testing;

namespace {

Target KeptParseAmdgpuTarget() {
  Target t;
  t.kind = TargetKind::kAmdgpu;
  t.cpu = "gfx90a";
  return t;
}

// The digest with the parse kept (for the compile that comes next).
std::string KeptParseDigestOf(std::string_view ir, const Target& target, bool keep_debug_info = false) {
  std::uint64_t kept = 0;
  CallControl control;
  control.kept_parse = &kept;
  auto digest = TheCompiler().CanonicalIrDigest(ir, target, keep_debug_info, control);
  INFO(digest.status().ToString());
  REQUIRE(digest.ok());
  CHECK(kept != 0);
  return ToHex(*digest);
}

// CUDA: both stages in one call, as a miss compiles; elsewhere Compile.
CompileOutput CompileAsAMiss(const CompileInput& input) {
  if (input.target.kind == TargetKind::kCuda) {
    auto both = TheCompiler().CompileThroughCubin(input);
    INFO(both.status().ToString());
    REQUIRE(both.ok());
    CompileOutput out = std::move(both->cubin);
    out.ptx = both->ptx.ptx;
    out.log = both->ptx.log + out.log;
    return out;
  }
  auto out = TheCompiler().Compile(input);
  INFO(out.status().ToString());
  REQUIRE(out.ok());
  return std::move(out).value();
}

// A log without the lines that time the compile (ptxas's "Compile time").
std::string Untimed(const std::string& log) {
  std::string out;
  std::size_t at = 0;
  while (at < log.size()) {
    std::size_t end = log.find('\n', at);
    end = end == std::string::npos ? log.size() : end + 1;
    const std::string_view line(log.data() + at, end - at);
    if (line.find("Compile time") == std::string_view::npos) out.append(line);
    at = end;
  }
  return out;
}

void CheckSameKeptArtifact(const CompileOutput& fresh, const CompileOutput& reused) {
  CHECK(reused.kind == fresh.kind);
  CHECK(reused.payload == fresh.payload);
  CHECK(reused.ptx == fresh.ptx);
  CHECK(Untimed(reused.log) == Untimed(fresh.log));
  REQUIRE(reused.entries.size() == fresh.entries.size());
  for (std::size_t i = 0; i < fresh.entries.size(); ++i) {
    CHECK(reused.entries[i].name == fresh.entries[i].name);
    CHECK(reused.entries[i].registers == fresh.entries[i].registers);
  }
}

}  // namespace

TEST_CASE("Kept parse: the digest is the one made without keeping", "[compiler][kept_parse]") {
  std::vector<std::pair<std::string, Target>> kernels;
  for (const TestKernel& k : TestKernels()) {
    if (k.cuda && !CudaAvailable()) continue;
    kernels.emplace_back(ReadTestData(k.path), TargetFor(k.cuda));
  }
  kernels.emplace_back(ReadTestData("cpu/saxpy_debug.ll"), Cpu("x86-64"));
  kernels.emplace_back(ReadTestData("cpu/stencil2d_debug.ll"), Cpu("x86-64"));
  kernels.emplace_back(ReadTestData("amdgpu/saxpy.ll"), KeptParseAmdgpuTarget());
  kernels.emplace_back(ReadTestData("amdgpu/math.ll"), KeptParseAmdgpuTarget());
  for (const auto& [ir, target] : kernels) {
    for (const bool keep_debug : {false, true}) {
      INFO(target.ToString() << " keep_debug_info=" << keep_debug << "\n" << ir.substr(0, 200));
      CHECK(KeptParseDigestOf(ir, target, keep_debug) == DigestOf(ir, target, keep_debug));
    }
  }
  DropKeptParse();
}

TEST_CASE("Kept parse: the compile of the same bytes takes it and makes the same artifact",
          "[compiler][kept_parse]") {
  struct Case {
    const char* path;
    Target target;
    CompileOptions options;
  };
  CompileOptions debug;
  debug.debug = true;
  std::vector<Case> cases = {{"cpu/saxpy.ll", Cpu("x86-64"), {}},
                             {"cpu/stencil2d_debug.ll", Cpu("x86-64"), debug},
                             {"amdgpu/block_reduce.ll", KeptParseAmdgpuTarget(), {}}};
  if (CudaAvailable()) {
    cases.push_back({"cuda/saxpy.ll", Cuda("sm_90"), {}});
    cases.push_back({"cuda/stencil2d.ll", Cuda("sm_80"), {}});
  } else {
    WARN("CUDA not available: CPU and AMDGPU kernels only");
  }
  for (const Case& c : cases) {
    INFO(c.path << " for " << c.target.ToString());
    const std::string ir = ReadTestData(c.path);
    const CompileInput input = Input(ir, c.target, c.options);
    const CompileOutput fresh = CompileAsAMiss(input);

    (void)KeptParseDigestOf(ir, c.target, c.options.debug);
    const std::uint64_t taken = KeptParsesTaken();
    const CompileOutput reused = CompileAsAMiss(input);
    CHECK(KeptParsesTaken() == taken + 1);
    CheckSameKeptArtifact(fresh, reused);

    // Taken once: the next compile parses again.
    (void)CompileAsAMiss(input);
    CHECK(KeptParsesTaken() == taken + 1);
  }
}

TEST_CASE("Kept parse: a compile of other bytes parses its own and drops the kept one",
          "[compiler][kept_parse]") {
  const std::string saxpy = ReadTestData("cpu/saxpy.ll"), stencil = ReadTestData("cpu/stencil2d.ll");
  const CompileOutput fresh = CompileAsAMiss(Input(stencil, Cpu("x86-64")));
  (void)KeptParseDigestOf(saxpy, Cpu("x86-64"));
  const std::uint64_t taken = KeptParsesTaken();
  CheckSameKeptArtifact(fresh, CompileAsAMiss(Input(stencil, Cpu("x86-64"))));
  CHECK(KeptParsesTaken() == taken);
  // The saxpy parse is gone with it: saxpy parses afresh too.
  (void)CompileAsAMiss(Input(saxpy, Cpu("x86-64")));
  CHECK(KeptParsesTaken() == taken);

  // A digest that keeps its parse replaces what was kept, and one refused
  // keeps nothing: the parse kept before it is gone too.
  (void)KeptParseDigestOf(saxpy, Cpu("x86-64"));
  std::uint64_t kept = 0;
  CallControl control;
  control.kept_parse = &kept;
  CHECK_FALSE(TheCompiler().CanonicalIrDigest("define void @broken( {", Cpu("x86-64"), false, control).ok());
  CHECK_FALSE(HoldsKeptParse());
  CHECK(TakeKeptParse(saxpy) == nullptr);
}
