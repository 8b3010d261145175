#include "backends/amdgpu_processor.h"

#include <algorithm>

#include "backends/compile_error.h"
#include "backends/target_catalogue.h"
#include "common/nearest_name.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/TargetParser/TargetParser.h"

namespace qdcache::compiler {
namespace {

std::string_view FeatureName(const std::string& feature) {
  return std::string_view(feature).substr(0, feature.size() - 1);
}

}  // namespace

const std::vector<std::string>& AmdgpuProcessorNames() {
  static const std::vector<std::string> names = [] {
    llvm::SmallVector<llvm::StringRef> all;
    llvm::AMDGPU::fillValidArchListAMDGCN(all);
    // The list also holds the old marketing names ("tahiti", "fiji"); the
    // gfx names are the ones target ids use.
    std::vector<std::string> out;
    for (llvm::StringRef name : all) {
      if (name.starts_with("gfx") && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name.str());
    }
    return out;
  }();
  return names;
}

std::optional<AmdgpuProcessor> FindAmdgpuProcessor(const std::string& name) {
  const std::vector<std::string>& names = AmdgpuProcessorNames();
  if (std::find(names.begin(), names.end(), name) == names.end()) return std::nullopt;
  const llvm::AMDGPU::GPUKind kind = llvm::AMDGPU::parseArchAMDGCN(name);
  if (kind == llvm::AMDGPU::GK_NONE) return std::nullopt;
  const unsigned attributes = llvm::AMDGPU::getArchAttrAMDGCN(kind);
  const llvm::AMDGPU::IsaVersion isa = llvm::AMDGPU::getIsaVersion(name);
  AmdgpuProcessor p;
  p.name = name;
  p.xnack = (attributes & llvm::AMDGPU::FEATURE_XNACK) != 0;
  p.sramecc = (attributes & llvm::AMDGPU::FEATURE_SRAMECC) != 0;
  p.wave32 = (attributes & llvm::AMDGPU::FEATURE_WAVE32) != 0;
  p.generic = kind >= llvm::AMDGPU::GK_AMDGCN_GENERIC_FIRST && kind <= llvm::AMDGPU::GK_AMDGCN_GENERIC_LAST;
  p.major = isa.Major;
  p.minor = isa.Minor;
  p.stepping = isa.Stepping;
  return p;
}

const std::vector<std::string>& AmdgpuFeatureNames() {
  static const std::vector<std::string> names = {"sramecc", "xnack"};
  return names;
}

unsigned AmdgpuWavefrontSize(const AmdgpuProcessor& processor, const CompileOptions& options) {
  if (options.wavefront_size != 0) return options.wavefront_size;
  return processor.wave32 ? 32 : 64;
}

llvm::Error CheckAmdgpuTarget(const Target& target) {
  const std::optional<AmdgpuProcessor> processor = FindAmdgpuProcessor(target.cpu);
  if (!processor) {
    const std::vector<std::string>& names = AmdgpuProcessorNames();
    const std::optional<std::string> near = NearestName(target.cpu, names);
    return BadInput("unknown AMDGPU processor '" + target.cpu + "' (" +
                    (near ? "did you mean '" + *near + "'? " : std::string()) + "LLVM " LLVM_VERSION_STRING
                    " supports: " + ShortList(names, 64) + ")");
  }
  for (const std::string& feature : target.features) {
    const std::string_view name = FeatureName(feature);
    const std::vector<std::string>& known = AmdgpuFeatureNames();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      return BadInput("unknown AMDGPU target-id feature '" + std::string(name) + "' (known: " + llvm::join(known, ", ") +
                      ")");
    }
    if ((name == "xnack" && !processor->xnack) || (name == "sramecc" && !processor->sramecc)) {
      return BadInput("AMDGPU processor " + target.cpu + " does not take the " + std::string(name) +
                      " feature (" + (processor->xnack || processor->sramecc
                                          ? std::string("it takes: ") + (processor->sramecc ? "sramecc " : "") +
                                                (processor->xnack ? "xnack" : "")
                                          : std::string("it takes none")) +
                      ")");
    }
  }
  return llvm::Error::success();
}

llvm::Error CheckAmdgpuOptions(const Target& target, const CompileOptions& options, unsigned code_object_version) {
  const std::optional<AmdgpuProcessor> processor = FindAmdgpuProcessor(target.cpu);
  if (!processor) return CheckAmdgpuTarget(target);
  if (options.wavefront_size == 32 && !processor->wave32) {
    return BadInput("wavefront_size 32: " + target.cpu + " runs wavefronts of 64 only (wave32 needs gfx10 or later)");
  }
  if (processor->generic && code_object_version != 6) {
    return BadInput("generic AMDGPU processor " + target.cpu + " needs code object version 6, not " +
                    llvm::Twine(code_object_version));
  }
  return llvm::Error::success();
}

std::string AmdgpuLlvmFeatures(const Target& target, const CompileOptions& options) {
  std::vector<std::string> features;
  for (const std::string& feature : target.features) {
    features.push_back(std::string(1, feature.back()) + std::string(FeatureName(feature)));
  }
  if (options.wavefront_size == 64) features.emplace_back("+wavefrontsize64");
  if (options.wavefront_size == 32) features.emplace_back("+wavefrontsize32");
  return llvm::join(features, ",");
}

}  // namespace qdcache::compiler
