// What this process can compile for CUDA: the SMs and the PTX ISA version
// that both the linked LLVM NVPTX backend and the linked nvJitLink support.
#pragma once

#include <string>
#include <vector>

namespace qdcache::compiler {

struct CudaSupport {
  bool available = false;          // built with CUDA and nvJitLink answered
  std::string unavailable_reason;  // why not, when !available
  std::string cuda_version;        // nvJitLink's "13.0", "none", or "probe-failed:nvjitlink"
  int llvm_max_ptx = 0;            // newest ptxNN feature of the NVPTX backend (85 = 8.5)
  int cuda_max_ptx = 0;            // newest PTX ISA nvJitLink accepts (table below)
  int ptx_isa = 0;                 // min of the two: what codegen targets; 0 if unavailable
  std::vector<std::string> sms;    // NVPTX processors ∩ nvJitLink's range, ascending
  // What nvJitLink links PTX for, ascending: NVRTC's architectures of the
  // same toolkit, each with its sm_XXa (XX >= 90) and sm_XXf (XX >= 100)
  // variants, as ptxas lists them; `sms` where NVRTC is missing.
  std::vector<std::string> link_sms;

  // "8.5" for 85; "none" for 0.
  [[nodiscard]] std::string PtxIsaString() const;
};

// Probed once per process (thread-safe).
[[nodiscard]] const CudaSupport& GetCudaSupport();

// Documented tables, exposed for tests. nvJitLink has no query for either.
// Oldest SM number a CUDA major release still compiles for (CUDA 12: sm_50,
// CUDA 13 dropped everything before Turing: sm_75); 0 for unknown majors.
[[nodiscard]] int OldestSmForCudaMajor(unsigned major);
// Newest PTX ISA (as 10*major+minor) a CUDA release accepts, from the PTX ISA
// release notes; newer toolkits than the table get the newest entry, older
// ones 0 (unsupported).
[[nodiscard]] int MaxPtxIsaForCuda(unsigned major, unsigned minor);
// The SM names of architecture numbers (75, 90, 100): "sm_75", "sm_90",
// "sm_90a", "sm_100", "sm_100a", "sm_100f", ..., in that order.
[[nodiscard]] std::vector<std::string> SmNamesWithVariants(const std::vector<int>& arches);

}  // namespace qdcache::compiler
