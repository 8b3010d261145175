// Helpers for the canonical-digest tests: the repository kernels, digests
// that must succeed, and text edits that keep a module valid.
#pragma once

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "compiler_test_support.h"

namespace qdcache::compiler::testing {

struct TestKernel {
  const char* path;  // under tests/data
  bool cuda;
};

// Every generated or hand-written kernel of tests/data that LLVM 19 reads.
inline const std::vector<TestKernel>& TestKernels() {
  static const std::vector<TestKernel> kernels = {
      {"cuda/saxpy.ll", true},     {"cuda/block_reduce.ll", true},
      {"cuda/stencil2d.ll", true}, {"cuda/llvm_test_style.ll", true},
      {"cpu/saxpy.ll", false},     {"cpu/block_reduce.ll", false},
      {"cpu/stencil2d.ll", false},
  };
  return kernels;
}

inline Target TargetFor(bool cuda) { return cuda ? Cuda("sm_90") : Cpu("x86-64"); }

// CUDA digests need a CUDA build (the target is validated like Compile's).
inline bool SkipWithoutCuda(bool cuda) {
  if (cuda && !CudaAvailable()) {
    WARN("CUDA not available: skipping the CUDA kernels");
    return true;
  }
  return false;
}

inline std::string DigestOf(std::string_view ir, const Target& target,
                            bool keep_debug_info = false) {
  auto digest = TheCompiler().CanonicalIrDigest(ir, target, keep_debug_info);
  INFO(digest.status().ToString());
  REQUIRE(digest.ok());
  return ToHex(*digest);
}

// `ir` with the first `from` replaced by `to`; `from` must occur.
inline std::string ReplaceFirst(std::string ir, const std::string& from, const std::string& to) {
  const size_t at = ir.find(from);
  INFO("looking for: " << from);
  REQUIRE(at != std::string::npos);
  return ir.replace(at, from.size(), to);
}

inline std::string DropLinesStartingWith(const std::string& ir, const std::string& prefix) {
  std::istringstream in(ir);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) != 0) out += line + "\n";
  }
  return out;
}

// Every local value (argument, instruction, block; named or numbered) gets
// another name. The test kernels have no named types, so every '%' is local.
inline std::string RenameLocals(const std::string& ir) {
  static const std::regex value(R"(%([A-Za-z_.$][\w.$]*|\d+))");
  static const std::regex label(R"((^|\n)([A-Za-z_.$][\w.$]*|\d+):)");
  std::string renamed = std::regex_replace(ir, value, "%renamed.$1");
  return std::regex_replace(renamed, label, "$1renamed.$2:");
}

// Comments after every line, indentation and blank lines in between.
inline std::string Reformat(const std::string& ir) {
  std::istringstream in(ir);
  std::string out = "; a comment before everything\n\n";
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    out += "    " + line + "   ; comment " + std::to_string(++n) + "\n\n";
  }
  return out;
}

}  // namespace qdcache::compiler::testing
