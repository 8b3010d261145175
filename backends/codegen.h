// LLVM backend emission into memory: PTX text for NVPTX, an ELF relocatable
// object for X86. Consumes nothing but mutates `module` (codegen IR passes).
#pragma once

#include <string>

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

namespace qdcache::compiler {

[[nodiscard]] llvm::Expected<std::string> EmitPtx(llvm::Module& module,
                                                  llvm::TargetMachine& machine);
[[nodiscard]] llvm::Expected<std::string> EmitObject(llvm::Module& module,
                                                     llvm::TargetMachine& machine);

}  // namespace qdcache::compiler
