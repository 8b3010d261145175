#include "backends/object_sizes.h"

#include <map>
#include <string>

#include "backends/compile_error.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"

namespace qdcache::compiler {
namespace {

std::uint64_t AlignTo(std::uint64_t bytes, std::uint64_t align) {
  const std::uint64_t padded = SaturatingAdd(bytes, align - 1);
  return padded == kSaturatedBytes ? kSaturatedBytes : padded / align * align;
}

// Allocation sizes as DataLayout defines them, saturating at 2^64 - 1
// (DataLayout itself counts in bits and wraps past 2^61 bytes), memoized:
// named structs may share members in a DAG whose spelled-out size is
// exponential.
class Sizer {
 public:
  explicit Sizer(const llvm::DataLayout& layout) : layout_(layout) {}

  std::optional<std::uint64_t> AllocSize(llvm::Type* type) {
    const std::uint64_t bytes = Saturating(type);
    if (bytes == kSaturatedBytes) return std::nullopt;
    return bytes;
  }

 private:
  std::uint64_t Saturating(llvm::Type* type) {
    if (auto it = memo_.find(type); it != memo_.end()) return it->second;
    std::uint64_t bytes = 0;
    if (auto* array = llvm::dyn_cast<llvm::ArrayType>(type)) {
      bytes = SaturatingMultiply(array->getNumElements(), Saturating(array->getElementType()));
    } else if (auto* st = llvm::dyn_cast<llvm::StructType>(type)) {
      for (llvm::Type* element : st->elements()) {
        if (!st->isPacked()) bytes = AlignTo(bytes, layout_.getABITypeAlign(element).value());
        bytes = SaturatingAdd(bytes, Saturating(element));
      }
      bytes = AlignTo(bytes, layout_.getABITypeAlign(st).value());
    } else {
      // Scalars and vectors (at most 2^32 elements): far from wrapping.
      bytes = layout_.getTypeAllocSize(type).getKnownMinValue();
    }
    memo_[type] = bytes;
    return bytes;
  }

  const llvm::DataLayout& layout_;
  llvm::DenseMap<llvm::Type*, std::uint64_t> memo_;
};

std::string Bytes(std::optional<std::uint64_t> size) {
  return size ? std::to_string(*size) + " bytes" : std::string("at least 2^64 - 1 bytes");
}

// The bytes one alloca of constant size allocates; nullopt past 2^64 - 1,
// and 0 with `dynamic` set when its count is known only at run time.
std::optional<std::uint64_t> AllocaSize(Sizer& sizer, const llvm::AllocaInst& alloca, bool& dynamic) {
  const auto* count = llvm::dyn_cast<llvm::ConstantInt>(alloca.getArraySize());
  dynamic = count == nullptr;
  if (dynamic) return 0;
  const std::optional<std::uint64_t> element = sizer.AllocSize(alloca.getAllocatedType());
  if (!element || count->getValue().getActiveBits() > 64) return std::nullopt;
  const std::uint64_t bytes = SaturatingMultiply(*element, count->getZExtValue());
  if (bytes == kSaturatedBytes) return std::nullopt;
  return bytes;
}

llvm::Error CheckGlobals(const llvm::Module& module, TargetKind kind, Sizer& sizer) {
  const bool cuda = kind == TargetKind::kCuda;
  std::map<unsigned, std::uint64_t> totals;  // per address space
  for (const llvm::GlobalVariable& g : module.globals()) {
    if (g.isDeclaration() || !g.getValueType()->isSized()) continue;
    const std::optional<std::uint64_t> size = sizer.AllocSize(g.getValueType());
    if (cuda && g.getAddressSpace() == 3 && (!size || *size > kMaxCudaStaticSharedBytes)) {
      return BadInput("shared variable @" + g.getName() + " is " + Bytes(size) + "; a block has at most " +
                      llvm::Twine(kMaxCudaStaticSharedBytes) +
                      " bytes of static shared memory (use dynamic shared memory, an external "
                      "addrspace(3) array, for more)");
    }
    if (kind == TargetKind::kAmdgpu && g.getAddressSpace() == 3 && (!size || *size > kMaxAmdgpuLdsBytes)) {
      return BadInput("LDS variable @" + g.getName() + " is " + Bytes(size) + "; a workgroup has at most " +
                      llvm::Twine(kMaxAmdgpuLdsBytes) + " bytes of LDS");
    }
    if (!size || *size > kMaxObjectBytes) {
      return BadInput("global @" + g.getName() + " is " + Bytes(size) + "; an object may be at most " +
                      llvm::Twine(kMaxObjectBytes) +
                      " bytes (2^47, the x86-64 user address space, which CUDA's unified addressing shares)");
    }
    std::uint64_t& total = totals[g.getAddressSpace()];
    total = SaturatingAdd(total, *size);
    if (total > kMaxObjectBytes) {
      return BadInput("the module's globals in addrspace(" + llvm::Twine(g.getAddressSpace()) + ") total " +
                      Bytes(total == kSaturatedBytes ? std::nullopt : std::optional(total)) + " (reached at @" +
                      g.getName() + "); at most " + llvm::Twine(kMaxObjectBytes) + " bytes");
    }
  }
  return llvm::Error::success();
}

llvm::Error CheckAllocas(const llvm::Module& module, TargetKind kind, Sizer& sizer) {
  const bool gpu = kind != TargetKind::kCpu;
  const std::uint64_t bound = gpu ? kMaxCudaLocalBytes : kMaxCpuStackObjectBytes;
  for (const llvm::Function& f : module) {
    for (const llvm::BasicBlock& block : f) {
      for (const llvm::Instruction& inst : block) {
        const auto* alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst);
        if (alloca == nullptr || !alloca->getAllocatedType()->isSized()) continue;
        bool dynamic = false;
        const std::optional<std::uint64_t> size = AllocaSize(sizer, *alloca, dynamic);
        if (dynamic || (size && *size <= bound)) continue;
        if (gpu) {
          return BadInput("@" + f.getName() + " allocates " + Bytes(size) + " of " +
                          (kind == TargetKind::kCuda ? "local memory in one alloca; a CUDA thread"
                                                     : "private memory in one alloca; an AMDGPU work-item") +
                          " has at most " + llvm::Twine(bound));
        }
        return BadInput("@" + f.getName() + " allocates " + Bytes(size) +
                        " on the stack in one alloca; a CPU kernel's stack object may be at most " +
                        llvm::Twine(bound) + " bytes (1 GiB)");
      }
    }
  }
  return llvm::Error::success();
}

}  // namespace

std::optional<std::uint64_t> AllocSize(const llvm::DataLayout& layout, llvm::Type* type) {
  return Sizer(layout).AllocSize(type);
}

llvm::Error CheckObjectSizes(const llvm::Module& module, const Target& target) {
  Sizer sizer(module.getDataLayout());
  if (llvm::Error error = CheckGlobals(module, target.kind, sizer)) return error;
  return CheckAllocas(module, target.kind, sizer);
}

}  // namespace qdcache::compiler
