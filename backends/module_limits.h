// The checks of the structural limits in ir_limits.h, as LLVM errors for the
// IR reader (INVALID_ARGUMENT CompileErrors).
#pragma once

#include <string_view>

#include "compiler/ir_limits.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace qdcache::compiler {

// INVALID_ARGUMENT naming the line:column and kMaxIrNestingDepth when text
// IR nests deeper than the limit; success otherwise.
[[nodiscard]] llvm::Error CheckTextNesting(std::string_view text);

// For a parsed (not yet verified) module, text or bitcode: INVALID_ARGUMENT
// when a type used by the module (through named structs too) or a constant
// (expressions and aggregates, below global values) nests deeper than
// kMaxIrNestingDepth, when a type contains itself, or when one type or all
// constant operands together expand to more than kMaxSpelledOutNodes. Iterative
// and memoized: linear in the number of distinct types and constants.
[[nodiscard]] llvm::Error CheckModuleNesting(const llvm::Module& module);

}  // namespace qdcache::compiler
