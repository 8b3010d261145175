#include "backends/ir_reader.h"

#include "compiler/compiler.h"

#include <algorithm>
#include <cctype>

#include "backends/compile_error.h"
#include "compiler/input_sniff.h"
#include "backends/module_limits.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace qdcache::compiler {
namespace {

constexpr char kBufferName[] = "input";

// Both LLVM readers end in llvm::UpgradeDebugInfo, which calls
// report_fatal_error (the process exits) for any module the verifier
// rejects once it carries the current "Debug Info Version" flag: every
// verifier error in `clang -g` output. Its switch is a process-wide LLVM
// option; ReadModule does the non-fatal part itself. False when the linked
// LLVM has no such option.
bool DisableFatalDebugInfoUpgrade() {
  static const bool disabled = [] {
    llvm::StringMap<llvm::cl::Option*>& options = llvm::cl::getRegisteredOptions();
    auto it = options.find("disable-auto-upgrade-debug-info");
    if (it == options.end()) return false;
    // It is AutoUpgrade.cpp's static cl::opt<bool>. Its initial value, not
    // just its value: lld's driver resets every option to its initial value
    // on each link (cl::ResetAllOptionOccurrences), which then rewrites
    // `true` with `true` instead of turning the upgrade back on.
    static_cast<llvm::cl::opt<bool>*>(it->second)->setInitialValue(true);
    return true;
  }();
  return disabled;
}

bool IsBlank(std::string_view bytes) {
  return std::all_of(bytes.begin(), bytes.end(),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

llvm::Expected<std::unique_ptr<llvm::Module>> ParseBitcode(std::string_view bytes,
                                                           llvm::LLVMContext& context) {
  // Raw bitcode is a stream of 32-bit words; LLVM calls any other length an
  // "invalid bitcode signature", which sends users looking in the wrong place.
  constexpr std::string_view kWrapperMagic("\xde\xc0\x17\x0b", 4);
  if (bytes.substr(0, 4) != kWrapperMagic && bytes.size() % 4 != 0) {
    return BadInput("invalid bitcode: " + llvm::Twine(static_cast<uint64_t>(bytes.size())) +
                    " bytes is not a whole number of 32-bit words (truncated, or bytes appended?)");
  }
  // A copy: the bitstream reader wants word-aligned memory.
  std::unique_ptr<llvm::MemoryBuffer> buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(bytes.data(), bytes.size()), kBufferName);
  auto module = llvm::parseBitcodeFile(buffer->getMemBufferRef(), context);
  if (!module) return BadInput("invalid bitcode: " + llvm::toString(module.takeError()));
  return module;
}

llvm::Expected<std::unique_ptr<llvm::Module>> ParseText(std::string_view bytes,
                                                        llvm::LLVMContext& context) {
  const ForeignInput foreign = SniffForeignInput(bytes);
  if (foreign.certain) {
    return BadInput(llvm::Twine("the input is not LLVM IR (text or bitcode): it is ") +
                    llvm::StringRef(foreign.what));
  }
  if (const size_t nul = bytes.find('\0'); nul != std::string_view::npos) {
    return BadInput("text IR contains a NUL byte at offset " +
                    llvm::Twine(static_cast<uint64_t>(nul)));
  }
  // The parser recurses once per nesting level: bound it before it runs.
  if (llvm::Error error = CheckTextNesting(bytes)) return error;
  std::unique_ptr<llvm::MemoryBuffer> buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(bytes.data(), bytes.size()), kBufferName);
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssembly(buffer->getMemBufferRef(), diagnostic, context);
  if (!module) {
    // SMDiagnostic columns are 0-based; editors and compilers count from 1.
    std::string hint;
    if (!foreign.what.empty()) hint = " (the input looks like " + std::string(foreign.what) + ")";
    return BadInput("IR parse error at " + llvm::Twine(diagnostic.getLineNo()) + ":" +
                    llvm::Twine(diagnostic.getColumnNo() + 1) + ": " + diagnostic.getMessage() +
                    hint);
  }
  return module;
}

}  // namespace

llvm::Expected<std::unique_ptr<llvm::Module>> ReadModule(std::string_view bytes,
                                                         llvm::LLVMContext& context,
                                                         std::string& log) {
  if (IsBlank(bytes)) return BadInput("empty input: no IR given");
  if (!DisableFatalDebugInfoUpgrade()) {
    return ToolchainFailure(
        "LLVM lacks -disable-auto-upgrade-debug-info: reading IR could abort the process");
  }
  auto module = IsBitcode(bytes) ? ParseBitcode(bytes, context) : ParseText(bytes, context);
  if (!module) return module.takeError();
  // Bitcode can nest deeper than text, and share what the printer and
  // codegen then spell out in full: bound both before anything walks them.
  if (llvm::Error error = CheckModuleNesting(**module)) return error;

  std::string problems;
  llvm::raw_string_ostream os(problems);
  bool broken_debug_info = false;
  if (llvm::verifyModule(**module, &os, &broken_debug_info)) {
    return BadInput("IR verifier failed: " + llvm::StringRef(problems).trim());
  }
  // The rest of what llvm::UpgradeDebugInfo would have done: broken debug
  // info, or debug info of another version (or with no version flag), is
  // dropped rather than refused.
  if (broken_debug_info) {
    llvm::StripDebugInfo(**module);
    log += "warning: invalid debug info was stripped: " + llvm::StringRef(problems).trim().str() +
           "\n";
  } else if (const unsigned version = llvm::getDebugMetadataVersionFromModule(**module);
             version != llvm::DEBUG_METADATA_VERSION && llvm::StripDebugInfo(**module)) {
    log += "warning: debug info of version " + std::to_string(version) +
           " was stripped (LLVM " LLVM_VERSION_STRING " reads version " +
           std::to_string(llvm::DEBUG_METADATA_VERSION) + ")\n";
  }
  return module;
}

}  // namespace qdcache::compiler
