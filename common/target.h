// Compile targets and the families they belong to. A target is always
// concrete: an exact CUDA SM, or a CPU name plus an explicit feature set
// ("native" is refused: the daemon may run on another machine than the
// client). Each family is a row of one registry — its name (the prefix of
// "cuda:sm_90"), its grammar, how a target of it is parsed, normalized and
// printed, which compile options it reads and what artifact it yields — so
// every reader of targets (the CLI, the C ABI, the engine, the compilers)
// goes through one place. Syntax only: whether a target exists in the
// toolchain is the compilers' call (backends/target_validation.h).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace qdcache {

enum class TargetKind { kCuda, kCpu, kAmdgpu };

// What a compile yields. The numbers are the store's and the wire's.
enum class ArtifactKind { kCubin = 1, kSharedObject = 2, kHsaCodeObject = 3 };

struct Target {
  TargetKind kind = TargetKind::kCuda;
  // kCuda: "sm_90", "sm_90a", ... (lower case).
  std::string sm;
  // kCpu: LLVM CPU name ("x86-64", "skylake-avx512", ...) and features, each
  // "+name" or "-name", sorted and de-duplicated by NormalizeTarget().
  // kAmdgpu: the processor ("gfx942", lower case) and AMD target-id
  // features, each "name+" or "name-" ("xnack+"), sorted by name.
  std::string cpu;
  std::vector<std::string> features;

  // "cuda:sm_90", "cpu:x86-64" / "cpu:x86-64+avx2,+fma" (features joined by
  // ','), "amdgpu:gfx90a" / "amdgpu:gfx90a:sramecc+:xnack-".
  [[nodiscard]] std::string ToString() const;
  friend bool operator==(const Target&, const Target&) = default;
};

struct TargetFamily {
  TargetKind kind;
  std::string_view name;     // "cuda": the prefix before ':'
  std::string_view grammar;  // "cuda:sm_XX[a|f]", for messages and docs
  unsigned option_family;    // kFamilyCuda / kFamilyCpu / kFamilyAmdgpu (common/compile_options.h)
  ArtifactKind artifact;
  // The target from what follows "name:"; syntax only.
  Expected<Target> (*parse)(std::string_view rest);
  // Canonical form (NormalizeTarget); INVALID_ARGUMENT for what the syntax
  // cannot spell back.
  Expected<Target> (*normalize)(Target target);
  // What follows "name:" in the canonical text.
  std::string (*print)(const Target& target);
};

// Every family.
[[nodiscard]] std::span<const TargetFamily> TargetFamilies();
[[nodiscard]] const TargetFamily& FamilyOf(TargetKind kind);
// The family named `name` ("cuda"), or null.
[[nodiscard]] const TargetFamily* FindTargetFamily(std::string_view name);

// Parses "FAMILY:REST" ("cuda:sm_90", "cpu:x86-64+avx2,-fma",
// "amdgpu:gfx942:xnack+"): CPU features follow the name as "+f" / "-f"
// tokens, optionally separated by ','; AMDGPU features as ":f+" / ":f-".
// INVALID_ARGUMENT naming the target and the expected grammar.
[[nodiscard]] Expected<Target> ParseTarget(std::string_view spec);

// Sorts and de-duplicates features; a feature given both as +f and -f, CPU
// "native", or a CPU or feature name with a character the target syntax has
// no place for (IsTargetNameChar), is an INVALID_ARGUMENT. AMDGPU processor
// and feature names are lower-cased. The result's
// ToString() parses back to it.
[[nodiscard]] Expected<Target> NormalizeTarget(Target target);

// "sm_" digits, then an optional single lower-case letter ("sm_90a").
[[nodiscard]] bool IsCudaSmName(std::string_view sm);
// A character a CPU or feature name may hold: letters, digits, '_', '-', '.'.
// Anything else (',', '+', ':', spaces, control bytes) would make the target's
// text ambiguous or unreadable.
[[nodiscard]] bool IsTargetNameChar(char c);

}  // namespace qdcache
