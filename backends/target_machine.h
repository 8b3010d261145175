// One llvm::TargetMachine per compile (TargetMachines are not thread-safe).
#pragma once

#include <memory>

#include "common/compile_options.h"
#include "common/target.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

namespace qdcache::compiler {

// CUDA: nvptx64-nvidia-cuda, CPU = the SM, features "+ptxNN" for the PTX ISA
// chosen by GetCudaSupport(). CPU: x86_64-unknown-linux-gnu, the CPU name and
// feature list, position-independent code. Floating-point behaviour follows
// the options: fast_math sets the unsafe/no-NaNs/no-infs/no-signed-zeros
// flags, fmad picks FPOpFusion::Standard (contract where the IR allows) or
// Strict. `target` must be validated.
[[nodiscard]] llvm::Expected<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(
    const Target& target, const CompileOptions& options);

}  // namespace qdcache::compiler
