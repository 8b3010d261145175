// The AMDGPU code object around codegen: the code object version a module is
// compiled at (its "amdhsa_code_object_version" flag), and what the linked
// HSA code object says of its kernels (the AMDHSA metadata note and the
// kernel descriptor symbols).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/compile_options.h"
#include "compiler/compiler.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace qdcache::compiler {

// LLVM 19's default code object version.
inline constexpr unsigned kDefaultCodeObjectVersion = 5;

// The version a compile of `module` makes: options.code_object_version when
// set, else the module's own flag, else kDefaultCodeObjectVersion; the flag
// is then set to it. INVALID_ARGUMENT when the option and the module's flag
// disagree, or the flag is not an integer or not a version LLVM 19 writes
// (4, 5, 6).
[[nodiscard]] llvm::Expected<unsigned> ApplyCodeObjectVersion(llvm::Module& module, const CompileOptions& options);

// Per kernel of the linked code object `code_object` (in `names` order):
// the AMDHSA metadata's registers (registers = vgprs = .vgpr_count, which
// counts the accumulation registers too; agprs = .agpr_count), LDS, private
// segment (-1 with a dynamic stack), max flat workgroup size, wavefront size
// and kernarg size. INVALID_ARGUMENT when an import is
// left undefined (a code object links nothing at load time), and INTERNAL
// when a kernel has no metadata or no "<name>.kd" descriptor symbol, or the
// note does not read.
[[nodiscard]] llvm::Expected<std::vector<EntryInfo>> ReadCodeObjectKernels(std::string_view code_object,
                                                                          const std::vector<std::string>& names);

}  // namespace qdcache::compiler
