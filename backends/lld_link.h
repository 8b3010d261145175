// Relocatable x86-64 object -> ELF shared object, and relocatable AMDGPU
// object -> HSA code object, with lld in-process.
#pragma once

#include <string>
#include <string_view>

#include "llvm/Support/Error.h"

namespace qdcache::compiler {

// Runs lld's ELF driver with -shared. lld is not re-entrant, so links are
// serialized by a process-wide mutex; it only reads and writes files, so each
// link hands it memfds and a pipe by their /proc/self/fd paths: no disk is
// touched (a full one included) and nothing is left behind. Symbols linked from
// archives are not exported (--exclude-libs=ALL). lld's messages go to `log`.
struct LinkInputs {
  // The libm this process loaded (host_libm.h: found with dladdr, so no path
  // is hard-coded) becomes a DT_NEEDED dependency, if anything calls it.
  bool libm = false;
  // compiler-rt's builtins archive (its bytes as loaded at start), of which
  // lld links the members the object needs; empty: none.
  std::string_view builtins;
  // An AMDGPU object to an HSA code object: "ld.lld -shared --no-undefined"
  // and nothing else (libm and builtins must be unset).
  bool code_object = false;
};

// INVALID_ARGUMENT with lld's messages when lld rejects the object (the
// client's module is at fault: incompatible section flags, a relocation out of
// range), the files named kernel.o, kernel.so and libclang_rt.builtins.a.
// INTERNAL when lld cannot read or write its files, or reports that it cannot
// safely run again in this process (every later link then fails too: the
// process must be restarted).
[[nodiscard]] llvm::Expected<std::string> LinkSharedObject(std::string_view object, const LinkInputs& inputs,
                                                           std::string& log);

}  // namespace qdcache::compiler
