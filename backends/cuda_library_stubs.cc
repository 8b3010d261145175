// The CUDA toolkit functions the backends call (nvjitlink_link.cc,
// nvrtc_compile.cc, nvvm_compile.cc, cuda_support.cc), defined here with the
// headers' own prototypes (a mismatch does not compile) and forwarded to the
// library cuda_libraries.h loaded. One table per library lists them once:
// it makes the forwarding definitions and the names CudaLibrarySymbols()
// gives the loader, which refuses a library that lacks one (an nvJitLink
// older than these headers). A function whose library is missing returns an
// error result; the backends ask CudaLibraryError() first and refuse the
// compile with its reason, so those results are a last guard.
#include <array>

#include "backends/cuda_libraries.h"

#ifdef QDCACHE_HAVE_CUDA
#include <nvJitLink.h>
#endif
#ifdef QDCACHE_HAVE_NVRTC
#include <nvrtc.h>
#endif
#ifdef QDCACHE_HAVE_NVVM
#include <nvvm.h>
#endif

#define QDCACHE_STR_(x) #x
#define QDCACHE_STR(x) QDCACHE_STR_(x)
#define QDCACHE_CAT_(a, b) a##b
#define QDCACHE_CAT(a, b) QDCACHE_CAT_(a, b)

// A table row: X(library, failure result, return type, name, (parameters), (arguments)).
#define QDCACHE_FORWARD(library, failure, type, name, params, args)                                         \
  type name params {                                                                                        \
    using Fn = decltype(&name);                                                                             \
    static const Fn fn = reinterpret_cast<Fn>(                                                              \
        ::qdcache::compiler::CudaLibrarySymbol(::qdcache::compiler::CudaLibrary::library, QDCACHE_STR(name))); \
    return fn != nullptr ? fn args : failure;                                                               \
  }
#define QDCACHE_NAME(library, failure, type, name, params, args) QDCACHE_STR(name),

#ifdef QDCACHE_HAVE_CUDA
// nvJitLink's header maps each function to a versioned symbol
// (__nvJitLinkCreate_13_0): QDCACHE_NVJITLINK_SUFFIX is the header's suffix.
#ifndef QDCACHE_NVJITLINK_SUFFIX
#error "QDCACHE_NVJITLINK_SUFFIX: the suffix of nvJitLink.h's function names (_13_0), set by CMake"
#endif
#define QDCACHE_NVJITLINK(name) QDCACHE_CAT(name, QDCACHE_NVJITLINK_SUFFIX)
#define QDCACHE_NVJITLINK_FUNCTIONS(X)                                                                            \
  X(kNvJitLink, NVJITLINK_ERROR_INTERNAL, nvJitLinkResult, QDCACHE_NVJITLINK(__nvJitLinkCreate),                 \
    (nvJitLinkHandle * handle, uint32_t count, const char* const* options), (handle, count, options))            \
  X(kNvJitLink, NVJITLINK_ERROR_INTERNAL, nvJitLinkResult, QDCACHE_NVJITLINK(__nvJitLinkDestroy),                \
    (nvJitLinkHandle * handle), (handle))                                                                        \
  X(kNvJitLink, NVJITLINK_ERROR_INTERNAL, nvJitLinkResult, QDCACHE_NVJITLINK(__nvJitLinkAddData),                \
    (nvJitLinkHandle handle, nvJitLinkInputType type, const void* data, size_t size, const char* name),          \
    (handle, type, data, size, name))                                                                            \
  X(kNvJitLink, NVJITLINK_ERROR_INTERNAL, nvJitLinkResult, QDCACHE_NVJITLINK(__nvJitLinkComplete),               \
    (nvJitLinkHandle handle), (handle))                                                                          \
  X(kNvJitLink, NVJITLINK_ERROR_INTERNAL, nvJitLinkResult, QDCACHE_NVJITLINK(__nvJitLinkGetLinkedCubinSize),     \
    (nvJitLinkHandle handle, size_t* size), (handle, size))                                                      \
  X(kNvJitLink, NVJITLINK_ERROR_INTERNAL, nvJitLinkResult, QDCACHE_NVJITLINK(__nvJitLinkGetLinkedCubin),         \
    (nvJitLinkHandle handle, void* cubin), (handle, cubin))                                                      \
  X(kNvJitLink, NVJITLINK_ERROR_INTERNAL, nvJitLinkResult, QDCACHE_NVJITLINK(__nvJitLinkGetErrorLogSize),        \
    (nvJitLinkHandle handle, size_t* size), (handle, size))                                                      \
  X(kNvJitLink, NVJITLINK_ERROR_INTERNAL, nvJitLinkResult, QDCACHE_NVJITLINK(__nvJitLinkGetErrorLog),            \
    (nvJitLinkHandle handle, char* log), (handle, log))                                                          \
  X(kNvJitLink, NVJITLINK_ERROR_INTERNAL, nvJitLinkResult, QDCACHE_NVJITLINK(__nvJitLinkGetInfoLogSize),         \
    (nvJitLinkHandle handle, size_t* size), (handle, size))                                                      \
  X(kNvJitLink, NVJITLINK_ERROR_INTERNAL, nvJitLinkResult, QDCACHE_NVJITLINK(__nvJitLinkGetInfoLog),             \
    (nvJitLinkHandle handle, char* log), (handle, log))                                                          \
  X(kNvJitLink, NVJITLINK_ERROR_INTERNAL, nvJitLinkResult, nvJitLinkVersion,                                     \
    (unsigned int* major, unsigned int* minor), (major, minor))
#else
#define QDCACHE_NVJITLINK_FUNCTIONS(X)
#endif

#ifdef QDCACHE_HAVE_NVRTC
#define QDCACHE_NVRTC_FUNCTIONS(X)                                                                               \
  X(kNvrtc, "NVRTC is not loaded", const char*, nvrtcGetErrorString, (nvrtcResult result), (result))             \
  X(kNvrtc, NVRTC_ERROR_INTERNAL_ERROR, nvrtcResult, nvrtcVersion, (int* major, int* minor), (major, minor))     \
  X(kNvrtc, NVRTC_ERROR_INTERNAL_ERROR, nvrtcResult, nvrtcGetNumSupportedArchs, (int* count), (count))           \
  X(kNvrtc, NVRTC_ERROR_INTERNAL_ERROR, nvrtcResult, nvrtcGetSupportedArchs, (int* arches), (arches))            \
  X(kNvrtc, NVRTC_ERROR_INTERNAL_ERROR, nvrtcResult, nvrtcCreateProgram,                                         \
    (nvrtcProgram * program, const char* source, const char* name, int header_count, const char* const* headers, \
     const char* const* include_names),                                                                          \
    (program, source, name, header_count, headers, include_names))                                              \
  X(kNvrtc, NVRTC_ERROR_INTERNAL_ERROR, nvrtcResult, nvrtcDestroyProgram, (nvrtcProgram * program), (program))   \
  X(kNvrtc, NVRTC_ERROR_INTERNAL_ERROR, nvrtcResult, nvrtcCompileProgram,                                        \
    (nvrtcProgram program, int count, const char* const* options), (program, count, options))                   \
  X(kNvrtc, NVRTC_ERROR_INTERNAL_ERROR, nvrtcResult, nvrtcAddNameExpression,                                     \
    (nvrtcProgram program, const char* const name_expression), (program, name_expression))                      \
  X(kNvrtc, NVRTC_ERROR_INTERNAL_ERROR, nvrtcResult, nvrtcGetLoweredName,                                        \
    (nvrtcProgram program, const char* const name_expression, const char** lowered),                            \
    (program, name_expression, lowered))                                                                         \
  X(kNvrtc, NVRTC_ERROR_INTERNAL_ERROR, nvrtcResult, nvrtcGetPTXSize, (nvrtcProgram program, size_t * size),     \
    (program, size))                                                                                             \
  X(kNvrtc, NVRTC_ERROR_INTERNAL_ERROR, nvrtcResult, nvrtcGetPTX, (nvrtcProgram program, char* ptx),             \
    (program, ptx))                                                                                              \
  X(kNvrtc, NVRTC_ERROR_INTERNAL_ERROR, nvrtcResult, nvrtcGetProgramLogSize,                                     \
    (nvrtcProgram program, size_t * size), (program, size))                                                      \
  X(kNvrtc, NVRTC_ERROR_INTERNAL_ERROR, nvrtcResult, nvrtcGetProgramLog, (nvrtcProgram program, char* log),      \
    (program, log))
#else
#define QDCACHE_NVRTC_FUNCTIONS(X)
#endif

#ifdef QDCACHE_HAVE_NVVM
#define QDCACHE_NVVM_FAILED NVVM_ERROR_PROGRAM_CREATION_FAILURE
#define QDCACHE_NVVM_FUNCTIONS(X)                                                                                \
  X(kNvvm, "libNVVM is not loaded", const char*, nvvmGetErrorString, (nvvmResult result), (result))              \
  X(kNvvm, QDCACHE_NVVM_FAILED, nvvmResult, nvvmVersion, (int* major, int* minor), (major, minor))               \
  X(kNvvm, QDCACHE_NVVM_FAILED, nvvmResult, nvvmIRVersion,                                                       \
    (int* major_ir, int* minor_ir, int* major_debug, int* minor_debug),                                          \
    (major_ir, minor_ir, major_debug, minor_debug))                                                              \
  X(kNvvm, QDCACHE_NVVM_FAILED, nvvmResult, nvvmCreateProgram, (nvvmProgram * program), (program))               \
  X(kNvvm, QDCACHE_NVVM_FAILED, nvvmResult, nvvmDestroyProgram, (nvvmProgram * program), (program))              \
  X(kNvvm, QDCACHE_NVVM_FAILED, nvvmResult, nvvmAddModuleToProgram,                                              \
    (nvvmProgram program, const char* buffer, size_t size, const char* name), (program, buffer, size, name))    \
  X(kNvvm, QDCACHE_NVVM_FAILED, nvvmResult, nvvmLazyAddModuleToProgram,                                          \
    (nvvmProgram program, const char* buffer, size_t size, const char* name), (program, buffer, size, name))    \
  X(kNvvm, QDCACHE_NVVM_FAILED, nvvmResult, nvvmCompileProgram,                                                  \
    (nvvmProgram program, int count, const char** options), (program, count, options))                          \
  X(kNvvm, QDCACHE_NVVM_FAILED, nvvmResult, nvvmGetCompiledResultSize, (nvvmProgram program, size_t * size),     \
    (program, size))                                                                                             \
  X(kNvvm, QDCACHE_NVVM_FAILED, nvvmResult, nvvmGetCompiledResult, (nvvmProgram program, char* buffer),          \
    (program, buffer))                                                                                           \
  X(kNvvm, QDCACHE_NVVM_FAILED, nvvmResult, nvvmGetProgramLogSize, (nvvmProgram program, size_t * size),         \
    (program, size))                                                                                             \
  X(kNvvm, QDCACHE_NVVM_FAILED, nvvmResult, nvvmGetProgramLog, (nvvmProgram program, char* buffer),              \
    (program, buffer))
#else
#define QDCACHE_NVVM_FUNCTIONS(X)
#endif

extern "C" {
QDCACHE_NVJITLINK_FUNCTIONS(QDCACHE_FORWARD)
QDCACHE_NVRTC_FUNCTIONS(QDCACHE_FORWARD)
QDCACHE_NVVM_FUNCTIONS(QDCACHE_FORWARD)
}  // extern "C"

namespace qdcache::compiler {

std::span<const char* const> CudaLibrarySymbols(CudaLibrary library) {
  // A trailing nullptr keeps each array non-empty in builds without the library.
  static constexpr std::array kNvJitLinkNames{QDCACHE_NVJITLINK_FUNCTIONS(QDCACHE_NAME) static_cast<const char*>(nullptr)};
  static constexpr std::array kNvrtcNames{QDCACHE_NVRTC_FUNCTIONS(QDCACHE_NAME) static_cast<const char*>(nullptr)};
  static constexpr std::array kNvvmNames{QDCACHE_NVVM_FUNCTIONS(QDCACHE_NAME) static_cast<const char*>(nullptr)};
  switch (library) {
    case CudaLibrary::kNvJitLink:
      return {kNvJitLinkNames.data(), kNvJitLinkNames.size() - 1};
    case CudaLibrary::kNvrtc:
      return {kNvrtcNames.data(), kNvrtcNames.size() - 1};
    case CudaLibrary::kNvvm:
      return {kNvvmNames.data(), kNvvmNames.size() - 1};
  }
  return {};
}

}  // namespace qdcache::compiler
