// The CUDA Toolkit's own tools as the reference for qdcached's cubins:
// `ptxas -c` then `nvlink` (what nvJitLink does), and a comparison of the
// machine code (every `.text.*` section). Header-only because it asserts
// with Catch.
#pragma once

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "client/client.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

namespace qdcache::testing {

// Whether ptxas and nvlink were found at configure time.
inline bool HaveToolkitTools() { return !std::string(QDCACHE_PTXAS).empty() && !std::string(QDCACHE_NVLINK).empty(); }

// The toolkit's cubin of the PTX file `ptx_file` for `sm`: ptxas -c with
// `ptxas_flags`, then nvlink; scratch files in `dir`.
inline std::string ToolkitCubin(const TempDir& dir, const std::string& ptx_file, const std::string& sm,
                                const std::vector<std::string>& ptxas_flags) {
  const std::string object = dir.path() + "/reference.o", cubin = dir.path() + "/reference.cubin";
  std::vector<std::string> argv = {QDCACHE_PTXAS, "-c", "--gpu-name=" + sm};
  argv.insert(argv.end(), ptxas_flags.begin(), ptxas_flags.end());
  argv.insert(argv.end(), {ptx_file, "-o", object});
  RunResult assembled = Run(argv);
  INFO(assembled.err);
  REQUIRE(assembled.exit_code == 0);
  RunResult linked = Run({QDCACHE_NVLINK, "-arch=" + sm, object, "-o", cubin});
  INFO(linked.err);
  REQUIRE(linked.exit_code == 0);
  return ReadFileOrDie(cubin);
}

// `ours` has exactly the reference's `.text.*` sections, byte for byte.
inline void CheckSameMachineCode(const std::string& ours, const std::string& reference) {
  const auto a = ElfSections(ours, ".text."), b = ElfSections(reference, ".text.");
  REQUIRE_FALSE(b.empty());
  CHECK(a.size() == b.size());
  for (const auto& [section, bytes] : b) {
    INFO(section);
    REQUIRE(a.count(section) == 1);
    CHECK(a.at(section) == bytes);
  }
}

// Compiles `d` (a CUDA kind that makes its own PTX: LLVM IR, NVVM IR, CUDA
// C++) asking for that PTX, and checks the cubin's machine code against the
// toolkit's cubin of the same PTX with `ptxas_flags`. Returns the artifact.
inline v1::Artifact CheckCompiledLikeToolkit(client::Client& client, const TempDir& dir,
                                             const v1::KernelDescriptor& d,
                                             const std::vector<std::string>& ptxas_flags) {
  v1::CompileRequest request;
  *request.add_kernels() = d;
  request.set_include_ptx(true);
  auto response = client.Compile(request);
  REQUIRE(response.ok());
  const v1::CompileResult& r = response->results(0);
  INFO(r.error().message());
  REQUIRE(r.has_artifact());
  const std::string ptx = dir.path() + "/made.ptx";
  WriteFileOrDie(ptx, r.artifact().ptx());
  CheckSameMachineCode(r.artifact().payload(), ToolkitCubin(dir, ptx, d.target().cuda().sm(), ptxas_flags));
  return r.artifact();
}

}  // namespace qdcache::testing

// Skips a test (with a warning) when ptxas or nvlink is missing.
#define QDC_REQUIRE_TOOLKIT_TOOLS()                                                            \
  do {                                                                                         \
    if (!::qdcache::testing::HaveToolkitTools()) {                                             \
      WARN("the CUDA Toolkit's ptxas or nvlink was not found at configure time: skipping"); \
      return;                                                                                  \
    }                                                                                          \
  } while (0)
