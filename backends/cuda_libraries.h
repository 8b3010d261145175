// The CUDA toolkit's compiler libraries (nvJitLink, NVRTC, libNVVM), loaded
// at run time with dlopen() rather than linked: qdcached starts, and serves
// CPU and AMDGPU targets, on a machine without the toolkit, and a package of
// it depends on nothing outside Debian. Each library is opened by the SONAME
// the build was compiled against (libnvJitLink.so.13), so its ABI is the
// headers'. The toolkit's C functions the backends call are defined in
// cuda_library_stubs.cc and forward to the loaded library.
#pragma once

#include <string>

namespace qdcache::compiler {

enum class CudaLibrary { kNvJitLink, kNvrtc, kNvvm };

// Where the libraries are looked for: empty (the default) means the dynamic
// loader's search (LD_LIBRARY_PATH, ld.so.cache, the system's directories),
// then the directory CMake found each in at build time; a directory means
// only that one. Takes effect for libraries not loaded yet: call it at start,
// before the first compile (the daemon's `cuda-libraries` setting does).
void SetCudaLibraryDirectory(std::string directory);

// Loads `library` once per process (thread-safe). Empty when it is loaded;
// otherwise why not, naming the file and each place tried, with dlerror()'s
// words: the reason a CUDA compile is refused as unavailable.
[[nodiscard]] const std::string& CudaLibraryError(CudaLibrary library);

// The address of `symbol` in `library`, loading it first; nullptr when the
// library or the symbol is missing.
[[nodiscard]] void* CudaLibrarySymbol(CudaLibrary library, const char* symbol);

}  // namespace qdcache::compiler
