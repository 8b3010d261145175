// The compilers themselves, in this process: LLVM (NVPTX, X86), nvJitLink
// and lld behind the Compiler interface. Only compile workers (and tests)
// run it: client input never reaches LLVM inside the daemon.
#pragma once

#include <memory>
#include <string>

#include "compiler/compiler.h"

namespace qdcache::compiler {

struct CompilerConfig {
  // Overrides the libdevice.10.bc found at build time (empty: build-time path).
  std::string libdevice_path;
  // Overrides the ROCm device-library directory found at build time.
  std::string device_libs_dir;
};

// LLVM + nvJitLink + lld in this process. Initialises LLVM targets once.
[[nodiscard]] std::unique_ptr<Compiler> MakeInProcessCompiler(const CompilerConfig& config = {});

// The module a CPU or AMDGPU Compile of `input` hands to codegen (read,
// conformed, libraries linked, optimized), as textual IR: what `llc` is
// given to reproduce the compile's codegen and link outside qdcached. The
// same errors as Compile up to codegen; INVALID_ARGUMENT for CUDA targets.
[[nodiscard]] Expected<std::string> OptimizedIr(const CompileInput& input, const CompilerConfig& config = {});

// Normalizes `target`, then checks it against the linked toolchain: the SM must be
// supported by both LLVM's NVPTX backend and nvJitLink; the CPU must be a
// 64-bit x86 CPU LLVM knows ("native" is refused) and every feature must be
// an X86 feature. INVALID_ARGUMENT listing what is supported;
// FAILED_PRECONDITION for CUDA targets when built without CUDA.
[[nodiscard]] Status ValidateTarget(const Target& target);

}  // namespace qdcache::compiler
