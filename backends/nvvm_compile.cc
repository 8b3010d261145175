#include "backends/nvvm_compile.h"

#include <vector>

#include "backends/c_api.h"
#include "backends/compile_error.h"
#include "backends/cuda_libraries.h"
#include "llvm/ADT/StringRef.h"

#ifdef QDCACHE_HAVE_NVVM
#include <nvvm.h>
#endif

namespace qdcache::compiler {

std::vector<std::string> NvvmOptionArgs(const std::string& sm, const CompileOptions& options) {
  std::string arch = sm;
  if (llvm::StringRef(arch).starts_with("sm_")) arch = "compute_" + arch.substr(3);
  std::vector<std::string> args = {"-arch=" + arch, options.opt_level == 0 ? "-opt=0" : "-opt=3"};
  if (options.fast_math) {
    for (const char* a : {"-ftz=1", "-prec-div=0", "-prec-sqrt=0"}) args.emplace_back(a);
  }
  if (!options.fmad) args.emplace_back("-fma=0");
  if (options.debug) args.emplace_back("-g");
  return args;
}

#ifndef QDCACHE_HAVE_NVVM

std::string NvvmVersion() { return "none"; }

llvm::Expected<std::string> CompileNvvmToPtx(std::string_view, const std::string&, const CompileOptions&,
                                             std::string_view) {
  return NotAvailable("built without libNVVM");
}

#else

namespace {

using NvvmProgram = ApiHandle<nvvmProgram, nvvmDestroyProgram>;

std::string Log(nvvmProgram program) {
  return llvm::StringRef(ReadApiText([&](size_t* n) { return nvvmGetProgramLogSize(program, n) == NVVM_SUCCESS; },
                                     [&](char* text) { return nvvmGetProgramLog(program, text) == NVVM_SUCCESS; }))
      .trim()
      .str();
}

// Results that mean "this input or these options are wrong".
bool IsInputError(nvvmResult result) {
  switch (result) {
    case NVVM_ERROR_IR_VERSION_MISMATCH:
    case NVVM_ERROR_INVALID_INPUT:
    case NVVM_ERROR_INVALID_IR:
    case NVVM_ERROR_INVALID_OPTION:
    case NVVM_ERROR_NO_MODULE_IN_PROGRAM:
    case NVVM_ERROR_COMPILATION:
      return true;
    default:
      return false;
  }
}

llvm::Error Failure(const char* step, nvvmResult result, nvvmProgram program) {
  const std::string log = program != nullptr ? Log(program) : "";
  const std::string message = "libNVVM " + std::string(step) + " failed (" + nvvmGetErrorString(result) + ")" +
                              (log.empty() ? "" : ": " + log);
  return IsInputError(result) ? BadInput(message) : ToolchainFailure(message);
}

}  // namespace

std::string NvvmVersion() {
  if (!CudaLibraryError(CudaLibrary::kNvvm).empty()) return "none";
  int major = 0, minor = 0, ir_major = 0, ir_minor = 0, debug_major = 0, debug_minor = 0;
  if (nvvmVersion(&major, &minor) != NVVM_SUCCESS ||
      nvvmIRVersion(&ir_major, &ir_minor, &debug_major, &debug_minor) != NVVM_SUCCESS) {
    return "probe-failed:nvvm";
  }
  return std::to_string(major) + "." + std::to_string(minor) + " (IR " + std::to_string(ir_major) + "." +
         std::to_string(ir_minor) + ", debug " + std::to_string(debug_major) + "." + std::to_string(debug_minor) + ")";
}

llvm::Expected<std::string> CompileNvvmToPtx(std::string_view ir, const std::string& sm,
                                             const CompileOptions& options, std::string_view libdevice) {
  if (const std::string& missing = CudaLibraryError(CudaLibrary::kNvvm); !missing.empty()) return NotAvailable(missing);
  NvvmProgram program;
  if (nvvmResult r = nvvmCreateProgram(program.out()); r != NVVM_SUCCESS) return Failure("create", r, nullptr);
  if (nvvmResult r = nvvmAddModuleToProgram(program.get(), ir.data(), ir.size(), "kernel");
      r != NVVM_SUCCESS) {
    return Failure("reading the module", r, program.get());
  }
  if (!libdevice.empty()) {
    if (nvvmResult r = nvvmLazyAddModuleToProgram(program.get(), libdevice.data(), libdevice.size(), "libdevice");
        r != NVVM_SUCCESS) {
      return Failure("adding libdevice", r, program.get());
    }
  }
  const std::vector<std::string> args = NvvmOptionArgs(sm, options);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  if (nvvmResult r = nvvmCompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());
      r != NVVM_SUCCESS) {
    return Failure("compile", r, program.get());
  }
  const std::string ptx = ReadApiText(
      [&](size_t* n) { return nvvmGetCompiledResultSize(program.get(), n) == NVVM_SUCCESS; },
      [&](char* text) { return nvvmGetCompiledResult(program.get(), text) == NVVM_SUCCESS; });
  if (ptx.empty()) return ToolchainFailure("libNVVM produced no PTX");
  return ptx;
}

#endif  // QDCACHE_HAVE_NVVM

}  // namespace qdcache::compiler
