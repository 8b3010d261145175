#include "backends/entry_points.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "backends/compile_error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Metadata.h"

namespace qdcache::compiler {
namespace {

struct CudaAnnotations {
  bool kernel = false;
  std::map<std::string, std::uint64_t> maxntid;  // "x"/"y"/"z" -> value
};

// !nvvm.annotations = !{!{ptr @f, !"kernel", i32 1, !"maxntidx", i32 256, ...}}
std::map<const llvm::Function*, CudaAnnotations> ReadNvvmAnnotations(const llvm::Module& module) {
  std::map<const llvm::Function*, CudaAnnotations> result;
  const llvm::NamedMDNode* annotations = module.getNamedMetadata("nvvm.annotations");
  if (annotations == nullptr) return result;
  for (const llvm::MDNode* node : annotations->operands()) {
    if (node->getNumOperands() < 3) continue;
    const auto* function = llvm::mdconst::dyn_extract_or_null<llvm::Function>(node->getOperand(0));
    if (function == nullptr) continue;
    for (unsigned i = 1; i + 1 < node->getNumOperands(); i += 2) {
      const auto* key = llvm::dyn_cast_or_null<llvm::MDString>(node->getOperand(i));
      const auto* value =
          llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(node->getOperand(i + 1));
      if (key == nullptr || value == nullptr) continue;
      const llvm::StringRef name = key->getString();
      if (name == "kernel" && value->getZExtValue() == 1) result[function].kernel = true;
      if (name.starts_with("maxntid") && name.size() == 8) {
        result[function].maxntid[name.substr(7).str()] = value->getZExtValue();
      }
    }
  }
  return result;
}

bool IsCpuEntry(const llvm::Function& f) {
  return !f.isDeclaration() && f.hasExternalLinkage() && f.hasDefaultVisibility();
}

std::string DescribeCandidates(const std::vector<EntryFunction>& entries, llvm::StringRef what) {
  std::vector<std::string> names;
  for (const EntryFunction& e : entries) names.push_back(e.name);
  return names.empty() ? "the module has no " + what.str()
                       : "available: " + llvm::join(names, ", ");
}

}  // namespace

llvm::Expected<std::vector<EntryFunction>> SelectEntryPoints(
    const llvm::Module& module, TargetKind kind, const std::vector<std::string>& requested) {
  const bool cuda = kind == TargetKind::kCuda;
  const bool amdgpu = kind == TargetKind::kAmdgpu;
  const llvm::StringRef what = cuda || amdgpu ? "kernels" : "exported functions";
  const auto annotations =
      cuda ? ReadNvvmAnnotations(module) : decltype(ReadNvvmAnnotations(module)){};

  std::vector<EntryFunction> all;
  for (const llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    EntryFunction entry{f.getName().str()};
    if (cuda) {
      auto it = annotations.find(&f);
      const bool annotated = it != annotations.end() && it->second.kernel;
      if (f.getCallingConv() != llvm::CallingConv::PTX_Kernel && !annotated) continue;
      if (it != annotations.end() && !it->second.maxntid.empty()) {
        // No CUDA block holds more than 1024 threads: a larger (or
        // overflowing) bound is reported as unknown rather than wrapped.
        std::uint64_t threads = 1;
        for (const auto& [dim, n] : it->second.maxntid) {
          threads = n > 1024 ? 1025 : std::min<std::uint64_t>(threads * n, 1025);
        }
        entry.max_threads_per_block = threads <= 1024 ? static_cast<int>(threads) : -1;
      }
    } else if (amdgpu) {
      if (f.getCallingConv() != llvm::CallingConv::AMDGPU_KERNEL) continue;
      // A kernel is a symbol of the code object the runtime looks up: its
      // descriptor must be exported (default or protected visibility).
      if (!f.hasExternalLinkage() || f.hasHiddenVisibility()) continue;
    } else if (!IsCpuEntry(f)) {
      continue;
    }
    all.push_back(std::move(entry));
  }

  if (all.empty() && amdgpu) {
    return BadInput(
        "the module has no kernels (no amdgpu_kernel function with external linkage and default or protected "
        "visibility)");
  }
  if (all.empty()) {
    return BadInput(
        cuda ? "the module has no kernels (no ptx_kernel function and no nvvm.annotations "
               "\"kernel\" entry)"
             : "the module has no exported functions (defined, external linkage, default "
               "visibility)");
  }
  for (const std::string& name : requested) {
    if (std::any_of(all.begin(), all.end(), [&](const EntryFunction& e) { return e.name == name; })) {
      continue;
    }
    const llvm::Function* f = module.getFunction(name);
    if (f == nullptr) {
      return BadInput("entry point '" + name + "' does not exist in the module (" +
                      DescribeCandidates(all, what) + ")");
    }
    if (f->isDeclaration())
      return BadInput("entry point '" + name + "' is only declared, not defined");
    return BadInput(
        "entry point '" + name + "' is not " +
        (cuda     ? "a kernel (needs the ptx_kernel calling convention or nvvm.annotations \"kernel\")"
         : amdgpu ? "a kernel (needs the amdgpu_kernel calling convention, external linkage and default or "
                    "protected visibility)"
                  : "an exported function (needs external linkage and default visibility)") +
        " (" + DescribeCandidates(all, what) + ")");
  }
  // Every entry, not only the requested ones: the artifact is shared by all
  // requests with the same key, whatever entry points each of them names.
  return all;
}

llvm::Error CheckNoUnresolvedDeviceCalls(const llvm::Module& module, TargetKind kind,
                                         const UnknownIntrinsicOrigins& libdevice_origins) {
  static constexpr llvm::StringRef kPtxSystemCalls[] = {"vprintf", "malloc", "free",
                                                        "__assertfail"};
  std::vector<std::string> unresolved;
  std::vector<std::string> unknown_intrinsics;
  for (const llvm::Function& f : module) {
    if (!f.isDeclaration() || f.use_empty()) continue;
    if (IsUnknownIntrinsic(f)) {
      std::string what = f.getName().str();
      if (auto it = libdevice_origins.find(what); it != libdevice_origins.end()) {
        what += " (called by libdevice's " + llvm::join(it->second, ", ") +
                ": this libdevice is newer than LLVM " LLVM_VERSION_STRING ")";
      }
      unknown_intrinsics.push_back(std::move(what));
      continue;
    }
    if (f.isIntrinsic()) continue;
    if (kind == TargetKind::kCuda && llvm::is_contained(kPtxSystemCalls, f.getName())) continue;
    unresolved.push_back(f.getName().str());
  }
  if (!unknown_intrinsics.empty()) {
    return BadInput("the module calls intrinsics LLVM " LLVM_VERSION_STRING " does not know: " +
                    llvm::join(unknown_intrinsics, "; "));
  }
  if (unresolved.empty()) return llvm::Error::success();
  std::string hint;
  if (std::any_of(unresolved.begin(), unresolved.end(),
                  [](const std::string& n) { return n.starts_with("__nv_"); })) {
    hint = " (__nv_* functions come from libdevice: set link_libdevice)";
  }
  if (std::any_of(unresolved.begin(), unresolved.end(),
                  [](const std::string& n) { return n.starts_with("__ocml_") || n.starts_with("__ockl_"); })) {
    hint = " (__ocml_* and __ockl_* functions come from ROCm's device libraries: set link_device_libs)";
  }
  return BadInput("the module calls undefined device functions: " + llvm::join(unresolved, ", ") +
                  hint);
}

}  // namespace qdcache::compiler
