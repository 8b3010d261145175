// The symbols of an ELF file, read with LLVM's object library: for the
// checks of what a CPU kernel imports and of what the host libm exports.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "llvm/Support/Error.h"

namespace qdcache::compiler {

struct ElfSymbol {
  std::string name;
  bool undefined = false;
  bool global = false;    // global or weak binding
  bool function = false;  // STT_FUNC or STT_GNU_IFUNC
};

enum class SymbolTable { kStatic, kDynamic };

// The named symbols of `bytes` (an ELF object or shared object; `what` names
// it in errors), from its symbol table or its dynamic symbol table. An error
// when it is not ELF or a symbol cannot be read.
[[nodiscard]] llvm::Expected<std::vector<ElfSymbol>> ReadElfSymbols(std::string_view bytes, std::string_view what,
                                                                    SymbolTable table);

}  // namespace qdcache::compiler
