// NVVM IR -> PTX through libNVVM (the CUDA Toolkit's; what Numba-CUDA and
// cuda.core's "nvvm" code type hand their IR to). The PTX then goes through
// the same cubin stage as every other kind's.
#pragma once

#include <string>
#include <string_view>

#include "common/compile_options.h"
#include "llvm/Support/Error.h"

namespace qdcache::compiler {

// libNVVM's version and the NVVM IR version it reads, "2.0 (IR 2.0, debug
// 3.2)"; "none" when built without libNVVM.
[[nodiscard]] std::string NvvmVersion();

// The libNVVM options `options` turn into, for `sm` ("sm_90a" ->
// -arch=compute_90a): -opt=0 or -opt=3, and, as nvcc's --use_fast_math does,
// -ftz=1 -prec-div=0 -prec-sqrt=0 for fast_math, -fma=0 without fmad, -g for
// debug. Defined in every build.
[[nodiscard]] std::vector<std::string> NvvmOptionArgs(const std::string& sm, const CompileOptions& options);

// Compiles the module `ir` (NVVM IR, text or bitcode as libNVVM reads it),
// with `libdevice` (libdevice.10.bc's bytes; empty: not linked) added lazily
// so that only the functions it calls are linked. Errors: INVALID_ARGUMENT
// with libNVVM's log (its "name (line, column): message" lines) for input it
// refuses; FAILED_PRECONDITION without libNVVM; INTERNAL otherwise.
[[nodiscard]] llvm::Expected<std::string> CompileNvvmToPtx(std::string_view ir, const std::string& sm,
                                                           const CompileOptions& options,
                                                           std::string_view libdevice);

}  // namespace qdcache::compiler
