// The CUDA toolkit functions the backends call (nvjitlink_link.cc,
// nvrtc_compile.cc, nvvm_compile.cc, cuda_support.cc), defined here with the
// headers' own prototypes (a mismatch does not compile) and forwarded to the
// library cuda_libraries.h loaded. A function whose library is missing
// returns an error result; the backends ask CudaLibraryError() first and
// refuse the compile with its reason, so those results are a last guard.
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

#define QDCACHE_CAT_(a, b) a##b
#define QDCACHE_CAT(a, b) QDCACHE_CAT_(a, b)
#define QDCACHE_FORWARD_(library, failure, name, ...)                                                             \
  {                                                                                                               \
    using Fn = decltype(&name);                                                                                   \
    static const Fn fn =                                                                                          \
        reinterpret_cast<Fn>(::qdcache::compiler::CudaLibrarySymbol(::qdcache::compiler::CudaLibrary::library, #name)); \
    return fn != nullptr ? fn(__VA_ARGS__) : failure;                                                             \
  }
// `name` is expanded before it is stringized: nvJitLink's versioned names.
#define QDCACHE_FORWARD(library, failure, name, ...) QDCACHE_FORWARD_(library, failure, name, __VA_ARGS__)

extern "C" {

#ifdef QDCACHE_HAVE_CUDA
// nvJitLink's header maps each function to a versioned symbol
// (__nvJitLinkCreate_13_0): QDCACHE_NVJITLINK_SUFFIX is the header's suffix.
#ifndef QDCACHE_NVJITLINK_SUFFIX
#error "QDCACHE_NVJITLINK_SUFFIX: the suffix of nvJitLink.h's function names (_13_0), set by CMake"
#endif
#define QDCACHE_NVJITLINK(name) QDCACHE_CAT(name, QDCACHE_NVJITLINK_SUFFIX)
#define QDCACHE_NVJITLINK_FAILED NVJITLINK_ERROR_INTERNAL

nvJitLinkResult QDCACHE_NVJITLINK(__nvJitLinkCreate)(nvJitLinkHandle* handle, uint32_t count, const char* const* options)
    QDCACHE_FORWARD(kNvJitLink, QDCACHE_NVJITLINK_FAILED, QDCACHE_NVJITLINK(__nvJitLinkCreate), handle, count, options)
nvJitLinkResult QDCACHE_NVJITLINK(__nvJitLinkDestroy)(nvJitLinkHandle* handle)
    QDCACHE_FORWARD(kNvJitLink, QDCACHE_NVJITLINK_FAILED, QDCACHE_NVJITLINK(__nvJitLinkDestroy), handle)
nvJitLinkResult QDCACHE_NVJITLINK(__nvJitLinkAddData)(nvJitLinkHandle handle, nvJitLinkInputType type, const void* data,
                                                      size_t size, const char* name)
    QDCACHE_FORWARD(kNvJitLink, QDCACHE_NVJITLINK_FAILED, QDCACHE_NVJITLINK(__nvJitLinkAddData), handle, type, data,
                    size, name)
nvJitLinkResult QDCACHE_NVJITLINK(__nvJitLinkComplete)(nvJitLinkHandle handle)
    QDCACHE_FORWARD(kNvJitLink, QDCACHE_NVJITLINK_FAILED, QDCACHE_NVJITLINK(__nvJitLinkComplete), handle)
nvJitLinkResult QDCACHE_NVJITLINK(__nvJitLinkGetLinkedCubinSize)(nvJitLinkHandle handle, size_t* size)
    QDCACHE_FORWARD(kNvJitLink, QDCACHE_NVJITLINK_FAILED, QDCACHE_NVJITLINK(__nvJitLinkGetLinkedCubinSize), handle,
                    size)
nvJitLinkResult QDCACHE_NVJITLINK(__nvJitLinkGetLinkedCubin)(nvJitLinkHandle handle, void* cubin)
    QDCACHE_FORWARD(kNvJitLink, QDCACHE_NVJITLINK_FAILED, QDCACHE_NVJITLINK(__nvJitLinkGetLinkedCubin), handle, cubin)
nvJitLinkResult QDCACHE_NVJITLINK(__nvJitLinkGetErrorLogSize)(nvJitLinkHandle handle, size_t* size)
    QDCACHE_FORWARD(kNvJitLink, QDCACHE_NVJITLINK_FAILED, QDCACHE_NVJITLINK(__nvJitLinkGetErrorLogSize), handle, size)
nvJitLinkResult QDCACHE_NVJITLINK(__nvJitLinkGetErrorLog)(nvJitLinkHandle handle, char* log)
    QDCACHE_FORWARD(kNvJitLink, QDCACHE_NVJITLINK_FAILED, QDCACHE_NVJITLINK(__nvJitLinkGetErrorLog), handle, log)
nvJitLinkResult QDCACHE_NVJITLINK(__nvJitLinkGetInfoLogSize)(nvJitLinkHandle handle, size_t* size)
    QDCACHE_FORWARD(kNvJitLink, QDCACHE_NVJITLINK_FAILED, QDCACHE_NVJITLINK(__nvJitLinkGetInfoLogSize), handle, size)
nvJitLinkResult QDCACHE_NVJITLINK(__nvJitLinkGetInfoLog)(nvJitLinkHandle handle, char* log)
    QDCACHE_FORWARD(kNvJitLink, QDCACHE_NVJITLINK_FAILED, QDCACHE_NVJITLINK(__nvJitLinkGetInfoLog), handle, log)
nvJitLinkResult nvJitLinkVersion(unsigned int* major, unsigned int* minor)
    QDCACHE_FORWARD(kNvJitLink, QDCACHE_NVJITLINK_FAILED, nvJitLinkVersion, major, minor)
#endif  // QDCACHE_HAVE_CUDA

#ifdef QDCACHE_HAVE_NVRTC
#define QDCACHE_NVRTC_FAILED NVRTC_ERROR_INTERNAL_ERROR

const char* nvrtcGetErrorString(nvrtcResult result)
    QDCACHE_FORWARD(kNvrtc, "NVRTC is not loaded", nvrtcGetErrorString, result)
nvrtcResult nvrtcVersion(int* major, int* minor)
    QDCACHE_FORWARD(kNvrtc, QDCACHE_NVRTC_FAILED, nvrtcVersion, major, minor)
nvrtcResult nvrtcGetNumSupportedArchs(int* count)
    QDCACHE_FORWARD(kNvrtc, QDCACHE_NVRTC_FAILED, nvrtcGetNumSupportedArchs, count)
nvrtcResult nvrtcGetSupportedArchs(int* arches)
    QDCACHE_FORWARD(kNvrtc, QDCACHE_NVRTC_FAILED, nvrtcGetSupportedArchs, arches)
nvrtcResult nvrtcCreateProgram(nvrtcProgram* program, const char* source, const char* name, int header_count,
                               const char* const* headers, const char* const* include_names)
    QDCACHE_FORWARD(kNvrtc, QDCACHE_NVRTC_FAILED, nvrtcCreateProgram, program, source, name, header_count, headers,
                    include_names)
nvrtcResult nvrtcDestroyProgram(nvrtcProgram* program)
    QDCACHE_FORWARD(kNvrtc, QDCACHE_NVRTC_FAILED, nvrtcDestroyProgram, program)
nvrtcResult nvrtcCompileProgram(nvrtcProgram program, int count, const char* const* options)
    QDCACHE_FORWARD(kNvrtc, QDCACHE_NVRTC_FAILED, nvrtcCompileProgram, program, count, options)
nvrtcResult nvrtcAddNameExpression(nvrtcProgram program, const char* const name_expression)
    QDCACHE_FORWARD(kNvrtc, QDCACHE_NVRTC_FAILED, nvrtcAddNameExpression, program, name_expression)
nvrtcResult nvrtcGetLoweredName(nvrtcProgram program, const char* const name_expression, const char** lowered)
    QDCACHE_FORWARD(kNvrtc, QDCACHE_NVRTC_FAILED, nvrtcGetLoweredName, program, name_expression, lowered)
nvrtcResult nvrtcGetPTXSize(nvrtcProgram program, size_t* size)
    QDCACHE_FORWARD(kNvrtc, QDCACHE_NVRTC_FAILED, nvrtcGetPTXSize, program, size)
nvrtcResult nvrtcGetPTX(nvrtcProgram program, char* ptx)
    QDCACHE_FORWARD(kNvrtc, QDCACHE_NVRTC_FAILED, nvrtcGetPTX, program, ptx)
nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram program, size_t* size)
    QDCACHE_FORWARD(kNvrtc, QDCACHE_NVRTC_FAILED, nvrtcGetProgramLogSize, program, size)
nvrtcResult nvrtcGetProgramLog(nvrtcProgram program, char* log)
    QDCACHE_FORWARD(kNvrtc, QDCACHE_NVRTC_FAILED, nvrtcGetProgramLog, program, log)
#endif  // QDCACHE_HAVE_NVRTC

#ifdef QDCACHE_HAVE_NVVM
#define QDCACHE_NVVM_FAILED NVVM_ERROR_PROGRAM_CREATION_FAILURE

const char* nvvmGetErrorString(nvvmResult result)
    QDCACHE_FORWARD(kNvvm, "libNVVM is not loaded", nvvmGetErrorString, result)
nvvmResult nvvmVersion(int* major, int* minor) QDCACHE_FORWARD(kNvvm, QDCACHE_NVVM_FAILED, nvvmVersion, major, minor)
nvvmResult nvvmIRVersion(int* major_ir, int* minor_ir, int* major_debug, int* minor_debug)
    QDCACHE_FORWARD(kNvvm, QDCACHE_NVVM_FAILED, nvvmIRVersion, major_ir, minor_ir, major_debug, minor_debug)
nvvmResult nvvmCreateProgram(nvvmProgram* program)
    QDCACHE_FORWARD(kNvvm, QDCACHE_NVVM_FAILED, nvvmCreateProgram, program)
nvvmResult nvvmDestroyProgram(nvvmProgram* program)
    QDCACHE_FORWARD(kNvvm, QDCACHE_NVVM_FAILED, nvvmDestroyProgram, program)
nvvmResult nvvmAddModuleToProgram(nvvmProgram program, const char* buffer, size_t size, const char* name)
    QDCACHE_FORWARD(kNvvm, QDCACHE_NVVM_FAILED, nvvmAddModuleToProgram, program, buffer, size, name)
nvvmResult nvvmLazyAddModuleToProgram(nvvmProgram program, const char* buffer, size_t size, const char* name)
    QDCACHE_FORWARD(kNvvm, QDCACHE_NVVM_FAILED, nvvmLazyAddModuleToProgram, program, buffer, size, name)
nvvmResult nvvmCompileProgram(nvvmProgram program, int count, const char** options)
    QDCACHE_FORWARD(kNvvm, QDCACHE_NVVM_FAILED, nvvmCompileProgram, program, count, options)
nvvmResult nvvmGetCompiledResultSize(nvvmProgram program, size_t* size)
    QDCACHE_FORWARD(kNvvm, QDCACHE_NVVM_FAILED, nvvmGetCompiledResultSize, program, size)
nvvmResult nvvmGetCompiledResult(nvvmProgram program, char* buffer)
    QDCACHE_FORWARD(kNvvm, QDCACHE_NVVM_FAILED, nvvmGetCompiledResult, program, buffer)
nvvmResult nvvmGetProgramLogSize(nvvmProgram program, size_t* size)
    QDCACHE_FORWARD(kNvvm, QDCACHE_NVVM_FAILED, nvvmGetProgramLogSize, program, size)
nvvmResult nvvmGetProgramLog(nvvmProgram program, char* buffer)
    QDCACHE_FORWARD(kNvvm, QDCACHE_NVVM_FAILED, nvvmGetProgramLog, program, buffer)
#endif  // QDCACHE_HAVE_NVVM

}  // extern "C"
