// What an x86-64 object needs from the outside world, checked before linking
// it into a shared object that clients dlopen.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "llvm/Support/Error.h"

namespace qdcache::compiler {

struct ObjectImports {
  bool needs_libm = false;  // references C math functions: link libm as DT_NEEDED
};

// Undefined symbols must be on a fixed allowlist: memcpy/memmove/memset
// (resolved from libc in any process) and C math functions (libm). Anything
// else is INVALID_ARGUMENT naming the symbols. Each of `entries` must be a
// defined global symbol of the object.
[[nodiscard]] llvm::Expected<ObjectImports> CheckObjectSymbols(
    std::string_view object, const std::vector<std::string>& entries);

}  // namespace qdcache::compiler
