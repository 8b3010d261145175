// Which functions of a module a client may launch / call, and the checks that
// keep a module from reaching the backend with nothing to run or with calls
// that nothing could resolve.
#pragma once

#include <string>
#include <vector>

#include "backends/libdevice_link.h"
#include "common/target.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace qdcache::compiler {

struct EntryFunction {
  std::string name;
  int max_threads_per_block = -1;  // CUDA: product of maxntid{x,y,z} annotations
};

// CUDA entries are defined kernels: `ptx_kernel` calling convention or an
// !nvvm.annotations "kernel" = 1 entry. AMDGPU entries are defined
// `amdgpu_kernel` functions with external linkage and default or protected
// visibility (a hidden one's descriptor is not exported). CPU entries are defined functions
// with external linkage and default visibility. At least one must exist, and
// each `requested` name must be one. Returns all of them, requested or not.
[[nodiscard]] llvm::Expected<std::vector<EntryFunction>> SelectEntryPoints(
    const llvm::Module& module, TargetKind kind, const std::vector<std::string>& requested);

// CUDA and AMDGPU: refuses calls to declared, non-intrinsic functions
// (nothing links them into a cubin or code object) and to llvm.* functions the linked LLVM does not know as
// intrinsics (codegen would emit them as calls to undefined functions, which
// ptxas rejects without naming them); `libdevice_origins` (from
// LinkLibdevice) names the __nv_* functions such a call came from. The PTX
// system calls ptxas resolves itself (vprintf, malloc, free, __assertfail)
// are allowed for CUDA. The message points at link_libdevice for __nv_*
// calls and at link_device_libs for __ocml_* / __ockl_* ones.
[[nodiscard]] llvm::Error CheckNoUnresolvedDeviceCalls(
    const llvm::Module& module, TargetKind kind, const UnknownIntrinsicOrigins& libdevice_origins = {});

}  // namespace qdcache::compiler
