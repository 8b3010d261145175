#include "backends/codegen.h"

#include "backends/compile_error.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/raw_ostream.h"

namespace qdcache::compiler {
namespace {

// The codegen pipeline still runs on the legacy pass manager (as in llc).
llvm::Expected<std::string> Emit(llvm::Module& module, llvm::TargetMachine& machine,
                                 llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> buffer;
  {
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager passes;
    if (machine.addPassesToEmitFile(passes, os, nullptr, type)) {
      return ToolchainFailure(llvm::Twine("the ") + machine.getTarget().getName() +
                              " backend cannot emit this file type");
    }
    passes.run(module);
  }
  if (buffer.empty())
    return ToolchainFailure(llvm::Twine(machine.getTarget().getName()) +
                            " codegen produced no output");
  return std::string(buffer.data(), buffer.size());
}

}  // namespace

llvm::Expected<std::string> EmitPtx(llvm::Module& module, llvm::TargetMachine& machine) {
  return Emit(module, machine, llvm::CodeGenFileType::AssemblyFile);
}

llvm::Expected<std::string> EmitObject(llvm::Module& module, llvm::TargetMachine& machine) {
  return Emit(module, machine, llvm::CodeGenFileType::ObjectFile);
}

}  // namespace qdcache::compiler
