#include "backends/ir_assembler.h"

#include "backends/compile_error.h"
#include "backends/diagnostics.h"
#include "backends/ir_reader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/raw_ostream.h"

namespace qdcache::compiler {

Expected<std::string> AssembleBitcode(std::string_view ir) {
  llvm::LLVMContext context;
  DiagnosticCollector diagnostics(context);
  std::string log;
  auto module = ReadModule(ir, context, log);
  if (!module) return ToStatus(module.takeError());
  if (llvm::Error error = diagnostics.TakeError("parsing")) return ToStatus(std::move(error));
  std::string bitcode;
  llvm::raw_string_ostream os(bitcode);
  llvm::WriteBitcodeToFile(**module, os);
  os.flush();
  return bitcode;
}

}  // namespace qdcache::compiler
