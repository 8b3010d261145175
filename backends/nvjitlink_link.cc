#include "backends/nvjitlink_link.h"

#include <vector>

#include "backends/c_api.h"
#include "backends/compile_error.h"
#include "backends/cuda_libraries.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#ifdef QDCACHE_HAVE_CUDA
#include <nvJitLink.h>
#endif

namespace qdcache::compiler {

std::vector<std::string> NvJitLinkOptionArgs(const CompileOptions& options) {
  // nvJitLink accepts only -O0 and -O3 for ptxas.
  std::vector<std::string> args = {options.opt_level == 0 ? "-O0" : "-O3"};
  if (options.max_registers > 0)
    args.push_back("-maxrregcount=" + std::to_string(options.max_registers));
  if (options.debug) args.push_back("-g");
  if (options.lineinfo) args.push_back("-lineinfo");
  if (options.fast_math) args.push_back("-ftz=1");
  // ptxas contracts mul+add of PTX without a rounding mode; LLVM's PTX for
  // fmad=false spells .rn on them already, PTX inputs may not.
  if (!options.fmad) args.push_back("-Xptxas=--fmad=false");
  if (options.suppress_debug_info) args.push_back("-Xptxas=--suppress-debug-info");
  return args;
}

#ifndef QDCACHE_HAVE_CUDA

llvm::Expected<LinkedCubin> LinkPtxToCubin(std::string_view, const std::string&,
                                           const CompileOptions&, std::string_view) {
  return NotAvailable("built without CUDA");
}

#else

namespace {

using Handle = ApiHandle<nvJitLinkHandle, nvJitLinkDestroy>;

std::string ErrorLog(nvJitLinkHandle handle) {
  if (handle == nullptr) return "";
  return ReadApiText([&](size_t* n) { return nvJitLinkGetErrorLogSize(handle, n) == NVJITLINK_SUCCESS; },
                     [&](char* text) { return nvJitLinkGetErrorLog(handle, text) == NVJITLINK_SUCCESS; });
}

std::string InfoLog(nvJitLinkHandle handle) {
  return ReadApiText([&](size_t* n) { return nvJitLinkGetInfoLogSize(handle, n) == NVJITLINK_SUCCESS; },
                     [&](char* text) { return nvJitLinkGetInfoLog(handle, text) == NVJITLINK_SUCCESS; });
}

// Results that mean "this PTX cannot be linked for this SM" rather than "the
// toolchain broke".
bool IsInputError(nvJitLinkResult result) {
  switch (result) {
    case NVJITLINK_ERROR_INVALID_INPUT:
    case NVJITLINK_ERROR_PTX_COMPILE:
    case NVJITLINK_ERROR_UNRECOGNIZED_INPUT:
    case NVJITLINK_ERROR_ARCH_MISMATCH:
    case NVJITLINK_ERROR_FINALIZE:
      return true;
    default:
      return false;
  }
}

// nvJitLink reports ptxas rejecting a program (e.g. "error   : Entry function
// 'k' uses too much shared data") as NVJITLINK_ERROR_INTERNAL, so the error
// log decides too: ptxas diagnostics about the program start with "error".
bool LogBlamesInput(llvm::StringRef log) {
  llvm::SmallVector<llvm::StringRef, 8> lines;
  log.split(lines, '\n');
  return llvm::any_of(lines, [](llvm::StringRef line) {
    line = line.ltrim();
    if (!line.consume_front("error") && !line.consume_front("ptxas error") &&
        !line.consume_front("ptxas fatal")) {
      return false;
    }
    return line.ltrim().starts_with(":");
  });
}

llvm::Error Failure(const char* step, nvJitLinkResult result, nvJitLinkHandle handle) {
  std::string log = llvm::StringRef(ErrorLog(handle)).trim().str();
  std::string message = "nvJitLink " + std::string(step) + " failed (result " +
                        std::to_string(static_cast<int>(result)) + ")" + (log.empty() ? "" : ": ") +
                        log;
  return IsInputError(result) || LogBlamesInput(log) ? BadInput(message)
                                                     : ToolchainFailure(message);
}

}  // namespace

llvm::Expected<LinkedCubin> LinkPtxToCubin(std::string_view ptx, const std::string& sm,
                                           const CompileOptions& options, std::string_view cudadevrt) {
  if (const std::string& missing = CudaLibraryError(CudaLibrary::kNvJitLink); !missing.empty()) {
    return NotAvailable(missing);
  }
  std::vector<std::string> args = {"-arch=" + sm, "-verbose"};
  for (std::string& arg : NvJitLinkOptionArgs(options)) args.push_back(std::move(arg));
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());

  Handle handle;
  if (nvJitLinkResult r =
          nvJitLinkCreate(handle.out(), static_cast<uint32_t>(argv.size()), argv.data());
      r != NVJITLINK_SUCCESS) {
    return Failure("create", r, handle.get());
  }
  if (nvJitLinkResult r =
          nvJitLinkAddData(handle.get(), NVJITLINK_INPUT_PTX, ptx.data(), ptx.size(), "kernel.ptx");
      r != NVJITLINK_SUCCESS) {
    return Failure("adding PTX", r, handle.get());
  }
  if (!cudadevrt.empty()) {
    if (nvJitLinkResult r = nvJitLinkAddData(handle.get(), NVJITLINK_INPUT_LIBRARY, cudadevrt.data(),
                                             cudadevrt.size(), "libcudadevrt.a");
        r != NVJITLINK_SUCCESS) {
      return Failure("adding libcudadevrt", r, handle.get());
    }
  }
  if (nvJitLinkResult r = nvJitLinkComplete(handle.get()); r != NVJITLINK_SUCCESS) {
    return Failure("link", r, handle.get());
  }
  LinkedCubin out;
  out.info_log = InfoLog(handle.get());
  size_t size = 0;
  if (nvJitLinkResult r = nvJitLinkGetLinkedCubinSize(handle.get(), &size);
      r != NVJITLINK_SUCCESS) {
    return Failure("cubin size query", r, handle.get());
  }
  if (size == 0) return ToolchainFailure("nvJitLink produced an empty cubin");
  out.cubin.resize(size);
  if (nvJitLinkResult r = nvJitLinkGetLinkedCubin(handle.get(), out.cubin.data());
      r != NVJITLINK_SUCCESS) {
    return Failure("cubin copy", r, handle.get());
  }
  return out;
}

#endif  // QDCACHE_HAVE_CUDA

}  // namespace qdcache::compiler
