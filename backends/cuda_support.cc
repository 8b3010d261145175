#include "backends/cuda_support.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <memory>
#include <utility>
#include <vector>

#include "backends/cuda_libraries.h"
#include "backends/llvm_targets.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/Error.h"

#ifdef QDCACHE_HAVE_CUDA
#include <nvJitLink.h>
#endif
#ifdef QDCACHE_HAVE_NVRTC
#include <nvrtc.h>
#endif

namespace qdcache::compiler {
namespace {

// Leading decimal number of `s` (after `prefix`), or -1.
[[maybe_unused]] int NumberAfter(llvm::StringRef s, llvm::StringRef prefix) {
  if (!s.consume_front(prefix)) return -1;
  int value = -1;
  auto [end, ec] = std::from_chars(s.begin(), s.end(), value);
  if (ec != std::errc() || end == s.begin()) return -1;
  return value;
}

[[maybe_unused]] bool BySmNumber(const std::string& a, const std::string& b) {
  return std::pair(NumberAfter(a, "sm_"), a) < std::pair(NumberAfter(b, "sm_"), b);
}

struct LlvmNvptxFacts {
  int max_ptx = 0;
  std::vector<std::string> processors;
};

[[maybe_unused]] LlvmNvptxFacts ScanNvptxBackend() {
  LlvmNvptxFacts facts;
  auto target = LookupLlvmTarget(kCudaTriple);
  if (!target) {
    llvm::consumeError(target.takeError());
    return facts;
  }
  std::unique_ptr<llvm::MCSubtargetInfo> sti((*target)->createMCSubtargetInfo(kCudaTriple, "", ""));
  if (!sti) return facts;
  for (const llvm::SubtargetFeatureKV& f : sti->getAllProcessorFeatures()) {
    facts.max_ptx = std::max(facts.max_ptx, NumberAfter(f.Key, "ptx"));
  }
  for (const llvm::SubtargetSubTypeKV& p : sti->getAllProcessorDescriptions()) {
    facts.processors.emplace_back(p.Key);
  }
  return facts;
}

}  // namespace

int OldestSmForCudaMajor(unsigned major) {
  switch (major) {
    case 11:
      return 35;
    case 12:
      return 50;
    case 13:
      return 75;
    default:
      return major > 13 ? 75 : 0;  // assume later majors keep CUDA 13's floor
  }
}

int MaxPtxIsaForCuda(unsigned major, unsigned minor) {
  // CUDA release -> newest PTX ISA it accepts (PTX ISA release notes).
  static constexpr std::array<std::pair<std::pair<unsigned, unsigned>, int>, 11> kTable{{
      {{11, 8}, 78},
      {{12, 0}, 80},
      {{12, 1}, 81},
      {{12, 2}, 82},
      {{12, 3}, 83},
      {{12, 4}, 84},
      {{12, 5}, 85},
      {{12, 6}, 85},
      {{12, 8}, 87},
      {{12, 9}, 88},
      {{13, 0}, 90},
  }};
  int best = 0;
  for (const auto& [version, ptx] : kTable) {
    if (version <= std::pair(major, minor)) best = ptx;
  }
  return best;
}

std::vector<std::string> SmNamesWithVariants(const std::vector<int>& arches) {
  std::vector<int> sorted = arches;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<std::string> names;
  for (const int arch : sorted) {
    const std::string base = "sm_" + std::to_string(arch);
    names.push_back(base);
    if (arch >= 90) names.push_back(base + "a");   // architecture-specific (Hopper on)
    if (arch >= 100) names.push_back(base + "f");  // family-specific (Blackwell on)
  }
  return names;
}

std::string CudaSupport::PtxIsaString() const {
  if (ptx_isa <= 0) return "none";
  return std::to_string(ptx_isa / 10) + "." + std::to_string(ptx_isa % 10);
}

static CudaSupport ProbeCudaSupport() {
  CudaSupport support;
#ifndef QDCACHE_HAVE_CUDA
  support.cuda_version = "none";
  support.unavailable_reason = "built without CUDA";
  return support;
#else
  if (const std::string& missing = CudaLibraryError(CudaLibrary::kNvJitLink); !missing.empty()) {
    support.cuda_version = "none";
    support.unavailable_reason = missing;
    return support;
  }
  unsigned major = 0;
  unsigned minor = 0;
  if (nvJitLinkVersion(&major, &minor) != NVJITLINK_SUCCESS) {
    support.cuda_version = "probe-failed:nvjitlink";
    support.unavailable_reason = "nvJitLinkVersion failed";
    return support;
  }
  support.cuda_version = std::to_string(major) + "." + std::to_string(minor);
  LlvmNvptxFacts llvm_facts = ScanNvptxBackend();
  support.llvm_max_ptx = llvm_facts.max_ptx;
  support.cuda_max_ptx = MaxPtxIsaForCuda(major, minor);
  support.ptx_isa = std::min(support.llvm_max_ptx, support.cuda_max_ptx);
  const int oldest_sm = OldestSmForCudaMajor(major);
  for (const std::string& sm : llvm_facts.processors) {
    const int number = NumberAfter(sm, "sm_");
    if (number >= oldest_sm && oldest_sm > 0) support.sms.push_back(sm);
  }
  std::sort(support.sms.begin(), support.sms.end(), BySmNumber);
  if (support.ptx_isa == 0 || support.sms.empty()) {
    support.unavailable_reason = "no PTX ISA / SM supported by both LLVM " +
                                 std::string(LLVM_VERSION_STRING) + " and nvJitLink " +
                                 support.cuda_version;
    support.ptx_isa = 0;
    support.sms.clear();
    return support;
  }
  support.link_sms = support.sms;
#ifdef QDCACHE_HAVE_NVRTC
  int count = 0;
  if (nvrtcGetNumSupportedArchs(&count) == NVRTC_SUCCESS && count > 0) {
    std::vector<int> arches(static_cast<std::size_t>(count));
    if (nvrtcGetSupportedArchs(arches.data()) == NVRTC_SUCCESS) support.link_sms = SmNamesWithVariants(arches);
  }
  for (const std::string& sm : support.sms) {  // a superset of what LLVM IR reaches
    if (std::find(support.link_sms.begin(), support.link_sms.end(), sm) == support.link_sms.end()) {
      support.link_sms.push_back(sm);
    }
  }
  std::sort(support.link_sms.begin(), support.link_sms.end(), BySmNumber);
#endif
  support.available = true;
  return support;
#endif
}

const CudaSupport& GetCudaSupport() {
  static const CudaSupport support = ProbeCudaSupport();
  return support;
}

}  // namespace qdcache::compiler
