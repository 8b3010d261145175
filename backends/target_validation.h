// Target checks against the linked toolchain (LLVM NVPTX/X86 tables, nvJitLink).
#pragma once

#include "common/target.h"
#include "llvm/Support/Error.h"

namespace qdcache::compiler {

// Where a CUDA compile starts: LLVM IR reaches the SMs of LLVM's NVPTX
// backend that nvJitLink also links for; PTX reaches every SM nvJitLink
// links for (CudaSupport::sms and ::link_sms).
enum class CudaPath { kFromLlvmIr, kFromPtx };

// `target` must already be normalized (NormalizeTarget). An SM outside the
// path's reach is INVALID_ARGUMENT listing what the path reaches.
[[nodiscard]] llvm::Error CheckTargetSupported(const Target& target, CudaPath path = CudaPath::kFromLlvmIr);

}  // namespace qdcache::compiler
