// Bounds on the size of the objects a module defines, checked before any
// LLVM pass computes a size (DataLayout counts bits: its sizes wrap around
// past 2^61 bytes): a
// module that declares an object no target can hold is the client's error,
// not a cubin no driver loads or a shared object no process maps.
#pragma once

#include <cstdint>
#include <optional>

#include "common/target.h"
#include "compiler/ir_limits.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Type.h"
#include "llvm/Support/Error.h"

namespace qdcache::compiler {

// Every target: globals within kMaxObjectBytes (compiler/ir_limits.h), each
// and per address space.
// CUDA, every SM: static shared memory per block, local memory per thread.
inline constexpr std::uint64_t kMaxCudaStaticSharedBytes = 48 << 10;
inline constexpr std::uint64_t kMaxCudaLocalBytes = 512 << 10;
// AMDGPU, every processor LLVM 19 knows: LDS per workgroup; private memory
// per work-item as for CUDA's local memory (kMaxCudaLocalBytes).
inline constexpr std::uint64_t kMaxAmdgpuLdsBytes = 64 << 10;
// CPU: one stack object (an alloca of constant size) of at most 1 GiB; a
// kernel runs on its caller's thread, whose stack is far smaller (glibc's
// default is 8 MiB).
inline constexpr std::uint64_t kMaxCpuStackObjectBytes = std::uint64_t{1} << 30;

// The allocation size of a sized `type` under `layout` (DataLayout's rules,
// without its wrap-around), or nullopt when it exceeds 2^64 - 2 bytes. Recursion depth is the type's nesting depth, which
// the IR reader has bounded (module_limits.h); linear in the distinct types.
[[nodiscard]] std::optional<std::uint64_t> AllocSize(const llvm::DataLayout& layout, llvm::Type* type);

// INVALID_ARGUMENT naming the object, its size and the bound when a defined
// global variable or an alloca of constant size exceeds the bounds above for
// `target`. Dynamically sized allocas are sized at run time and not checked.
// The module's datalayout must be the target's.
[[nodiscard]] llvm::Error CheckObjectSizes(const llvm::Module& module, const Target& target);

}  // namespace qdcache::compiler
