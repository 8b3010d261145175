#include "backends/module_conform.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "backends/compile_error.h"
#include "backends/llvm_targets.h"
#include "backends/object_sizes.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Type.h"
#include "llvm/TargetParser/Triple.h"

namespace qdcache::compiler {
namespace {

llvm::Error CheckTriple(const llvm::Module& module, const Target& target) {
  const std::string& text = module.getTargetTriple();
  if (text.empty()) return llvm::Error::success();
  const llvm::Triple triple(text);
  const std::string where = "module triple '" + text + "' contradicts target " + target.ToString();
  if (target.kind == TargetKind::kCuda) {
    if (triple.getArch() == llvm::Triple::nvptx) {
      return BadInput(where + ": 32-bit nvptx is not supported, use " + kCudaTriple);
    }
    if (triple.getArch() != llvm::Triple::nvptx64)
      return BadInput(where + " (expected " + kCudaTriple + ")");
    return llvm::Error::success();
  }
  if (target.kind == TargetKind::kAmdgpu) {
    if (triple.getArch() != llvm::Triple::amdgcn)
      return BadInput(where + " (expected " + kAmdgpuTriple + ")");
    if (triple.getOS() != llvm::Triple::AMDHSA) {
      return BadInput(where + ": only HSA code objects (" + kAmdgpuTriple + ") are made, not " +
                      triple.getOSName() + " ones");
    }
    return llvm::Error::success();
  }
  if (triple.getArch() != llvm::Triple::x86_64)
    return BadInput(where + " (expected " + kCpuTriple + ")");
  if (triple.isX32()) return BadInput(where + ": the x32 ABI is not supported");
  if (!triple.isOSBinFormatELF()) return BadInput(where + ": only ELF (Linux) x86-64 is supported");
  return llvm::Error::success();
}

// Datalayout rule. llc simply replaces a module's datalayout with the
// target's; that is only sound when the frontend laid out memory the same
// way. We therefore compare what frontends bake into the IR (endianness,
// pointer sizes and alignments of the address spaces in use, ABI alignment of
// the scalar and common vector types) and ignore what is only a codegen hint
// (native integer widths, stack alignment, mangling) and i128, whose
// alignment LLVM itself changed (NVPTX modules from LLVM < 18 lack "i128:128";
// LLVM 19's AutoUpgrade adds it for x86 only). Compatible modules then get the
// target's exact datalayout.
std::optional<std::string> LayoutMismatch(const llvm::DataLayout& module,
                                          const llvm::DataLayout& target,
                                          llvm::LLVMContext& context) {
  if (module.isLittleEndian() != target.isLittleEndian()) return "endianness differs";
  for (unsigned as : {0u, 1u, 3u, 4u, 5u}) {
    if (module.getPointerSizeInBits(as) != target.getPointerSizeInBits(as)) {
      return "pointers in address space " + std::to_string(as) + " are " +
             std::to_string(module.getPointerSizeInBits(as)) + "-bit, the target's are " +
             std::to_string(target.getPointerSizeInBits(as)) + "-bit";
    }
    if (module.getPointerABIAlignment(as) != target.getPointerABIAlignment(as)) {
      return "pointer alignment in address space " + std::to_string(as) + " differs";
    }
  }
  llvm::Type* types[] = {
      llvm::Type::getInt8Ty(context),
      llvm::Type::getInt16Ty(context),
      llvm::Type::getInt32Ty(context),
      llvm::Type::getInt64Ty(context),
      llvm::Type::getHalfTy(context),
      llvm::Type::getFloatTy(context),
      llvm::Type::getDoubleTy(context),
      llvm::FixedVectorType::get(llvm::Type::getFloatTy(context), 2),
      llvm::FixedVectorType::get(llvm::Type::getFloatTy(context), 4),
  };
  for (llvm::Type* type : types) {
    if (module.getABITypeAlign(type) != target.getABITypeAlign(type)) {
      std::string name;
      llvm::raw_string_ostream os(name);
      type->print(os);
      return "ABI alignment of " + name + " is " +
             std::to_string(module.getABITypeAlign(type).value()) + ", the target's is " +
             std::to_string(target.getABITypeAlign(type).value());
    }
  }
  return std::nullopt;
}

// A name length past which nvJitLink 13's verbose log crashes (~100 KB).
constexpr std::size_t kMaxCudaFunctionNameBytes = 64 << 10;

llvm::Error CheckCudaFunctionNames(const llvm::Module& module) {
  for (const llvm::Function& f : module) {
    if (f.getName().size() > kMaxCudaFunctionNameBytes) {
      return BadInput("function name of " + llvm::Twine(f.getName().size()) +
                      " bytes is longer than the " + llvm::Twine(kMaxCudaFunctionNameBytes) +
                      " bytes nvJitLink can take ('" + f.getName().take_front(32) + "...')");
    }
  }
  return llvm::Error::success();
}

// Whether a statement of `text` may be an assembler directive: one that
// begins with '.' or has a '.' after a ':' (a label, quoted or not, then a
// directive), blanks skipped. "s_branch .L1", "1.0" and "s[0:1]" are none.
// Statements end at any control character (the assembler ends them at '\n'
// and '\r') and at ';' and '#' (comment characters): splitting at more
// places than the assembler does only checks more text.
bool HasAssemblerDirective(llvm::StringRef text) {
  static const std::string kEnds = [] {
    std::string ends = ";#";
    for (char c = 1; c < ' '; ++c) {
      if (c != '\t') ends += c;
    }
    return ends + '\x7f' + '\0';
  }();
  while (!text.empty()) {
    const std::size_t end = text.find_first_of(llvm::StringRef(kEnds.data(), kEnds.size()));
    const llvm::StringRef statement = text.take_front(end);
    text = end == llvm::StringRef::npos ? llvm::StringRef() : text.drop_front(end + 1);
    if (statement.ltrim().starts_with(".")) return true;
    for (std::size_t colon = statement.find(':'); colon != llvm::StringRef::npos;
         colon = statement.find(':', colon + 1)) {
      if (statement.drop_front(colon + 1).ltrim().starts_with(".")) return true;
    }
  }
  return false;
}

bool IsAmdgpuConvention(llvm::CallingConv::ID convention) {
  switch (convention) {
    case llvm::CallingConv::C:
    case llvm::CallingConv::Fast:
    case llvm::CallingConv::Cold:
    case llvm::CallingConv::AMDGPU_KERNEL:
    case llvm::CallingConv::SPIR_KERNEL:
      return true;
    default:
      return false;
  }
}

// One call in @f: a calling convention codegen can lower, no call of a
// kernel (kernels are entered by the runtime only; LLVM aborts on such a
// call), and inline assembly of instructions only: no directive, and no
// operand naming a global, whose symbol name the assembler would read as
// text ("${0:c}" of a global named ".incbin" is a directive).
llvm::Error CheckAmdgpuCall(const llvm::Function& f, const llvm::CallBase& call) {
  const std::string where = "a call in @" + f.getName().str();
  if (call.isInlineAsm()) {
    const auto* assembly = llvm::cast<llvm::InlineAsm>(call.getCalledOperand());
    if (HasAssemblerDirective(assembly->getAsmString())) {
      return BadInput("inline assembly in @" + f.getName().str() +
                      " holds an assembler directive; only instructions are accepted for AMDGPU targets");
    }
    for (const llvm::Use& arg : call.args()) {
      const auto* constant = llvm::dyn_cast<llvm::Constant>(arg.get());
      if (constant != nullptr && !llvm::isa<llvm::ConstantData>(constant)) {
        return BadInput("inline assembly in @" + f.getName().str() +
                        " takes a global or constant expression as an operand; AMDGPU inline assembly may take "
                        "registers and plain constants only");
      }
    }
    return llvm::Error::success();
  }
  if (!IsAmdgpuConvention(call.getCallingConv())) {
    return BadInput(where + " uses calling convention " + llvm::Twine(static_cast<unsigned>(call.getCallingConv())) +
                    ", which HSA code objects do not use");
  }
  const llvm::Function* callee = call.getCalledFunction();
  if (call.getCallingConv() == llvm::CallingConv::AMDGPU_KERNEL ||
      (callee != nullptr && callee->getCallingConv() == llvm::CallingConv::AMDGPU_KERNEL)) {
    return BadInput(where + " calls a kernel; kernels are launched, never called");
  }
  return llvm::Error::success();
}

// What the AMDGPU backend cannot take, or must not be handed:
// - calling conventions of other targets (ptx_kernel, x86 ones), on
//   functions or calls, and calls of kernels, on which codegen aborts;
// - thread_local globals and ifuncs, which it cannot lower;
// - module-level assembly, and inline assembly with assembler directives
//   (.incbin and .include would make the daemon read files; .macro can
//   spell them): AMDGPU kernels use inline assembly for instructions
//   ("s_waitcnt vmcnt(0)"), which stays accepted;
// - LDS (addrspace 3) variables with a non-undef initial value and private
//   (addrspace 5) variables, which codegen cannot place.
llvm::Error CheckAmdgpuModule(const llvm::Module& module) {
  if (!module.getModuleInlineAsm().empty()) {
    return BadInput("module-level inline assembly is not accepted for AMDGPU targets");
  }
  if (!module.ifunc_empty()) {
    return BadInput("the module has an ifunc (@" + module.ifuncs().begin()->getName().str() +
                    "); AMDGPU code objects cannot resolve functions at load time");
  }
  for (const llvm::GlobalVariable& g : module.globals()) {
    const unsigned as = g.getAddressSpace();
    if (g.isThreadLocal()) {
      return BadInput("global @" + g.getName().str() + " is thread_local; AMDGPU has no thread-local storage");
    }
    if (as == 5) {
      return BadInput("global @" + g.getName().str() +
                      " is in addrspace(5) (private): AMDGPU has no global private variables");
    }
    if (as == 3 && g.hasInitializer() && !llvm::isa<llvm::UndefValue>(g.getInitializer())) {
      return BadInput("global @" + g.getName().str() +
                      " in addrspace(3) (LDS) has an initial value; LDS variables can only be undef");
    }
  }
  for (const llvm::Function& f : module) {
    if (!IsAmdgpuConvention(f.getCallingConv())) {
      return BadInput("@" + f.getName().str() + " has calling convention " +
                      llvm::Twine(static_cast<unsigned>(f.getCallingConv())) +
                      ", which HSA code objects do not use (kernels are amdgpu_kernel, other functions the C "
                      "convention)");
    }
    for (const llvm::BasicBlock& block : f) {
      for (const llvm::Instruction& inst : block) {
        const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
        if (call == nullptr) continue;
        if (llvm::Error error = CheckAmdgpuCall(f, *call)) return error;
      }
    }
  }
  return llvm::Error::success();
}

// Inputs the backends cannot take that the verifier accepts. Both would end in
// report_fatal_error (process exit) or in the assembler reading files.
llvm::Error CheckBackendPreconditions(const llvm::Module& module, const Target& target) {
  if (llvm::Error error = CheckObjectSizes(module, target)) return error;
  if (target.kind == TargetKind::kCuda) {
    if (llvm::Error error = CheckCudaFunctionNames(module)) return error;
    for (const char* name : {"llvm.global_ctors", "llvm.global_dtors"}) {
      const llvm::GlobalVariable* list = module.getNamedGlobal(name);
      if (list != nullptr && list->hasInitializer() && !list->getInitializer()->isNullValue()) {
        return BadInput(std::string("the module has ") + name +
                        ": NVPTX does not support global constructors or destructors");
      }
    }
    // Only generic (0), global (1) and constant (4) variables may carry
    // initial values; shared (3) and local (5) ones only zero or undef.
    for (const llvm::GlobalVariable& g : module.globals()) {
      const unsigned as = g.getAddressSpace();
      if (as != 0 && as != 1 && as != 4 && g.hasInitializer() &&
          !g.getInitializer()->isNullValue() && !llvm::isa<llvm::UndefValue>(g.getInitializer())) {
        return BadInput("global @" + g.getName().str() + " in addrspace(" + std::to_string(as) +
                        ") has an initial value; only global and constant memory can");
      }
    }
    return llvm::Error::success();
  }
  if (target.kind == TargetKind::kAmdgpu) return CheckAmdgpuModule(module);
  // CPU: the integrated assembler would honour .incbin/.include and read files
  // of the daemon's choosing on the client's behalf; refuse assembly text.
  if (!module.getModuleInlineAsm().empty()) {
    return BadInput("module-level inline assembly is not accepted for CPU targets");
  }
  for (const llvm::Function& f : module) {
    for (const llvm::BasicBlock& block : f) {
      for (const llvm::Instruction& inst : block) {
        const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
        if (call != nullptr && call->isInlineAsm()) {
          return BadInput("inline assembly in @" + f.getName().str() +
                          " is not accepted for CPU targets");
        }
      }
    }
  }
  return llvm::Error::success();
}

}  // namespace

llvm::Error ConformModuleToTarget(llvm::Module& module, const Target& target,
                                  const llvm::DataLayout& target_layout) {
  if (llvm::Error error = CheckTriple(module, target)) return error;
  module.setTargetTriple(TripleOf(target.kind));

  if (!module.getDataLayoutStr().empty()) {
    if (auto mismatch =
            LayoutMismatch(module.getDataLayout(), target_layout, module.getContext())) {
      return BadInput("module datalayout '" + module.getDataLayoutStr() +
                      "' is incompatible with target " + target.ToString() + " ('" +
                      target_layout.getStringRepresentation() + "'): " + *mismatch);
    }
  }
  module.setDataLayout(target_layout);
  RemoveFunctionTargetPins(module);
  return CheckBackendPreconditions(module, target);
}

void RemoveFunctionTargetPins(llvm::Module& module) {
  // clang writes the SM / CPU it compiled for; the requested target must win.
  for (llvm::Function& function : module) {
    function.removeFnAttr("target-cpu");
    function.removeFnAttr("target-features");
    function.removeFnAttr("tune-cpu");
  }
}

}  // namespace qdcache::compiler
