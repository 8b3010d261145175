// The CompileOptions each CUDA stage may see. CompileToPtx and LinkCubin hand
// their stage only these copies, so a stage cannot start reading a field its
// cache key (PtxOptionsKey / LinkOptionsKey in compiler.h) leaves out.
#pragma once

#include "compiler/options.h"

namespace qdcache::compiler {

// opt_level, fast_math, fmad, debug, lineinfo, link_libdevice; the rest at
// their defaults.
[[nodiscard]] CompileOptions PtxStageOptions(const CompileOptions& o);

// opt_level folded to 0 or 3 (nvJitLink's -O0 / -O3), max_registers, debug,
// lineinfo, fast_math; the rest at their defaults.
[[nodiscard]] CompileOptions LinkStageOptions(const CompileOptions& o);

}  // namespace qdcache::compiler
