// Links the functions a CUDA module needs from libdevice.10.bc.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace qdcache::compiler {

// Intrinsic name -> the __nv_* functions the module called whose linked
// bodies reach it, for intrinsics the linked LLVM does not know (a libdevice
// newer than LLVM, e.g. CUDA 13's __nv_fast_tanhf calls
// llvm.nvvm.tanh.approx.f32, which LLVM 19 lacks).
using UnknownIntrinsicOrigins = std::map<std::string, std::vector<std::string>>;

// Parses `libdevice_bitcode` into the module's context, gives it the module's
// triple and datalayout, links it with Linker::LinkOnlyNeeded (only the
// __nv_* functions the module references, transitively) and internalizes what
// was linked in, so unused library code is dropped by the optimizer and
// nothing from libdevice becomes an exported symbol. Runs before optimization.
// Returns where the linked code calls intrinsics LLVM does not know; whether
// such a call survives optimization is checked later
// (CheckNoUnresolvedDeviceCalls), which names these origins.
[[nodiscard]] llvm::Expected<UnknownIntrinsicOrigins> LinkLibdevice(
    llvm::Module& module, std::string_view libdevice_bitcode);

// True for a function named llvm.* that is no intrinsic of the linked LLVM:
// codegen would emit it as a call to an undefined function.
[[nodiscard]] bool IsUnknownIntrinsic(const llvm::Function& function);

}  // namespace qdcache::compiler
