// What LLVM's AMDGPU tables say about a processor: whether it exists, which
// target-id features (xnack, sramecc) and wavefront sizes it takes, its ISA
// version, and the subtarget feature string a compile for a target uses.
// The one place the AMDGPU family's target rules live (validation, codegen,
// device-library selection and `qdcache targets` all read it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/compile_options.h"
#include "common/target.h"
#include "llvm/Support/Error.h"

namespace qdcache::compiler {

struct AmdgpuProcessor {
  std::string name;          // "gfx90a"
  bool xnack = false;        // takes the xnack target-id feature
  bool sramecc = false;      // takes the sramecc target-id feature
  bool wave32 = false;       // gfx10 and later: wavefront size 32 (default) or 64
  bool generic = false;      // "gfx9-generic"...: needs code object version 6
  unsigned major = 0, minor = 0, stepping = 0;  // ISA version (gfx90a: 9, 0, 10)
};

// Every AMDGCN processor LLVM knows by its gfx name, in LLVM's order
// (gfx600 ... gfx1201, then the generic ones).
[[nodiscard]] const std::vector<std::string>& AmdgpuProcessorNames();
// The processor named `name`, or nullopt.
[[nodiscard]] std::optional<AmdgpuProcessor> FindAmdgpuProcessor(const std::string& name);

// The target-id feature names ("sramecc", "xnack").
[[nodiscard]] const std::vector<std::string>& AmdgpuFeatureNames();

// The wavefront size a compile for `processor` uses under `options`.
[[nodiscard]] unsigned AmdgpuWavefrontSize(const AmdgpuProcessor& processor, const CompileOptions& options);

// Checks a normalized AMDGPU target: the processor exists (INVALID_ARGUMENT
// listing the processors otherwise, with a did-you-mean) and each feature is
// one the processor takes.
[[nodiscard]] llvm::Error CheckAmdgpuTarget(const Target& target);
// The options against the target: a wavefront size the processor cannot run,
// a generic processor compiled at a `code_object_version` (the one the
// compile makes: ApplyCodeObjectVersion) other than 6. INVALID_ARGUMENT.
[[nodiscard]] llvm::Error CheckAmdgpuOptions(const Target& target, const CompileOptions& options,
                                             unsigned code_object_version);

// The LLVM subtarget features of a compile: "+xnack,-sramecc,+wavefrontsize64".
[[nodiscard]] std::string AmdgpuLlvmFeatures(const Target& target, const CompileOptions& options);

}  // namespace qdcache::compiler
