#include "daemon/socket_activation.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace qdcache::daemon {

Expected<int> TakeActivationSocket() {
  const int n = ::sd_listen_fds(/*unset_environment=*/1);
  if (n < 0) return InvalidArgument(std::string("socket activation: ") + std::strerror(-n));
  if (n == 0) return -1;
  if (n > 1) {
    for (int fd = SD_LISTEN_FDS_START; fd < SD_LISTEN_FDS_START + n; ++fd) ::close(fd);
    return InvalidArgument("socket activation passed " + std::to_string(n) +
                           " sockets; qdcached serves one unix stream socket (ListenStream=PATH)");
  }
  const int fd = SD_LISTEN_FDS_START;
  const int is_unix = ::sd_is_socket_unix(fd, SOCK_STREAM, /*listening=*/1, nullptr, 0);
  if (is_unix <= 0) {
    ::close(fd);
    return InvalidArgument(
        "socket activation passed a socket that is not a listening unix stream socket "
        "(ListenStream=PATH; for TCP use --listen)");
  }
  return fd;
}

std::string BoundUnixPath(int fd) {
  sockaddr_un addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0 || addr.sun_family != AF_UNIX) return "";
  const std::size_t max = len > offsetof(sockaddr_un, sun_path) ? len - offsetof(sockaddr_un, sun_path) : 0;
  if (max == 0 || addr.sun_path[0] == '\0') return "";
  return std::string(addr.sun_path, strnlen(addr.sun_path, std::min(max, sizeof addr.sun_path)));
}

}  // namespace qdcache::daemon
