#include "backends/object_symbols.h"

#include <algorithm>

#include "backends/compile_error.h"
#include "backends/elf_symbols.h"
#include "backends/host_libm.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/Archive.h"
#include "llvm/Support/MemoryBuffer.h"

namespace qdcache::compiler {
namespace {

// What LLVM's code generation itself calls on x86-64 Linux, all pure or
// aborting: memcpy/memmove/memset (copies), memcmp/bcmp (LLVM turns an
// equality memcmp into bcmp), __stack_chk_fail (functions built with a stack
// protector, the default of several distributions' compilers), and
// __tls_get_addr (the dynamic loader's: thread_local variables of a library
// loaded with dlopen).
constexpr llvm::StringRef kLibcAllowed[] = {"memcpy", "memmove",          "memset",        "memcmp",
                                            "bcmp",   "__stack_chk_fail", "__tls_get_addr"};
constexpr const char* kAllowedText =
    " (allowed: memcpy, memmove, memset, memcmp, bcmp, __stack_chk_fail, __tls_get_addr, the C math functions of "
    "libm and compiler-rt's builtins)";

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
                                                 const std::set<std::string>& builtins,
                                                 std::string_view builtins_missing) {
  auto symbols = ReadElfSymbols(object, "the object X86 codegen produced", SymbolTable::kStatic);
  if (!symbols) return symbols.takeError();

  ObjectImports imports;
  std::set<std::string> refused;
  std::set<std::string> defined;
  std::set<std::string> needed_builtins;
  for (const ElfSymbol& symbol : *symbols) {
    if (symbol.undefined) {
      auto import = Classify(symbol.name);
      if (!import) return import.takeError();
      if (*import == Import::kLibm) {
        imports.needs_libm = true;
      } else if (*import == Import::kOther) {
        (builtins.count(symbol.name) ? needed_builtins : refused).insert(symbol.name);
      }
    } else if (symbol.global) {
      defined.insert(symbol.name);
    }
  }
  if (!refused.empty() && !builtins_missing.empty()) {
    std::vector<std::string> reserved;
    for (const std::string& name : refused) {
      if (llvm::StringRef(name).starts_with("__")) reserved.push_back(name);
    }
    if (!reserved.empty()) {
      return NotAvailable("the module needs " + llvm::join(reserved, ", ") +
                          ", which CPU kernels link from compiler-rt's builtins, and this daemon has none (" +
                          std::string(builtins_missing) + "; Debian: libclang-rt-19-dev, found when qdcached is built)");
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
  llvm::object::Archive parsed(llvm::MemoryBufferRef(llvm::StringRef(archive.data(), archive.size()), "builtins.a"),
                               error);
  if (error) return error;
  std::set<std::string> symbols;
  for (const llvm::object::Archive::Symbol& symbol : parsed.symbols()) symbols.insert(symbol.getName().str());
  if (symbols.empty()) return ToolchainFailure("the archive has no symbol table");
  return symbols;
}

llvm::Error CheckLibraryImports(std::string_view shared_object, const std::vector<std::string>& builtins) {
  auto symbols = ReadElfSymbols(shared_object, "lld's output", SymbolTable::kDynamic);
  if (!symbols) return symbols.takeError();
  std::set<std::string> refused;
  for (const ElfSymbol& symbol : *symbols) {
    if (!symbol.undefined) continue;
    auto import = Classify(symbol.name);
    if (!import) return import.takeError();
    if (*import == Import::kOther) refused.insert(symbol.name);
  }
  if (refused.empty()) return llvm::Error::success();
  return BadInput("compiler-rt's builtins the module calls (" + llvm::join(builtins, ", ") +
                  ") need symbols a kernel library may not import: " + llvm::join(refused, ", ") + kAllowedText);
}

}  // namespace qdcache::compiler
