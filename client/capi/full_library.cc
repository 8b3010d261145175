#include "client/capi/full_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "client/capi/capi_guard.h"

#ifndef QDCACHE_VERSION_STRING
#error "QDCACHE_VERSION_STRING must be defined by the build"
#endif
#ifndef QDCACHE_FULL_LIBRARY
#error "QDCACHE_FULL_LIBRARY (its path from libqdcache.so's folder) must be defined by the build"
#endif

namespace qdcache::capi {
namespace {

// The folder of the shared object holding this code, with links resolved
// (a libqdcache.so.1 linked to from elsewhere has its full library beside
// the file itself) and relative to no working directory.
std::string ThisFolder() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&Full), &info) == 0 || info.dli_fname == nullptr) return ".";
  char* real = ::realpath(info.dli_fname, nullptr);
  const std::string path = real != nullptr ? real : info.dli_fname;
  std::free(real);
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

Expected<const FullLibrary*> Load() {
  const std::string path = ThisFolder() + "/" + QDCACHE_FULL_LIBRARY;
  auto refuse = [&](const std::string& why) {
    return FailedPrecondition("libqdcache.so needs " + path + " for this call (compiling, commands, a lookup " +
                              "the lean transport cannot carry), and " + why);
  };
  // Local: its symbols (the same qdcache_* names) never stand in for ours.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = ::dlerror();
    return refuse(std::string("it cannot be loaded: ") + (error != nullptr ? error : "dlopen failed"));
  }
  auto unload = [&](const std::string& why) {
    ::dlclose(handle);
    return refuse(why);
  };
  static FullLibrary full;
#define QDCACHE_FULL_LOOKUP(name)                                                                   \
  full.name = reinterpret_cast<decltype(full.name)>(::dlsym(handle, "qdcache_" #name));             \
  if (full.name == nullptr) return unload("it lacks qdcache_" #name);
  QDCACHE_FULL_FUNCTIONS(QDCACHE_FULL_LOOKUP)
#undef QDCACHE_FULL_LOOKUP
  if (std::strcmp(full.version(), QDCACHE_VERSION_STRING) != 0) {
    return unload(std::string("it is version ") + full.version() + ", not " + QDCACHE_VERSION_STRING);
  }
  return &full;
}

}  // namespace

Expected<const FullLibrary*> Full() {
  // Loaded once; a failure is final too (the file will not appear under a
  // running process's feet in a way worth a dlopen per call).
  static const Expected<const FullLibrary*> full = Load();
  return full;
}

const FullLibrary& LoadedFull() { return **Full(); }

Status StatusOf(qdcache_status status) {
  if (status == QDCACHE_OK) return Status::Ok();
  return Status(static_cast<Code>(status), LoadedFull().last_error());
}

char* TakeString(const FullLibrary& full, char* text) {
  if (text == nullptr) return nullptr;
  char* copy = nullptr;
  try {
    copy = NewCString(text);
  } catch (...) {
    full.string_free(text);
    throw;
  }
  full.string_free(text);
  return copy;
}

}  // namespace qdcache::capi
