// Bytes -> verified llvm::Module. Textual IR and bitcode (raw or with the
// 0x0B17C0DE wrapper) are told apart by their magic; bitcode from older LLVM
// releases is auto-upgraded by the reader.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace qdcache::compiler {

// Refuses (INVALID_ARGUMENT): empty or whitespace-only input; bytes that are
// recognizably something else (gzip, ELF, UTF-16, ...: input_sniff.h); text IR
// with a NUL byte (LLVM's lexer would silently stop there); text IR nesting
// deeper than the parser can safely recurse, and modules whose types or
// constants nest too deep or expand too far (ir_limits.h); syntax errors,
// reported as "line:column: message"; truncated or invalid bitcode; modules
// the IR verifier rejects. Broken debug info, or debug info of another
// version, is not fatal: it is stripped and a warning is appended to `log`.
// Never exits the process: on first use it turns off LLVM's debug-info
// auto-upgrade (process-wide), which calls report_fatal_error for a module
// the verifier rejects when it carries debug info of the current version.
[[nodiscard]] llvm::Expected<std::unique_ptr<llvm::Module>> ReadModule(std::string_view bytes,
                                                                       llvm::LLVMContext& context,
                                                                       std::string& log);

}  // namespace qdcache::compiler
