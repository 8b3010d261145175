// Links the functions a module needs from a bitcode library: libdevice.10.bc
// for CUDA, and the pieces device_libs.h uses for ROCm's device libraries.
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

// Parses `bitcode` (called `name` in messages) into the module's context,
// gives it the module's triple and datalayout, links it with
// Linker::LinkOnlyNeeded and internalizes what was linked in.
[[nodiscard]] llvm::Error LinkBitcodeOnlyNeeded(llvm::Module& module, std::string_view bitcode, llvm::StringRef name);

// The functions named `prefix`... that the module declares and calls.
[[nodiscard]] std::vector<std::string> CalledDeclarations(const llvm::Module& module, llvm::StringRef prefix);

// For the defined functions `roots`: the unknown intrinsics each reaches.
[[nodiscard]] UnknownIntrinsicOrigins UnknownIntrinsicOriginsOf(const llvm::Module& module,
                                                                const std::vector<std::string>& roots);

// True for a function named llvm.* that is no intrinsic of the linked LLVM:
// codegen would emit it as a call to an undefined function.
[[nodiscard]] bool IsUnknownIntrinsic(const llvm::Function& function);

}  // namespace qdcache::compiler
