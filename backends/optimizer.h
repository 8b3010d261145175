// The IR optimization stage: floating-point options written into the module,
// then LLVM's default new-pass-manager pipeline for the opt level.
#pragma once

#include "common/compile_options.h"
#include "common/target.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

namespace qdcache::compiler {

// fast_math: the function attributes the backends read ("unsafe-fp-math",
// "no-nans-fp-math", ...), fast-math flags on every FP instruction, and on
// GPUs flush-to-zero for f32 ("denormal-fp-math-f32"; on CUDA also the
// "nvvm-reflect-ftz" module flag libdevice branches on). fmad=false: the
// `contract` flag is removed so nothing fuses a multiply and an add.
void ApplyFloatingPointOptions(llvm::Module& module, const CompileOptions& options,
                               TargetKind kind);

// O0: PassBuilder::buildO0DefaultPipeline; O1-O3: buildPerModuleDefaultPipeline.
// The PassBuilder gets `machine`, so target analyses (TTI) are used and the
// target's own pipeline callbacks (NVPTX: NVVMReflect, NVVMIntrRange) run.
[[nodiscard]] llvm::Error OptimizeModule(llvm::Module& module, llvm::TargetMachine& machine,
                                         int opt_level);

}  // namespace qdcache::compiler
