// Text IR -> bitcode with this process's LLVM, for tools and tests that need
// bitcode without an llvm-as binary.
#pragma once

#include <string>
#include <string_view>

#include "common/expected.h"

namespace qdcache::compiler {

// Reads `ir` as Compile does (same refusals) and writes it as LLVM 19
// bitcode. Thread-safe.
[[nodiscard]] Expected<std::string> AssembleBitcode(std::string_view ir);

}  // namespace qdcache::compiler
