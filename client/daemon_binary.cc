// FindDaemonBinary (declared in daemon_launcher.h).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "client/daemon_launcher.h"

namespace qdcache::client {
namespace {

bool IsExecutableFile(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

// The real path of the shared object holding this code, when that is not
// the executable itself (then empty). For the executable, dladdr gives
// argv[0], which may be a bare name: not a path to resolve.
std::filesystem::path ThisSharedObject(const std::filesystem::path& executable) {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&FindDaemonBinary), &info) == 0 || info.dli_fname == nullptr ||
      std::strchr(info.dli_fname, '/') == nullptr) {
    return {};
  }
  std::error_code ec;
  std::filesystem::path object = std::filesystem::canonical(info.dli_fname, ec);
  if (ec || object == executable) return {};
  return object;
}

}  // namespace

Expected<std::string> FindDaemonBinary() {
  const char* from_env = std::getenv("QDCACHED_BIN");
  if (from_env != nullptr && *from_env != '\0') {
    std::error_code ec;
    std::filesystem::path path = std::filesystem::absolute(from_env, ec);
    if (ec || !IsExecutableFile(path)) {
      return NotFound(std::string("QDCACHED_BIN=") + from_env + " is not an executable file");
    }
    return path.lexically_normal().string();
  }
  std::vector<std::filesystem::path> tried;
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::canonical("/proc/self/exe", ec);
  // Inside a shared library (libqdcache.so in a Python process), the daemon
  // installed with the library comes first: the host program's directory
  // (/usr/bin for python3) may hold an older one.
  const std::filesystem::path library = ThisSharedObject(ec ? std::filesystem::path() : self);
  if (!library.empty()) {
    // libqdcache-full.so lives in the folder qdcache/ beside libqdcache.so.
    std::filesystem::path dir = library.parent_path();
    if (dir.filename() == "qdcache") dir = dir.parent_path();
    tried.push_back((dir / QDCACHE_LIBDIR_TO_BINDIR / "qdcached").lexically_normal());
    tried.push_back((dir / "../../daemon/qdcached").lexically_normal());
  }
  if (!ec) {
    const std::filesystem::path dir = self.parent_path();
    tried.push_back(dir / "qdcached");
    tried.push_back((dir / "../../daemon/qdcached").lexically_normal());
  }
  for (const std::filesystem::path& candidate : tried) {
    if (IsExecutableFile(candidate)) return candidate.string();
  }
  const char* path_env = std::getenv("PATH");
  std::string path_list = path_env != nullptr ? path_env : "";
  for (std::size_t begin = 0; begin <= path_list.size();) {
    std::size_t end = path_list.find(':', begin);
    if (end == std::string::npos) end = path_list.size();
    const std::string dir = path_list.substr(begin, end - begin);
    begin = end + 1;
    if (dir.empty() || dir[0] != '/') continue;  // never the working directory
    const std::filesystem::path candidate = std::filesystem::path(dir) / "qdcached";
    if (IsExecutableFile(candidate)) return candidate.string();
  }
  std::string message = "cannot find qdcached: set QDCACHED_BIN, or put it";
  for (const std::filesystem::path& p : tried) message += " at " + p.string() + " or";
  return NotFound(message + " on PATH");
}

}  // namespace qdcache::client
