#include "daemon/socket_path.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace qdcache::daemon {
namespace {

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

// True if something accepts connections at `path`.
bool SomeoneListens(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  bool live = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return live;
}

}  // namespace

Status CheckSocketPathFree(const std::string& path) {
  if (path.empty()) return InvalidArgument("socket path is empty");
  if (path.size() >= sizeof(sockaddr_un{}.sun_path)) {
    return InvalidArgument("socket path \"" + path + "\" is longer than " +
                           std::to_string(sizeof(sockaddr_un{}.sun_path) - 1) + " bytes");
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return Status::Ok();
    return FailedPrecondition(Errno("cannot stat " + path));
  }
  if (!S_ISSOCK(st.st_mode)) {
    return FailedPrecondition(path + " exists and is not a socket; refusing to replace it");
  }
  if (SomeoneListens(path)) {
    return FailedPrecondition("another qdcached is already serving " + path);
  }
  return Status::Ok();
}

Status PrepareSocketPath(const std::string& path) {
  QDC_RETURN_IF_ERROR(CheckSocketPathFree(path));
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    if (!std::filesystem::exists(parent, ec)) {
      std::filesystem::create_directories(parent, ec);
      if (ec) return FailedPrecondition("cannot create " + parent.string() + ": " + ec.message());
      ::chmod(parent.c_str(), 0700);
    }
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::Ok();
    return FailedPrecondition(Errno("cannot stat " + path));
  }
  // A socket nobody listens on (CheckSocketPathFree said so): a dead daemon's.
  if (::unlink(path.c_str()) != 0) return FailedPrecondition(Errno("cannot remove stale socket " + path));
  return Status::Ok();
}

}  // namespace qdcache::daemon
