// PTX -> cubin for one exact SM through nvJitLink (ptxas in-process).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/compile_options.h"
#include "llvm/Support/Error.h"

namespace qdcache::compiler {

struct LinkedCubin {
  std::string cubin;
  std::string info_log;  // ptxas -verbose output (resource usage, warnings)
};

// The nvJitLink options `options` turn into, in the order they are passed,
// without -arch and -verbose: -O0 or -O3, -maxrregcount=N, -g, -lineinfo,
// -ftz=1, -Xptxas=--fmad=false, -Xptxas=--suppress-debug-info. Defined in
// every build.
[[nodiscard]] std::vector<std::string> NvJitLinkOptionArgs(const CompileOptions& options);

// Errors: INVALID_ARGUMENT when ptxas rejects the PTX (the input's fault, e.g.
// too much shared memory), with nvJitLink's error log; INTERNAL for anything else; FAILED_PRECONDITION
// when built without CUDA. `cudadevrt`: libcudadevrt.a's bytes, linked as a
// library (the functions the PTX calls are taken from it) when not empty.
[[nodiscard]] llvm::Expected<LinkedCubin> LinkPtxToCubin(std::string_view ptx,
                                                         const std::string& sm,
                                                         const CompileOptions& options,
                                                         std::string_view cudadevrt = {});

}  // namespace qdcache::compiler
