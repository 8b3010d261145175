#include "backends/diagnostics.h"

#include <memory>
#include <utility>

#include "backends/compile_error.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/Support/raw_ostream.h"

namespace qdcache::compiler {
namespace {

class Handler : public llvm::DiagnosticHandler {
 public:
  explicit Handler(DiagnosticCollector* collector) : collector_(collector) {}
  bool handleDiagnostics(const llvm::DiagnosticInfo& info) override {
    collector_->Record(info);
    return true;
  }

 private:
  DiagnosticCollector* collector_;
};

}  // namespace

DiagnosticCollector::DiagnosticCollector(llvm::LLVMContext& context, std::string log) : log_(std::move(log)) {
  // RespectFilters: remarks reach the log only when enabled (as in clang),
  // not every missed-optimization note of every pass.
  context.setDiagnosticHandler(std::make_unique<Handler>(this), /*RespectFilters=*/true);
}

void DiagnosticCollector::Record(const llvm::DiagnosticInfo& info) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::DiagnosticPrinterRawOStream printer(os);
  info.print(printer);
  os.flush();
  switch (info.getSeverity()) {
    case llvm::DS_Error:
      if (first_error_.empty()) first_error_ = text;
      log_ += "error: " + text + "\n";
      break;
    case llvm::DS_Warning:
      log_ += "warning: " + text + "\n";
      break;
    case llvm::DS_Remark:
      log_ += "remark: " + text + "\n";
      break;
    case llvm::DS_Note:
      log_ += "note: " + text + "\n";
      break;
  }
}

llvm::Error DiagnosticCollector::TakeError(llvm::StringRef stage) {
  if (first_error_.empty()) return llvm::Error::success();
  std::string message = std::move(first_error_);
  first_error_.clear();
  return BadInput("LLVM reported an error during " + stage + ": " + message);
}

}  // namespace qdcache::compiler
