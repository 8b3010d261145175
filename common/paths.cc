#include "common/paths.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <cstdlib>
#include <string>

namespace qdcache {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? std::string(v) : std::string();
}

}  // namespace

std::string PrivateTmpDir() { return "/tmp/qdcached-" + std::to_string(getuid()); }

bool InPrivateTmpDir(const std::string& path) {
  const std::string dir = PrivateTmpDir() + "/";
  return path.compare(0, dir.size(), dir) == 0;
}

Status CheckPrivateDir(const std::string& dir, bool create) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT && !create) return Status::Ok();  // nothing there to distrust
    if (errno != ENOENT) return FailedPrecondition("cannot use " + dir + ": " + std::strerror(errno));
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      return FailedPrecondition("cannot create " + dir + ": " + std::strerror(errno));
    }
    if (::lstat(dir.c_str(), &st) != 0) {
      return FailedPrecondition("cannot use " + dir + ": " + std::strerror(errno));
    }
  }
  if (!S_ISDIR(st.st_mode)) return FailedPrecondition(dir + " is not a directory; refusing to use it");
  if (st.st_uid != getuid()) {
    return FailedPrecondition(dir + " belongs to uid " + std::to_string(st.st_uid) +
                              ", not to this user; refusing to use it");
  }
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%03o", static_cast<unsigned>(st.st_mode & 0777));
    return FailedPrecondition(dir + " is open to other users (mode " + mode + "); refusing to use it");
  }
  return Status::Ok();
}

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
