#include "backends/canonical_ir.h"

#include <array>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "backends/compile_error.h"
#include "backends/diagnostics.h"
#include "backends/ir_reader.h"
#include "backends/kept_parse.h"
#include "backends/llvm_targets.h"
#include "backends/module_conform.h"
#include "common/compile_options.h"
#include "backends/target_machine.h"
#include "backends/target_validation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

namespace qdcache::compiler {
namespace {

// Bump when the canonicalization or serialization changes.
constexpr std::string_view kFormatTag = "qdcache-canonical-ir-v1";

// Feeds everything written to it into a hasher instead of memory.
class HashingOstream final : public llvm::raw_ostream {
 public:
  explicit HashingOstream(Sha256Hasher& hasher) : hasher_(hasher) {}
  ~HashingOstream() override { flush(); }

 private:
  void write_impl(const char* data, size_t size) override {
    hasher_.Update(std::string_view(data, size));
    position_ += size;
  }
  uint64_t current_pos() const override { return position_; }

  Sha256Hasher& hasher_;
  uint64_t position_ = 0;
};

// The target's datalayout as Compile's TargetMachine gives it. It depends on
// the triple only (NVPTX: 64-bit pointers; X86: ELF x86-64; AMDGPU: amdhsa),
// never on the SM, processor, CPU or features, so one TargetMachine per kind and process is enough.
llvm::Expected<std::string> TargetDataLayout(const Target& target) {
  static std::mutex mutex;
  static std::array<std::string, 3> layouts;  // indexed by TargetKind
  std::lock_guard lock(mutex);
  std::string& layout = layouts.at(static_cast<std::size_t>(target.kind));
  if (layout.empty()) {
    auto machine = CreateTargetMachine(target, CompileOptions{});
    if (!machine) return machine.takeError();
    layout = (*machine)->createDataLayout().getStringRepresentation();
  }
  return layout;
}

// Names of arguments, blocks and instructions never reach an artifact.
void StripLocalNames(llvm::Module& module) {
  for (llvm::Function& function : module) {
    for (llvm::Argument& argument : function.args()) {
      if (argument.hasName()) argument.setName("");
    }
    for (llvm::BasicBlock& block : function) {
      if (block.hasName()) block.setName("");
      for (llvm::Instruction& inst : block) {
        if (inst.hasName()) inst.setName("");
      }
    }
  }
}

// Module flags that only describe debug info: without a compile unit no
// backend reads them (clang -g adds all three; assignment tracking from -O1).
constexpr llvm::StringLiteral kDebugInfoModuleFlags[] = {"Debug Info Version", "Dwarf Version",
                                                         "debug-info-assignment-tracking"};

// What StripDebugInfo leaves behind: the debug-info module flags.
void DropDebugInfoModuleFlags(llvm::Module& module) {
  if (llvm::NamedMDNode* flags = module.getModuleFlagsMetadata()) {
    llvm::SmallVector<llvm::MDNode*, 8> kept;
    for (llvm::MDNode* flag : flags->operands()) {
      const auto* key = flag->getNumOperands() == 3
                            ? llvm::dyn_cast_or_null<llvm::MDString>(flag->getOperand(1))
                            : nullptr;
      if (key != nullptr && llvm::is_contained(kDebugInfoModuleFlags, key->getString())) continue;
      kept.push_back(flag);
    }
    if (kept.size() != flags->getNumOperands()) {
      flags->clearOperands();
      for (llvm::MDNode* flag : kept) flags->addOperand(flag);
      if (kept.empty()) flags->eraseFromParent();
    }
  }
}

// Unused llvm.dbg.* declarations: the text parser keeps them after turning
// dbg.value calls into debug records, a bitcode round trip does not.
void RemoveUnusedDebugIntrinsicDeclarations(llvm::Module& module) {
  for (llvm::Function& function : llvm::make_early_inc_range(module)) {
    if (function.isDeclaration() && function.use_empty() &&
        function.getName().starts_with("llvm.dbg."))
      function.eraseFromParent();
  }
}

// The canonical form of a module conformed to its target, printed into
// SHA-256 (canonical_ir.h). Changes the module.
Digest DigestOfCanonicalModule(llvm::Module& module, bool keep_debug_info) {
  module.setModuleIdentifier("");
  StripLocalNames(module);
  if (!keep_debug_info) {
    // Compile strips debug info too and then names the source "kernel".
    llvm::StripDebugInfo(module);
    DropDebugInfoModuleFlags(module);
    module.setSourceFileName("");
  }
  RemoveUnusedDebugIntrinsicDeclarations(module);

  Sha256Hasher hasher;
  hasher.UpdateField(kFormatTag);
  hasher.UpdateField(LLVM_VERSION_STRING);
  hasher.UpdateField(keep_debug_info ? "debug-info" : "no-debug-info");
  {
    HashingOstream stream(hasher);
    module.print(stream, /*AAW=*/nullptr);
  }
  return hasher.Finish();
}

}  // namespace

llvm::Expected<Digest> ComputeCanonicalIrDigest(std::string_view ir, const Target& requested,
                                                bool keep_debug_info, bool keep_parse) {
  InitializeLlvmTargets();
  Expected<Target> target = NormalizeTarget(requested);
  if (!target.ok())
    return llvm::make_error<CompileError>(target.status().code(), target.status().message());
  if (llvm::Error error = CheckTargetSupported(*target)) return error;
  auto layout = TargetDataLayout(*target);
  if (!layout) return layout.takeError();

  // A parse kept before is not kept past this one: at most one module (and
  // this digest's copy) is held at a time.
  if (keep_parse) DropKeptParse();
  auto parsed = std::make_unique<ParsedIr>();
  parsed->context = std::make_unique<llvm::LLVMContext>();
  DiagnosticCollector diagnostics(*parsed->context);  // outlives every module of the context here
  std::unique_ptr<llvm::Module> module;
  {
    const auto start = std::chrono::steady_clock::now();
    auto read = ReadModule(ir, *parsed->context, parsed->reader_log);
    if (!read) return read.takeError();
    if (llvm::Error error = diagnostics.TakeError("parsing")) return error;
    if (!keep_parse) {
      module = std::move(*read);
    } else {
      // Kept, the module goes to the compile as read (with what the parse
      // reported; what LLVM reports later is not looked at), and this
      // digest works on a copy.
      parsed->parse_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      parsed->diagnostics = diagnostics.log();
      module = llvm::CloneModule(**read);
      parsed->module = std::move(*read);
    }
  }
  if (llvm::Error error = ConformModuleToTarget(*module, *target, llvm::DataLayout(*layout))) {
    return error;
  }
  const Digest digest = DigestOfCanonicalModule(*module, keep_debug_info);
  module.reset();
  if (keep_parse) {
    // The compile that takes the parse installs its own collector.
    parsed->context->setDiagnosticHandler(std::make_unique<llvm::DiagnosticHandler>());
    parsed->ir.assign(ir);
    KeepParse(std::move(parsed));
  }
  return digest;
}

}  // namespace qdcache::compiler
