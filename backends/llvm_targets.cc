#include "backends/llvm_targets.h"

#include <mutex>
#include <string>

#include "backends/compile_error.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"

namespace qdcache::compiler {

void InitializeLlvmTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeX86AsmParser();  // object emission parses inline asm
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    LLVMInitializeAMDGPUAsmParser();  // object emission parses inline asm
  });
}

llvm::Expected<const llvm::Target*> LookupLlvmTarget(llvm::StringRef triple) {
  InitializeLlvmTargets();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple.str(), error);
  if (target == nullptr) return ToolchainFailure("LLVM has no target for " + triple + ": " + error);
  return target;
}

llvm::StringRef TripleOf(TargetKind kind) {
  switch (kind) {
    case TargetKind::kCuda:
      return kCudaTriple;
    case TargetKind::kAmdgpu:
      return kAmdgpuTriple;
    case TargetKind::kCpu:
      break;
  }
  return kCpuTriple;
}

}  // namespace qdcache::compiler
