#include "backends/target_machine.h"

#include "backends/amdgpu_processor.h"
#include "backends/compile_error.h"
#include "backends/cuda_support.h"
#include "backends/llvm_targets.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Target/TargetOptions.h"

namespace qdcache::compiler {
namespace {

llvm::CodeGenOptLevel CodeGenLevel(int opt_level) {
  switch (opt_level) {
    case 0:
      return llvm::CodeGenOptLevel::None;
    case 1:
      return llvm::CodeGenOptLevel::Less;
    case 2:
      return llvm::CodeGenOptLevel::Default;
    default:
      return llvm::CodeGenOptLevel::Aggressive;
  }
}

llvm::TargetOptions MakeTargetOptions(const CompileOptions& options) {
  llvm::TargetOptions to;
  to.UnsafeFPMath = options.fast_math;
  to.NoInfsFPMath = options.fast_math;
  to.NoNaNsFPMath = options.fast_math;
  to.NoSignedZerosFPMath = options.fast_math;
  to.ApproxFuncFPMath = options.fast_math;
  to.AllowFPOpFusion = options.fmad ? llvm::FPOpFusion::Standard : llvm::FPOpFusion::Strict;
  return to;
}

}  // namespace

llvm::Expected<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(
    const Target& target, const CompileOptions& options) {
  const llvm::StringRef triple = TripleOf(target.kind);
  auto llvm_target = LookupLlvmTarget(triple);
  if (!llvm_target) return llvm_target.takeError();

  std::string cpu;
  std::string features;
  std::optional<llvm::Reloc::Model> reloc;
  if (target.kind == TargetKind::kCuda) {
    cpu = target.sm;
    features = "+ptx" + std::to_string(GetCudaSupport().ptx_isa);
  } else if (target.kind == TargetKind::kAmdgpu) {
    cpu = target.cpu;
    features = AmdgpuLlvmFeatures(target, options);
    reloc = llvm::Reloc::PIC_;
  } else {
    cpu = target.cpu;
    features = llvm::join(target.features, ",");
    reloc = llvm::Reloc::PIC_;
  }
  std::unique_ptr<llvm::TargetMachine> machine(
      (*llvm_target)
          ->createTargetMachine(triple, cpu, features, MakeTargetOptions(options), reloc,
                                std::nullopt, CodeGenLevel(options.opt_level)));
  if (!machine)
    return ToolchainFailure("LLVM could not create a target machine for " + target.ToString());
  return machine;
}

}  // namespace qdcache::compiler
