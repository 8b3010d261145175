// Per-kernel resource usage from ptxas's verbose info log (which nvJitLink
// forwards with -verbose), e.g.
//   ptxas info    : Compiling entry function 'saxpy' for 'sm_90'
//   ptxas info    : Function properties for saxpy
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 10 registers, used 0 barriers, 1024 bytes smem, 380 bytes cmem[0]
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace qdcache::compiler {

struct KernelResources {
  int registers = -1;
  int shared_bytes = -1;  // static shared memory ("smem"); 0 when the line has none
  int local_bytes = -1;   // local memory ("lmem") incl. spills; 0 when the line has none
};

// Keyed by entry name; kernels the log does not mention are absent.
[[nodiscard]] std::map<std::string, KernelResources> ParsePtxasInfoLog(std::string_view log);

}  // namespace qdcache::compiler
