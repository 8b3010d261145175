// Compile targets. A target is always concrete: an exact CUDA SM, or an x86-64
// CPU name plus an explicit feature set. "native" is refused because the
// daemon may run on another machine than the client.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace qdcache::compiler {

enum class TargetKind { kCuda, kCpu };

struct Target {
  TargetKind kind = TargetKind::kCuda;
  // kCuda: "sm_90", "sm_90a", ... (lower case).
  std::string sm;
  // kCpu: LLVM CPU name ("x86-64", "skylake-avx512", ...) and features, each
  // "+name" or "-name", sorted and de-duplicated by Normalize().
  std::string cpu;
  std::vector<std::string> features;

  // "cuda:sm_90" or "cpu:x86-64" / "cpu:x86-64+avx2,+fma" (features joined by ',').
  [[nodiscard]] std::string ToString() const;
  friend bool operator==(const Target&, const Target&) = default;
};

// Parses "cuda:sm_XX[a]" or "cpu:NAME[+feat...]" where features follow the
// name as "+f" / "-f" tokens, optionally separated by ','. Syntax only:
// whether the SM / CPU / features exist is checked by ValidateTarget().
[[nodiscard]] Expected<Target> ParseTarget(std::string_view spec);

// Sorts and de-duplicates features; a feature given both as +f and -f, CPU
// "native", or a CPU or feature name with a character the target syntax has
// no place for (IsTargetNameChar), is an INVALID_ARGUMENT. The result's
// ToString() parses back to it.
[[nodiscard]] Expected<Target> NormalizeTarget(Target target);

// Normalizes `target`, then checks it against the linked toolchain: the SM must be
// supported by both LLVM's NVPTX backend and nvJitLink; the CPU must be a
// 64-bit x86 CPU LLVM knows ("native" is refused) and every feature must be
// an X86 feature. INVALID_ARGUMENT listing what is supported;
// FAILED_PRECONDITION for CUDA targets when built without CUDA.
[[nodiscard]] Status ValidateTarget(const Target& target);

}  // namespace qdcache::compiler
