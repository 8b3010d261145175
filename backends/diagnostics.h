// Routes an LLVMContext's diagnostics into the compile log instead of stderr,
// and remembers errors (LLVM's default handler would exit the process on one).
#pragma once

#include <string>

#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/Error.h"

namespace qdcache::compiler {

class DiagnosticCollector {
 public:
  // Installs itself as `context`'s handler; must outlive the compile.
  // `log`: what was reported before (a parse kept_parse.h kept).
  explicit DiagnosticCollector(llvm::LLVMContext& context, std::string log = {});

  void Record(const llvm::DiagnosticInfo& info);

  // Warnings, remarks and notes so far, one per line, prefixed by severity.
  [[nodiscard]] const std::string& log() const { return log_; }
  // INVALID_ARGUMENT naming the first error LLVM reported during `stage`, or
  // success. Errors during parsing/codegen come from the input (unsupported
  // inline asm, invalid intrinsics for the target, ...).
  [[nodiscard]] llvm::Error TakeError(llvm::StringRef stage);

 private:
  std::string log_;
  std::string first_error_;
};

}  // namespace qdcache::compiler
