#include "backends/cuda_libraries.h"

#include <dlfcn.h>

#include <array>
#include <cstddef>
#include <mutex>
#include <utility>

namespace qdcache::compiler {
namespace {

// The file CMake found at build time, with the library's SONAME as its name
// (QDCACHE_*_LIBRARY); null when the build has no such library.
struct Known {
  const char* name;   // for messages: "nvJitLink"
  const char* built;  // "/usr/local/cuda/lib64/libnvJitLink.so.13", or nullptr
};

#ifndef QDCACHE_NVJITLINK_LIBRARY
#define QDCACHE_NVJITLINK_LIBRARY nullptr
#endif
#ifndef QDCACHE_NVRTC_LIBRARY
#define QDCACHE_NVRTC_LIBRARY nullptr
#endif
#ifndef QDCACHE_NVVM_LIBRARY
#define QDCACHE_NVVM_LIBRARY nullptr
#endif

constexpr std::array<Known, 3> kKnown{{
    {"nvJitLink", QDCACHE_NVJITLINK_LIBRARY},
    {"NVRTC", QDCACHE_NVRTC_LIBRARY},
    {"libNVVM", QDCACHE_NVVM_LIBRARY},
}};

std::mutex g_directory_mutex;
std::string g_directory;  // guarded by g_directory_mutex

struct Loaded {
  void* handle = nullptr;
  std::string error;
};

std::string BaseName(const std::string& path) { return path.substr(path.rfind('/') + 1); }

std::string DirName(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// dlopen(path), or nullptr with dlerror()'s words appended to `tried`.
void* Open(const std::string& path, const std::string& where, std::string* tried) {
  ::dlerror();
  if (void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  const char* why = ::dlerror();
  *tried += (tried->empty() ? "" : "; ") + where + ": " + (why != nullptr ? why : "unknown error");
  return nullptr;
}

Loaded Load(CudaLibrary library) {
  const Known& known = kKnown[static_cast<std::size_t>(library)];
  Loaded loaded;
  if (known.built == nullptr) {
    loaded.error = std::string("built without ") + known.name;
    return loaded;
  }
  const std::string soname = BaseName(known.built);
  std::string directory;
  {
    const std::lock_guard lock(g_directory_mutex);
    directory = g_directory;
  }
  std::string tried;
  if (!directory.empty()) {
    loaded.handle = Open(directory + "/" + soname, "cuda-libraries directory " + directory, &tried);
  } else {
    loaded.handle = Open(soname, "the dynamic loader's search path", &tried);
    if (loaded.handle == nullptr) {
      loaded.handle = Open(known.built, "the build's CUDA toolkit " + DirName(known.built), &tried);
    }
  }
  if (loaded.handle == nullptr) {
    loaded.error = std::string(known.name) + " is not installed here: " + soname + " could not be loaded (" + tried +
                   "); install the CUDA Toolkit's " + soname +
                   " or name its directory with the cuda-libraries setting";
  }
  return loaded;
}

const Loaded& Get(CudaLibrary library) {
  static std::array<std::once_flag, kKnown.size()> once;
  static std::array<Loaded, kKnown.size()> loaded;
  const auto i = static_cast<std::size_t>(library);
  std::call_once(once[i], [&] { loaded[i] = Load(library); });
  return loaded[i];
}

}  // namespace

void SetCudaLibraryDirectory(std::string directory) {
  while (directory.size() > 1 && directory.back() == '/') directory.pop_back();
  const std::lock_guard lock(g_directory_mutex);
  g_directory = std::move(directory);
}

const std::string& CudaLibraryError(CudaLibrary library) { return Get(library).error; }

void* CudaLibrarySymbol(CudaLibrary library, const char* symbol) {
  const Loaded& loaded = Get(library);
  return loaded.handle == nullptr ? nullptr : ::dlsym(loaded.handle, symbol);
}

}  // namespace qdcache::compiler
