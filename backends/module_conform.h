// Makes a parsed module describe exactly the requested target: checks its
// triple and datalayout against the target, then overwrites both (as llc
// does) and drops per-function CPU pins, so the target is authoritative.
#pragma once

#include "common/target.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace qdcache::compiler {

// INVALID_ARGUMENT when the module's triple names another architecture (or
// 32-bit nvptx, a non-ELF / x32 x86-64 flavour, an AMDGPU OS other than
// amdhsa), or its datalayout is incompatible with `target_layout` (see
// module_conform.cc for the rule), or it holds what the target's backend
// cannot take or must not be handed (object sizes; CUDA: global ctors,
// initialized shared variables; CPU: any assembly; AMDGPU: calling
// conventions of other targets, module-level assembly and assembler
// directives, initialized LDS and private globals). A module without a
// triple / datalayout simply gets the target's.
[[nodiscard]] llvm::Error ConformModuleToTarget(llvm::Module& module, const Target& target,
                                                const llvm::DataLayout& target_layout);

// Drops the per-function "target-cpu" / "target-features" / "tune-cpu"
// attributes frontends (and libdevice) pin, so the TargetMachine's apply.
void RemoveFunctionTargetPins(llvm::Module& module);

}  // namespace qdcache::compiler
