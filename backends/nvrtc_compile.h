// CUDA C++ -> PTX through NVRTC (the CUDA Toolkit's; what cuda.core's
// Program and CuPy's RawKernel/RawModule compile with). The PTX then goes
// through the same cubin stage as every other kind's. Closed world: the
// program (compiler/cuda_program.h) is checked in the daemon before it gets
// here; NVRTC is given the sent headers in memory, the toolkit's include
// directory as its only search path, and runs in an empty directory of its
// own, so no file a client names is ever opened.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/compile_options.h"
#include "compiler/compiler.h"
#include "llvm/Support/Error.h"

namespace qdcache::compiler {

// NVRTC's version, "13.0"; "none" when built without NVRTC.
[[nodiscard]] std::string NvrtcVersion();

// The directory `#include <...>` resolves to (CMake's QDCACHE_CUDA_INCLUDE_DIR);
// empty without NVRTC.
[[nodiscard]] std::string CudaIncludeDir();

// SHA-256 over every regular file under CudaIncludeDir(): its path relative
// to it, its size and modification time, in path order; "none" without one,
// "probe-failed:cuda-headers" when it cannot be read.
[[nodiscard]] std::string CudaHeadersDigest();

// The NVRTC options `options` and the program's macros turn into, for `sm`
// ("sm_90a" -> -arch=compute_90a): -std=c++NN, --use_fast_math,
// --fmad=false, -G, -lineinfo, -extra-device-vectorization, -default-device,
// -rdc=true, -D / -U, and -I with the toolkit's include directory. Defined in
// every build.
[[nodiscard]] std::vector<std::string> NvrtcOptionArgs(const std::string& sm, const CompileOptions& options,
                                                       const std::vector<std::string>& defines,
                                                       const std::vector<std::string>& undefines);

// Compiles `program` (a canonical CUDA C++ program, compiler/cuda_program.h)
// to PTX for `sm`, with the lowered name of each of its name expressions.
// Errors: INVALID_ARGUMENT with NVRTC's log ("kernel.cu(3): error: ...") for
// a program it refuses, and for an include it could not open, naming it and
// saying to send it; FAILED_PRECONDITION without NVRTC; INTERNAL otherwise.
struct NvrtcOutput {
  std::string ptx;
  std::string log;  // NVRTC's warnings
  std::vector<LoweredName> lowered_names;
};
[[nodiscard]] llvm::Expected<NvrtcOutput> CompileCudaToPtx(std::string_view program, const std::string& sm,
                                                           const CompileOptions& options);

}  // namespace qdcache::compiler
