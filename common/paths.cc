#include "common/paths.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace qdcache {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? std::string(v) : std::string();
}

std::string PrivateTmpDir() { return "/tmp/qdcached-" + std::to_string(getuid()); }

}  // namespace

std::string DefaultSocketPath() {
  std::string runtime = Env("XDG_RUNTIME_DIR");
  if (!runtime.empty()) return runtime + "/qdcached.sock";
  return PrivateTmpDir() + "/qdcached.sock";
}

std::string DefaultStoreDir() {
  std::string cache = Env("XDG_CACHE_HOME");
  if (!cache.empty()) return cache + "/qdcached";
  std::string home = Env("HOME");
  if (!home.empty()) return home + "/.cache/qdcached";
  return PrivateTmpDir() + "/cache";
}

}  // namespace qdcache
