#include "compiler/libdevice_link.h"

#include "compiler/compile_error.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Transforms/IPO/Internalize.h"

namespace qdcache::compiler {

llvm::Error LinkLibdevice(llvm::Module& module, std::string_view libdevice_bitcode) {
  std::unique_ptr<llvm::MemoryBuffer> buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(libdevice_bitcode.data(), libdevice_bitcode.size()), "libdevice.10.bc");
  auto library = llvm::parseBitcodeFile(buffer->getMemBufferRef(), module.getContext());
  if (!library)
    return ToolchainFailure("cannot read libdevice: " + llvm::toString(library.takeError()));
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
  if (failed) return BadInput("linking libdevice failed (see the compile log)");
  return llvm::Error::success();
}

}  // namespace qdcache::compiler
