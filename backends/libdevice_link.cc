#include "backends/libdevice_link.h"

#include <set>

#include "backends/compile_error.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Transforms/IPO/Internalize.h"

namespace qdcache::compiler {
namespace {

// The unknown intrinsics `root`'s body reaches through direct calls.
std::set<std::string> UnknownIntrinsicsReachedFrom(const llvm::Function& root) {
  std::set<std::string> found;
  std::set<const llvm::Function*> seen{&root};
  std::vector<const llvm::Function*> pending{&root};
  while (!pending.empty()) {
    const llvm::Function* function = pending.back();
    pending.pop_back();
    for (const llvm::Instruction& inst : llvm::instructions(*function)) {
      const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
      const llvm::Function* callee = call != nullptr ? call->getCalledFunction() : nullptr;
      if (callee == nullptr) continue;
      if (IsUnknownIntrinsic(*callee)) {
        found.insert(callee->getName().str());
      } else if (!callee->isDeclaration() && seen.insert(callee).second) {
        pending.push_back(callee);
      }
    }
  }
  return found;
}

}  // namespace

bool IsUnknownIntrinsic(const llvm::Function& function) {
  return function.isIntrinsic() && function.getIntrinsicID() == llvm::Intrinsic::not_intrinsic;
}

llvm::Error LinkBitcodeOnlyNeeded(llvm::Module& module, std::string_view bitcode, llvm::StringRef name) {
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(bitcode.data(), bitcode.size()), name);
  auto library = llvm::parseBitcodeFile(buffer->getMemBufferRef(), module.getContext());
  if (!library) return ToolchainFailure("cannot read " + name + ": " + llvm::toString(library.takeError()));
  // libdevice ships with "nvptx64-nvidia-gpulibs" and an older datalayout.
  (*library)->setTargetTriple(module.getTargetTriple());
  (*library)->setDataLayout(module.getDataLayout());

  const bool failed =
      llvm::Linker::linkModules(module, std::move(*library), llvm::Linker::LinkOnlyNeeded,
                                [](llvm::Module& linked, const llvm::StringSet<>& from_library) {
                                  llvm::internalizeModule(linked, [&](const llvm::GlobalValue& gv) {
                                    return !gv.hasName() || !from_library.contains(gv.getName());
                                  });
                                });
  if (failed) return BadInput("linking " + name + " failed (see the compile log)");
  return llvm::Error::success();
}

std::vector<std::string> CalledDeclarations(const llvm::Module& module, llvm::StringRef prefix) {
  std::vector<std::string> names;
  for (const llvm::Function& f : module) {
    if (f.isDeclaration() && !f.use_empty() && f.getName().starts_with(prefix)) names.push_back(f.getName().str());
  }
  return names;
}

UnknownIntrinsicOrigins UnknownIntrinsicOriginsOf(const llvm::Module& module, const std::vector<std::string>& roots) {
  UnknownIntrinsicOrigins origins;
  for (const std::string& name : roots) {
    const llvm::Function* f = module.getFunction(name);
    if (f == nullptr || f->isDeclaration()) continue;
    for (const std::string& intrinsic : UnknownIntrinsicsReachedFrom(*f)) origins[intrinsic].push_back(name);
  }
  return origins;
}

llvm::Expected<UnknownIntrinsicOrigins> LinkLibdevice(llvm::Module& module,
                                                      std::string_view libdevice_bitcode) {
  // The __nv_* functions the module itself calls.
  const std::vector<std::string> wanted = CalledDeclarations(module, "__nv_");
  if (llvm::Error error = LinkBitcodeOnlyNeeded(module, libdevice_bitcode, "libdevice")) return error;
  return UnknownIntrinsicOriginsOf(module, wanted);
}

}  // namespace qdcache::compiler
