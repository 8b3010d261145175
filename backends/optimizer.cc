#include "backends/optimizer.h"

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"

namespace qdcache::compiler {
namespace {

llvm::OptimizationLevel PipelineLevel(int opt_level) {
  switch (opt_level) {
    case 0:
      return llvm::OptimizationLevel::O0;
    case 1:
      return llvm::OptimizationLevel::O1;
    case 2:
      return llvm::OptimizationLevel::O2;
    default:
      return llvm::OptimizationLevel::O3;
  }
}

}  // namespace

void ApplyFloatingPointOptions(llvm::Module& module, const CompileOptions& options,
                               TargetKind kind) {
  const bool cuda = kind == TargetKind::kCuda;
  const char* fast = options.fast_math ? "true" : "false";
  for (llvm::Function& function : module) {
    if (function.isDeclaration()) continue;
    function.addFnAttr("unsafe-fp-math", fast);
    function.addFnAttr("no-nans-fp-math", fast);
    function.addFnAttr("no-infs-fp-math", fast);
    function.addFnAttr("no-signed-zeros-fp-math", fast);
    function.addFnAttr("approx-func-fp-math", fast);
    // Fast math flushes single-precision denormals on GPUs (CUDA's ftz; on
    // AMDGPU also what the device libraries are told: oclc_daz_opt).
    if (kind != TargetKind::kCpu && options.fast_math)
      function.addFnAttr("denormal-fp-math-f32", "preserve-sign,preserve-sign");
    for (llvm::Instruction& inst : llvm::instructions(function)) {
      if (!llvm::isa<llvm::FPMathOperator>(inst)) continue;
      if (options.fast_math) inst.setFast(true);
      if (!options.fmad) inst.setHasAllowContract(false);
    }
  }
  if (cuda)
    module.setModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", options.fast_math ? 1u : 0u);
}

llvm::Error OptimizeModule(llvm::Module& module, llvm::TargetMachine& machine, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;

  llvm::PipelineTuningOptions tuning;
  // As clang does: vectorizers from O2 up.
  tuning.LoopVectorization = opt_level >= 2;
  tuning.SLPVectorization = opt_level >= 2;
  // The constructor calls machine.registerPassBuilderCallbacks(*this).
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);

  const llvm::OptimizationLevel level = PipelineLevel(opt_level);
  llvm::ModulePassManager pipeline = opt_level == 0 ? builder.buildO0DefaultPipeline(level)
                                                    : builder.buildPerModuleDefaultPipeline(level);
  pipeline.run(module, mam);
  return llvm::Error::success();
}

}  // namespace qdcache::compiler
