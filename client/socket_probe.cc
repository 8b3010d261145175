#include "client/socket_probe.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace qdcache::client {

Expected<SocketState> ProbeSocket(const std::string& path) {
  sockaddr_un addr{};
  if (path.empty() || path.size() >= sizeof addr.sun_path) {
    return InvalidArgument("socket path \"" + path + "\" is empty or longer than " +
                           std::to_string(sizeof addr.sun_path - 1) + " bytes");
  }
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return Unavailable("cannot create a unix socket: " + std::string(std::strerror(errno)));
  int rc;
  do {
    rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  } while (rc != 0 && errno == EINTR);
  const int err = rc == 0 ? 0 : errno;
  ::close(fd);
  switch (err) {
    case 0:
      return SocketState::kListening;
    case ENOENT:
      return SocketState::kMissing;
    case ECONNREFUSED: {
      // Linux refuses a connect to a file that is not a socket the same way.
      struct stat st {};
      if (::lstat(path.c_str(), &st) == 0 && !S_ISSOCK(st.st_mode)) {
        return FailedPrecondition(path + " exists and is not a socket");
      }
      return SocketState::kStale;
    }
    case EACCES:
    case EPERM:
      return Status(Code::kPermissionDenied,
                    "cannot connect to " + path + ": " + std::strerror(err));
    case ENOTDIR:
      return FailedPrecondition("cannot connect to " + path + ": " + std::strerror(err));
    default:
      return Unavailable("cannot connect to " + path + ": " + std::strerror(err));
  }
}

}  // namespace qdcache::client
