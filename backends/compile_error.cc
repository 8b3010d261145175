#include "backends/compile_error.h"

namespace qdcache::compiler {

char CompileError::ID = 0;

Status ToStatus(llvm::Error error) {
  Status status = Internal("unknown compiler error");
  llvm::handleAllErrors(
      std::move(error), [&](const CompileError& e) { status = Status(e.code(), e.text()); },
      [&](const llvm::ErrorInfoBase& e) { status = Internal(e.message()); });
  return status;
}

}  // namespace qdcache::compiler
