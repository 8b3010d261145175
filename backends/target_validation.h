// Target checks against the linked toolchain (LLVM NVPTX/X86 tables, nvJitLink).
#pragma once

#include "common/target.h"
#include "llvm/Support/Error.h"

namespace qdcache::compiler {

// `target` must already be normalized (NormalizeTarget).
[[nodiscard]] llvm::Error CheckTargetSupported(const Target& target);

}  // namespace qdcache::compiler
