// LLVM-side error values for the compile path. Everything inside compiler/
// returns llvm::Error / llvm::Expected carrying a CompileError, so the
// qdcache::Code (bad input vs. toolchain failure vs. missing support) travels
// with the message; ToStatus() converts once, at the compiler.h boundary.
#pragma once

#include <string>
#include <utility>

#include "common/status.h"
#include "llvm/Support/Error.h"

namespace qdcache::compiler {

class CompileError : public llvm::ErrorInfo<CompileError> {
 public:
  static char ID;

  CompileError(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  void log(llvm::raw_ostream& os) const override { os << message_; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

  [[nodiscard]] Code code() const { return code_; }
  [[nodiscard]] const std::string& text() const { return message_; }

 private:
  Code code_;
  std::string message_;
};

// The input (IR, target, options) is at fault: INVALID_ARGUMENT.
[[nodiscard]] inline llvm::Error BadInput(const llvm::Twine& message) {
  return llvm::make_error<CompileError>(Code::kInvalidArgument, message.str());
}
// The toolchain failed on input it should have handled: INTERNAL.
[[nodiscard]] inline llvm::Error ToolchainFailure(const llvm::Twine& message) {
  return llvm::make_error<CompileError>(Code::kInternal, message.str());
}
// The request is fine but this build / installation cannot serve it.
[[nodiscard]] inline llvm::Error NotAvailable(const llvm::Twine& message) {
  return llvm::make_error<CompileError>(Code::kFailedPrecondition, message.str());
}

// Consumes `error`. CompileErrors keep their code; any other LLVM error is a
// toolchain failure (INTERNAL). Precondition: `error` is a failure.
[[nodiscard]] Status ToStatus(llvm::Error error);

}  // namespace qdcache::compiler
