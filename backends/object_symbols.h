// What an x86-64 object needs from the outside world, checked before linking
// it into a shared object that clients dlopen, and again after.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "llvm/Support/Error.h"

namespace qdcache::compiler {

struct ObjectImports {
  bool needs_libm = false;            // references libm functions: link libm as DT_NEEDED
  std::vector<std::string> builtins;  // compiler-rt builtins it calls, sorted: link them statically
};

// Undefined symbols must be one of the libc functions LLVM's code generation
// calls (memcpy, memmove, memset, memcmp, bcmp, __stack_chk_fail) or
// __tls_get_addr (resolved from libc and the dynamic loader in any process),
// a function of the host libm a kernel may import (host_libm.h), or
// a symbol `builtins` defines (compiler-rt's builtins archive). Anything else
// is INVALID_ARGUMENT naming the symbols, except that while the builtins are
// unavailable (`builtins_missing` says why; empty when they are not) symbols
// of compiler-rt's reserved form (`__name`) are FAILED_PRECONDITION: this
// daemon cannot serve the module, another could. Each of `entries` must be a
// defined global symbol of the object.
[[nodiscard]] llvm::Expected<ObjectImports> CheckObjectSymbols(std::string_view object,
                                                               const std::vector<std::string>& entries,
                                                               const std::set<std::string>& builtins,
                                                               std::string_view builtins_missing);

// The global symbols the members of an ar archive define, from its symbol
// table. INVALID_ARGUMENT-free: an error means `archive` is not one.
[[nodiscard]] llvm::Expected<std::set<std::string>> ArchiveSymbols(std::string_view archive);

// For a shared object linked with `builtins` (non-empty): every undefined
// symbol of its dynamic symbol table is one CheckObjectSymbols allows from
// libc or libm. What those builtins needed beyond that (abort, malloc, the
// unwinder) is INVALID_ARGUMENT naming the symbols and the builtins.
[[nodiscard]] llvm::Error CheckLibraryImports(std::string_view shared_object,
                                              const std::vector<std::string>& builtins);

}  // namespace qdcache::compiler
