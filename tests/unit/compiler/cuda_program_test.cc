// CUDA C++ programs: the canonical form the daemon keys (and its checks),
// and NVRTC in its empty working directory, through the in-process compiler.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "compiler/cuda_program.h"
#include "compiler_test_support.h"
#include "tests/support/temp_dir.h"

using namespace qdcache;
using namespace qdcache::compiler;
using namespace qdcache::compiler::testing;

namespace {

constexpr std::string_view kKernel = "__global__ void k(float* x) { x[0] = 1; }\n";

Expected<std::string> Canonical(const CudaSources& sources) {
  return CanonicalCudaProgram(EncodeCudaProgram(sources), false);
}

}  // namespace

TEST_CASE("cuda_program: the canonical form does not depend on the order things were sent in",
          "[compiler][cuda-cpp]") {
  CudaSources a;
  a.source = kKernel;
  a.headers = {{"b.cuh", "// b"}, {"a.cuh", "// a"}};
  a.name_expressions = {"k", "&k", "k"};
  a.defines = {"Y=2", "X"};
  CudaSources b = a;
  b.headers = {{"a.cuh", "// a"}, {"b.cuh", "// b"}};
  b.name_expressions = {"&k", "k"};
  b.defines = {"X", "Y=2"};
  Expected<std::string> ca = Canonical(a), cb = Canonical(b);
  REQUIRE(ca.ok());
  REQUIRE(cb.ok());
  CHECK(*ca == *cb);
  Expected<CudaProgram> decoded = DecodeCudaProgram(*ca);
  REQUIRE(decoded.ok());
  CHECK(decoded->headers.front().first == "a.cuh");
  CHECK(decoded->name_expressions == std::vector<std::string>{"&k", "k"});
  std::vector<std::pair<std::string, std::string>> parts;
  DescribeCudaProgram(*ca, parts);
  REQUIRE(parts.size() == 5);
  CHECK(parts[1].first == "cuda.header.a.cuh");
  CHECK(parts[3] == std::pair<std::string, std::string>{"cuda.defines", "-DX -DY=2"});
}

TEST_CASE("cuda_program: inputs that could step outside the closed world are refused", "[compiler][cuda-cpp]") {
  auto refusal = [](const CudaSources& s) {
    Expected<std::string> c = Canonical(s);
    REQUIRE_FALSE(c.ok());
    CHECK(c.status().code() == Code::kInvalidArgument);
    return c.status().message();
  };
  CudaSources s;
  s.source = kKernel;
  s.name_expressions = {"k\n#include \"/etc/passwd\""};
  CHECK_THAT(refusal(s), Catch::Contains("holds a newline"));
  s.name_expressions = {"k \\"};
  CHECK_THAT(refusal(s), Catch::Contains("ends with a backslash"));
  s.name_expressions = {"__has_include(\"/etc/passwd\")"};
  CHECK_THAT(refusal(s), Catch::Contains("absolute path"));
  s.name_expressions = {};
  s.defines = {"P=__has_include(\"../x\")"};
  CHECK_THAT(refusal(s), Catch::Contains("define P:1: __has_include"));
  s.defines = {"X=1\n#include \"/etc/passwd\""};
  CHECK_THAT(refusal(s), Catch::Contains("holds a newline or NUL"));
  s.defines = {};
  s.headers = {{"kernel.cu", "// shadows the source"}};
  CHECK_THAT(refusal(s), Catch::Contains("the main source's own name"));
  s.headers = {{"a.cuh", "#include \"/etc/passwd\"\n"}};
  CHECK_THAT(refusal(s), Catch::Contains("a.cuh:1: #include"));
}

TEST_CASE("cuda_program: NVRTC does not find a header in the compiling process's directory",
          "[compiler][cuda-cpp]") {
  if (TheCompiler().toolchain().nvrtc_version == "none" || !CudaAvailable()) {
    WARN("built without NVRTC: skipping");
    return;
  }
  // A header that is not sent, lying in the working directory: NVRTC would
  // read it from there, and compile, if it ran where the process runs.
  qdcache::testing::TempDir dir;
  std::ofstream(dir.path() + "/lying_around.cuh") << "#define FROM_DISK 1\n";
  CudaSources s;
  const std::string source = "#include \"lying_around.cuh\"\n__global__ void k(int* x) { x[0] = FROM_DISK; }\n";
  s.source = source;
  Expected<std::string> program = Canonical(s);
  REQUIRE(program.ok());
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  Expected<PtxOutput> out = TheCompiler().CompileToPtx([&] {
    CompileInput input = Input(*program, Cuda("sm_90"));
    input.kind = InputKindId::kCuda;
    return input;
  }());
  std::filesystem::current_path(before);
  REQUIRE_FALSE(out.ok());
  CHECK(out.status().code() == Code::kInvalidArgument);
  CHECK_THAT(out.status().message(), Catch::Contains("includes \"lying_around.cuh\", which is neither among"));
  CHECK(std::filesystem::current_path() == before);
}
