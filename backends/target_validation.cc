#include "backends/target_validation.h"

#include "backends/in_process_compiler.h"

#include <algorithm>
#include <memory>
#include <string>

#include "backends/amdgpu_processor.h"
#include "backends/compile_error.h"
#include "backends/cuda_support.h"
#include "backends/target_catalogue.h"
#include "common/nearest_name.h"
#include "backends/llvm_targets.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"

namespace qdcache::compiler {
namespace {

// Features that select the instruction-set mode rather than an extension;
// flipping them would make LLVM abort instead of reporting an error.
constexpr llvm::StringRef kModeFeatures[] = {"64bit", "64bit-mode", "32bit-mode", "16bit-mode"};

// "did you mean 'x'? " for the closest of `names` to `word`, or "".
std::string Nearest(const std::string& word, const std::vector<std::string>& names) {
  const std::optional<std::string> near = NearestName(word, names);
  return near ? "did you mean '" + *near + "'? " : "";
}

// The CPU family's processors and features, listed once per process.
const TargetFamilyInfo& CpuFamily() {
  for (const TargetFamilyInfo& family : SupportedTargets()) {
    if (family.family == FamilyOf(TargetKind::kCpu).name) return family;
  }
  static const TargetFamilyInfo none;
  return none;
}

bool Reaches(const std::vector<std::string>& sms, const std::string& sm) {
  return std::find(sms.begin(), sms.end(), sm) != sms.end();
}

llvm::Error CheckCuda(const Target& target, CudaPath path) {
  const CudaSupport& cuda = GetCudaSupport();
  if (!cuda.available)
    return NotAvailable("cannot compile for " + target.ToString() + ": " + cuda.unavailable_reason);
  if (path == CudaPath::kFromPtx) {
    if (Reaches(cuda.link_sms, target.sm)) return llvm::Error::success();
    return BadInput("unsupported CUDA SM '" + target.sm + "' for PTX input (nvJitLink " + cuda.cuda_version +
                    " links PTX for: " + ShortList(cuda.link_sms) + ")");
  }
  if (Reaches(cuda.sms, target.sm)) return llvm::Error::success();
  std::string message = "unsupported CUDA SM '" + target.sm + "' for LLVM IR input (LLVM " +
                        LLVM_VERSION_STRING + " + nvJitLink " + cuda.cuda_version +
                        " support: " + ShortList(cuda.sms) + ")";
  if (Reaches(cuda.link_sms, target.sm)) {
    message += "; PTX input reaches " + target.sm + " through nvJitLink alone";
  }
  return BadInput(message);
}

llvm::Error CheckCpu(const Target& target) {
  if (target.cpu == "native") {
    return BadInput(
        "CPU 'native' is not allowed: name a concrete CPU (the daemon may run on another machine)");
  }
  auto llvm_target = LookupLlvmTarget(kCpuTriple);
  if (!llvm_target) return llvm_target.takeError();
  std::unique_ptr<llvm::MCSubtargetInfo> generic(
      (*llvm_target)->createMCSubtargetInfo(kCpuTriple, "", ""));
  if (!generic) return ToolchainFailure("cannot create the X86 subtarget info");

  if (!generic->isCPUStringValid(target.cpu)) {
    const std::vector<std::string>& cpus = CpuFamily().processors;
    return BadInput("unknown x86-64 CPU '" + target.cpu + "' (" + Nearest(target.cpu, cpus) +
                    "supported: " + ShortList(cpus) + ")");
  }
  for (const std::string& feature : target.features) {
    const llvm::StringRef name = llvm::StringRef(feature).drop_front();
    if (llvm::is_contained(kModeFeatures, name)) {
      return BadInput("CPU feature '" + name +
                      "' selects the instruction-set mode and cannot be changed");
    }
    const auto& table = generic->getAllProcessorFeatures();
    const bool known =
        std::any_of(table.begin(), table.end(), [&](const auto& kv) { return name == kv.Key; });
    if (!known) {
      const std::vector<std::string>& names = CpuFamily().features;
      return BadInput("unknown x86 CPU feature '" + name + "' (" + Nearest(name.str(), names) +
                      "known: " + ShortList(names) + ")");
    }
  }
  std::unique_ptr<llvm::MCSubtargetInfo> chosen(
      (*llvm_target)
          ->createMCSubtargetInfo(kCpuTriple, target.cpu, llvm::join(target.features, ",")));
  if (!chosen)
    return ToolchainFailure("cannot create the X86 subtarget info for " + target.ToString());
  if (!chosen->checkFeatures("+64bit"))
    return BadInput("CPU '" + target.cpu + "' is not a 64-bit x86 CPU");
  // The x86-64 psABI passes floats in SSE registers; without SSE2 LLVM aborts.
  if (!chosen->checkFeatures("+sse2"))
    return BadInput("target " + target.ToString() +
                    " disables SSE2, which the x86-64 ABI requires");
  return llvm::Error::success();
}

}  // namespace

llvm::Error CheckTargetSupported(const Target& target, CudaPath path) {
  switch (target.kind) {
    case TargetKind::kCuda:
      return CheckCuda(target, path);
    case TargetKind::kAmdgpu:
      return CheckAmdgpuTarget(target);
    case TargetKind::kCpu:
      break;
  }
  return CheckCpu(target);
}

Status ValidateTarget(const Target& target) {
  Expected<Target> normalized = NormalizeTarget(target);
  if (!normalized.ok()) return normalized.status();
  if (llvm::Error error = CheckTargetSupported(*normalized)) return ToStatus(std::move(error));
  return Status::Ok();
}

}  // namespace qdcache::compiler
