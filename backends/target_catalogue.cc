#include "backends/target_catalogue.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <set>

#include "backends/amdgpu_processor.h"
#include "backends/cuda_support.h"
#include "backends/llvm_targets.h"
#include "common/target.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"

namespace qdcache::compiler {
namespace {

TargetFamilyInfo CudaFamily(std::string syntax) {
  TargetFamilyInfo info{"cuda", std::move(syntax), {}, {}, true, ""};
  const CudaSupport& cuda = GetCudaSupport();
  info.available = cuda.available;
  info.unavailable_reason = cuda.unavailable_reason;
  // link_sms (PTX input) includes every SM of `sms` (LLVM IR input).
  std::set<std::string> seen;
  for (const std::vector<std::string>* list : {&cuda.sms, &cuda.link_sms}) {
    for (const std::string& sm : *list) {
      if (seen.insert(sm).second) info.processors.push_back(sm);
    }
  }
  // By SM number, each before its a/f variants: sm_88 before sm_89 and sm_90.
  auto number = [](const std::string& sm) { return std::atoi(sm.c_str() + 3); };
  std::stable_sort(info.processors.begin(), info.processors.end(), [&](const std::string& a, const std::string& b) {
    return number(a) != number(b) ? number(a) < number(b) : a.size() < b.size();
  });
  return info;
}

TargetFamilyInfo CpuFamily(std::string syntax) {
  TargetFamilyInfo info{"cpu", std::move(syntax), {}, {}, true, ""};
  auto llvm_target = LookupLlvmTarget(kCpuTriple);
  if (!llvm_target) {
    info.available = false;
    info.unavailable_reason = llvm::toString(llvm_target.takeError());
    return info;
  }
  std::unique_ptr<llvm::MCSubtargetInfo> generic((*llvm_target)->createMCSubtargetInfo(kCpuTriple, "", ""));
  if (!generic) {
    info.available = false;
    info.unavailable_reason = "cannot create the X86 subtarget info";
    return info;
  }
  for (const auto& p : generic->getAllProcessorDescriptions()) info.processors.emplace_back(p.Key);
  for (const auto& f : generic->getAllProcessorFeatures()) info.features.emplace_back(f.Key);
  return info;
}

TargetFamilyInfo AmdgpuFamily(std::string syntax) {
  TargetFamilyInfo info{"amdgpu", std::move(syntax), AmdgpuProcessorNames(), AmdgpuFeatureNames(), true, ""};
  if (auto llvm_target = LookupLlvmTarget(kAmdgpuTriple); !llvm_target) {
    info.available = false;
    info.unavailable_reason = llvm::toString(llvm_target.takeError());
  }
  return info;
}

}  // namespace

const std::vector<TargetFamilyInfo>& SupportedTargets() {
  static const std::vector<TargetFamilyInfo> families = [] {
    std::vector<TargetFamilyInfo> out;
    for (const TargetFamily& family : TargetFamilies()) {
      std::string syntax(family.grammar);
      switch (family.kind) {
        case TargetKind::kCuda:
          out.push_back(CudaFamily(syntax));
          break;
        case TargetKind::kCpu:
          out.push_back(CpuFamily(syntax));
          break;
        case TargetKind::kAmdgpu:
          out.push_back(AmdgpuFamily(syntax));
          break;
      }
    }
    return out;
  }();
  return families;
}

std::string ShortList(const std::vector<std::string>& names, std::size_t shown) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > shown) {
    out += ", … (" + std::to_string(names.size() - shown) + " more; `qdcache targets` lists them)";
  }
  return out;
}

}  // namespace qdcache::compiler
