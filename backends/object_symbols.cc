#include "backends/object_symbols.h"

#include <algorithm>

#include "backends/compile_error.h"
#include "backends/host_libm.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

namespace qdcache::compiler {
namespace {

constexpr llvm::StringRef kLibcAllowed[] = {"memcpy", "memmove", "memset"};
constexpr const char* kAllowedText =
    " (allowed: memcpy, memmove, memset, the C math functions of libm and compiler-rt's builtins)";

llvm::MemoryBufferRef Ref(std::string_view bytes, llvm::StringRef name) {
  return llvm::MemoryBufferRef(llvm::StringRef(bytes.data(), bytes.size()), name);
}

enum class Import { kLibc, kLibm, kOther };

llvm::Expected<Import> Classify(llvm::StringRef name) {
  if (llvm::is_contained(kLibcAllowed, name)) return Import::kLibc;
  const HostLibm& libm = GetHostLibm();
  if (!libm.error.empty()) {
    return ToolchainFailure("cannot tell which libm functions a kernel may import: " + libm.error);
  }
  return libm.functions.count(name.str()) ? Import::kLibm : Import::kOther;
}

}  // namespace

llvm::Expected<ObjectImports> CheckObjectSymbols(std::string_view object, const std::vector<std::string>& entries,
                                                 const std::set<std::string>& builtins) {
  auto parsed = llvm::object::ObjectFile::createObjectFile(Ref(object, "codegen.o"));
  if (!parsed)
    return ToolchainFailure("cannot read the object X86 codegen produced: " +
                            llvm::toString(parsed.takeError()));

  ObjectImports imports;
  std::set<std::string> refused;
  std::set<std::string> defined;
  std::set<std::string> needed_builtins;
  for (const llvm::object::SymbolRef& symbol : (*parsed)->symbols()) {
    auto flags = symbol.getFlags();
    auto name = symbol.getName();
    if (!flags || !name) {
      llvm::consumeError(flags.takeError());
      llvm::consumeError(name.takeError());
      continue;
    }
    if (name->empty()) continue;
    if (*flags & llvm::object::SymbolRef::SF_Undefined) {
      auto import = Classify(*name);
      if (!import) return import.takeError();
      if (*import == Import::kLibm) {
        imports.needs_libm = true;
      } else if (*import == Import::kOther) {
        (builtins.count(name->str()) ? needed_builtins : refused).insert(name->str());
      }
    } else if (*flags & llvm::object::SymbolRef::SF_Global) {
      defined.insert(name->str());
    }
  }
  if (!refused.empty()) {
    return BadInput("the module needs undefined symbols that a kernel library may not import: " +
                    llvm::join(refused, ", ") + kAllowedText);
  }
  for (const std::string& entry : entries) {
    if (!defined.count(entry)) {
      return BadInput("entry point '" + entry +
                      "' was not emitted as a global symbol (removed by optimization?)");
    }
  }
  imports.builtins.assign(needed_builtins.begin(), needed_builtins.end());
  return imports;
}

llvm::Expected<std::set<std::string>> ArchiveSymbols(std::string_view archive) {
  llvm::Error error = llvm::Error::success();
  llvm::object::Archive parsed(Ref(archive, "builtins.a"), error);
  if (error) return error;
  std::set<std::string> symbols;
  for (const llvm::object::Archive::Symbol& symbol : parsed.symbols()) symbols.insert(symbol.getName().str());
  if (symbols.empty()) return ToolchainFailure("the archive has no symbol table");
  return symbols;
}

llvm::Error CheckLibraryImports(std::string_view shared_object, const std::vector<std::string>& builtins) {
  auto parsed = llvm::object::ObjectFile::createObjectFile(Ref(shared_object, "kernel.so"));
  const auto* elf = parsed ? llvm::dyn_cast<llvm::object::ELFObjectFileBase>(parsed->get()) : nullptr;
  if (elf == nullptr) {
    if (!parsed) llvm::consumeError(parsed.takeError());
    return ToolchainFailure("lld's output is not an ELF shared object");
  }
  std::set<std::string> refused;
  for (const llvm::object::ELFSymbolRef& symbol : elf->getDynamicSymbolIterators()) {
    auto flags = symbol.getFlags();
    auto name = symbol.getName();
    if (!flags || !name) {
      llvm::consumeError(flags.takeError());
      llvm::consumeError(name.takeError());
      return ToolchainFailure("cannot read the dynamic symbols of lld's output");
    }
    if (name->empty() || !(*flags & llvm::object::SymbolRef::SF_Undefined)) continue;
    auto import = Classify(*name);
    if (!import) return import.takeError();
    if (*import == Import::kOther) refused.insert(name->str());
  }
  if (refused.empty()) return llvm::Error::success();
  if (builtins.empty()) {
    return BadInput("the linked library imports symbols a kernel library may not import: " +
                    llvm::join(refused, ", ") + kAllowedText);
  }
  return BadInput("compiler-rt's builtins the module calls (" + llvm::join(builtins, ", ") +
                  ") need symbols a kernel library may not import: " + llvm::join(refused, ", ") + kAllowedText);
}

}  // namespace qdcache::compiler
