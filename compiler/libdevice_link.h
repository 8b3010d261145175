// Links the functions a CUDA module needs from libdevice.10.bc.
#pragma once

#include <string_view>

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace qdcache::compiler {

// Parses `libdevice_bitcode` into the module's context, gives it the module's
// triple and datalayout, links it with Linker::LinkOnlyNeeded (only the
// __nv_* functions the module references, transitively) and internalizes what
// was linked in, so unused library code is dropped by the optimizer and
// nothing from libdevice becomes an exported symbol. Runs before optimization.
[[nodiscard]] llvm::Error LinkLibdevice(llvm::Module& module, std::string_view libdevice_bitcode);

}  // namespace qdcache::compiler
