// The CUDA toolkit's compiler libraries (nvJitLink, NVRTC, libNVVM), loaded
// at run time with dlopen() rather than linked: qdcached starts, and serves
// CPU and AMDGPU targets, on a machine without the toolkit, and a package of
// it depends on nothing outside Debian. Each library is opened by the SONAME
// the build was compiled against (libnvJitLink.so.13), so its ABI is the
// headers'. The toolkit's C functions the backends call are defined in
// cuda_library_stubs.cc and forward to the loaded library.
#pragma once

#include <span>
#include <string>

namespace qdcache::compiler {

enum class CudaLibrary { kNvJitLink, kNvrtc, kNvvm };

// Where the libraries are looked for: empty (the default) means the dynamic
// loader's search (LD_LIBRARY_PATH, ld.so.cache, the system's directories),
// then the directory CMake found each in at build time, then the CUDA
// Toolkit's usual places (/usr/local/cuda/lib64, /usr/local/cuda/nvvm/lib64);
// otherwise a colon-separated list of directories, the only places tried, in
// order. Takes effect for libraries not loaded yet: call it at start, before
// the first compile (the daemon's `cuda-libraries` setting does, in the
// daemon and in each compile worker).
void SetCudaLibraryDirectory(std::string directories);

// Loads `library` once per process (thread-safe). Empty when it is loaded;
// otherwise why not, naming the file and each place tried, with dlerror()'s
// words, or the function it lacks: the reason a CUDA compile is refused as
// unavailable.
[[nodiscard]] const std::string& CudaLibraryError(CudaLibrary library);

// The address of `symbol` in `library`, loading it first; nullptr when the
// library or the symbol is missing.
[[nodiscard]] void* CudaLibrarySymbol(CudaLibrary library, const char* symbol);

// Every function of `library` the backends call, as exported by it
// (nvJitLink's versioned names: __nvJitLinkCreate_13_0); a library lacking
// one is not loaded. Defined in cuda_library_stubs.cc, from the same table
// as the functions themselves.
[[nodiscard]] std::span<const char* const> CudaLibrarySymbols(CudaLibrary library);

}  // namespace qdcache::compiler
