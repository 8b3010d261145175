// Compile options: a closed list. Every option has a default written out here;
// the service layer refuses anything it cannot map onto this struct.
#pragma once

#include <cstdint>
#include <string>

namespace qdcache::compiler {

struct CompileOptions {
  int opt_level = 3;           // 0..3, new pass manager O0..O3 and codegen level
  bool fast_math = false;      // unsafe-fp-math, no-nans/infs, nsz, arcp, contract=fast; ftz on CUDA
  bool fmad = true;            // allow fused multiply-add contraction (FPOpFusion::Standard)
  bool debug = false;          // keep/emit debug info (-g)
  bool lineinfo = false;       // CUDA: -lineinfo for nvJitLink
  std::uint32_t max_registers = 0;  // CUDA: nvJitLink -maxrregcount; 0 = no limit
  bool link_libdevice = false;      // CUDA: link needed functions of libdevice.10.bc

  friend bool operator==(const CompileOptions&, const CompileOptions&) = default;
};

// "opt=3 fast_math=0 fmad=1 debug=0 lineinfo=0 max_registers=0 link_libdevice=0"
[[nodiscard]] std::string ToString(const CompileOptions& o);

}  // namespace qdcache::compiler
