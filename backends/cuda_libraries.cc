#include "backends/cuda_libraries.h"

#include <dlfcn.h>

#include <array>
#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

namespace qdcache::compiler {
namespace {

#ifndef QDCACHE_NVJITLINK_LIBRARY
#define QDCACHE_NVJITLINK_LIBRARY nullptr
#endif
#ifndef QDCACHE_NVRTC_LIBRARY
#define QDCACHE_NVRTC_LIBRARY nullptr
#endif
#ifndef QDCACHE_NVRTC_BUILTINS_SONAME
#define QDCACHE_NVRTC_BUILTINS_SONAME nullptr
#endif
#ifndef QDCACHE_NVVM_LIBRARY
#define QDCACHE_NVVM_LIBRARY nullptr
#endif

struct Known {
  const char* name;   // for messages: "nvJitLink"
  const char* built;  // the file CMake found, named by its SONAME: ".../libnvJitLink.so.13"; nullptr: none
  // A library it loads by bare name from the loader's search only (NVRTC's
  // builtins): opened first from the same directory when it is opened by path.
  const char* companion;
};

constexpr std::array<Known, 3> kKnown{{
    {"nvJitLink", QDCACHE_NVJITLINK_LIBRARY, nullptr},
    {"NVRTC", QDCACHE_NVRTC_LIBRARY, QDCACHE_NVRTC_BUILTINS_SONAME},
    {"libNVVM", QDCACHE_NVVM_LIBRARY, nullptr},
}};

// The CUDA Toolkit's own installation (NVIDIA's packages and runfile),
// tried last; libNVVM is under nvvm/ before CUDA 13.
constexpr std::array<const char*, 2> kToolkitDirectories{"/usr/local/cuda/lib64", "/usr/local/cuda/nvvm/lib64"};

std::mutex g_directory_mutex;
std::string g_directories;  // guarded by g_directory_mutex

struct Loaded {
  void* handle = nullptr;
  std::string error;
};

std::string BaseName(const std::string& path) { return path.substr(path.rfind('/') + 1); }

std::string DirName(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::vector<std::string> SplitDirectories(const std::string& list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(':', start);
    if (end == std::string::npos) end = list.size();
    std::string dir = list.substr(start, end - start);
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (!dir.empty()) out.push_back(std::move(dir));
    start = end + 1;
  }
  return out;
}

// dlopen(path), or nullptr with dlerror()'s words appended to `tried`.
void* Open(const std::string& path, std::string* tried) {
  ::dlerror();
  if (void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  const char* why = ::dlerror();
  *tried += (tried->empty() ? "" : "; ") + std::string(why != nullptr ? why : path + ": unknown error");
  return nullptr;
}

// `soname` from `directory`, its companion first (kept loaded: the library
// finds it by its SONAME among the loaded ones).
void* OpenIn(const std::string& directory, const std::string& soname, const Known& known, std::string* tried) {
  if (known.companion != nullptr && Open(directory + "/" + known.companion, tried) == nullptr) return nullptr;
  return Open(directory + "/" + soname, tried);
}

// Empty when `handle` has every function the backends call; else the first missing.
std::string MissingSymbol(void* handle, CudaLibrary library) {
  for (const char* symbol : CudaLibrarySymbols(library)) {
    if (::dlsym(handle, symbol) == nullptr) return symbol;
  }
  return "";
}

Loaded Load(CudaLibrary library) {
  const Known& known = kKnown[static_cast<std::size_t>(library)];
  Loaded loaded;
  if (known.built == nullptr) {
    loaded.error = std::string("built without ") + known.name;
    return loaded;
  }
  const std::string soname = BaseName(known.built);
  std::string configured;
  {
    const std::lock_guard lock(g_directory_mutex);
    configured = g_directories;
  }
  std::string tried;
  std::string where;
  if (!configured.empty()) {
    where = "the cuda-libraries directories " + configured;
    for (const std::string& dir : SplitDirectories(configured)) {
      if ((loaded.handle = OpenIn(dir, soname, known, &tried)) != nullptr) break;
    }
  } else {
    where = "the dynamic loader's search path, " + DirName(known.built) + ", " + kToolkitDirectories[0] + ", " +
            kToolkitDirectories[1];
    loaded.handle = Open(soname, &tried);
    std::vector<std::string> dirs = {DirName(known.built), kToolkitDirectories[0], kToolkitDirectories[1]};
    for (std::size_t i = 0; loaded.handle == nullptr && i < dirs.size(); ++i) {
      if (i > 0 && dirs[i] == dirs[0]) continue;
      loaded.handle = OpenIn(dirs[i], soname, known, &tried);
    }
  }
  if (loaded.handle == nullptr) {
    loaded.error = std::string(known.name) + " is not installed here: " + soname + " could not be loaded from " +
                   where + " (" + tried + "); install the CUDA Toolkit's " + soname +
                   " or name its directory with the cuda-libraries setting";
    return loaded;
  }
  if (const std::string missing = MissingSymbol(loaded.handle, library); !missing.empty()) {
    loaded.error = std::string("the ") + known.name + " loaded (" + soname + ") lacks " + missing +
                   ": it is older than the CUDA headers qdcached was built with; install a toolkit at least as new";
    ::dlclose(loaded.handle);
    loaded.handle = nullptr;
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

void SetCudaLibraryDirectory(std::string directories) {
  const std::lock_guard lock(g_directory_mutex);
  g_directories = std::move(directories);
}

const std::string& CudaLibraryError(CudaLibrary library) { return Get(library).error; }

void* CudaLibrarySymbol(CudaLibrary library, const char* symbol) {
  const Loaded& loaded = Get(library);
  return loaded.handle == nullptr ? nullptr : ::dlsym(loaded.handle, symbol);
}

}  // namespace qdcache::compiler
