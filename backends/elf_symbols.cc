#include "backends/elf_symbols.h"

#include "backends/compile_error.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

namespace qdcache::compiler {

llvm::Expected<std::vector<ElfSymbol>> ReadElfSymbols(std::string_view bytes, std::string_view what,
                                                      SymbolTable table) {
  const llvm::StringRef name(what.data(), what.size());
  auto parsed = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(llvm::StringRef(bytes.data(), bytes.size()), name));
  if (!parsed) return ToolchainFailure("cannot read " + name + ": " + llvm::toString(parsed.takeError()));
  const auto* elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(parsed->get());
  if (elf == nullptr) return ToolchainFailure(name + " is not an ELF file");
  const auto symbols = table == SymbolTable::kDynamic ? elf->getDynamicSymbolIterators() : elf->symbols();
  std::vector<ElfSymbol> out;
  for (const llvm::object::ELFSymbolRef& symbol : symbols) {
    auto flags = symbol.getFlags();
    auto symbol_name = symbol.getName();
    if (!flags || !symbol_name) {
      llvm::consumeError(flags.takeError());
      llvm::consumeError(symbol_name.takeError());
      return ToolchainFailure("cannot read the symbols of " + name);
    }
    if (symbol_name->empty()) continue;
    const std::uint8_t type = symbol.getELFType();
    out.push_back(ElfSymbol{symbol_name->str(), (*flags & llvm::object::SymbolRef::SF_Undefined) != 0,
                            (*flags & llvm::object::SymbolRef::SF_Global) != 0,
                            type == llvm::ELF::STT_FUNC || type == llvm::ELF::STT_GNU_IFUNC});
  }
  return out;
}

}  // namespace qdcache::compiler
