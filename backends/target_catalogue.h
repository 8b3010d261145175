// What this build's toolchain compiles for, family by family: the CUDA SMs
// (LLVM IR and PTX paths) and the x86-64 CPUs and features LLVM knows. What
// `qdcache targets` lists, and what target errors point to instead of
// listing hundreds of names themselves.
#pragma once

#include <string>
#include <vector>

namespace qdcache::compiler {

struct TargetFamilyInfo {
  std::string family;                   // "cuda", "cpu", "amdgpu"
  std::string syntax;                   // the family's grammar ("cuda:sm_XX[a|f]")
  std::vector<std::string> processors;  // SMs / CPU names, in the toolchain's order
  std::vector<std::string> features;    // CPU / AMDGPU target-id features (without '+'); empty for CUDA
  bool available = true;                // false: this build cannot compile for the family
  std::string unavailable_reason;
};

// Every family, in TargetFamilies() order. Probed once per process.
[[nodiscard]] const std::vector<TargetFamilyInfo>& SupportedTargets();

// `names` joined by ", ", cut after `shown` with "… (N more; `qdcache
// targets` lists them)" so that an error message stays one readable line.
[[nodiscard]] std::string ShortList(const std::vector<std::string>& names, std::size_t shown = 12);

}  // namespace qdcache::compiler
