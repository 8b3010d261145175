// Socket activation (sd_listen_fds(3)): serving on the listening socket a
// service manager (systemd's qdcached.socket) created and passed as fd 3.
#pragma once

#include <string>

#include "common/expected.h"

namespace qdcache::daemon {

// The listening unix stream socket passed to this process (LISTEN_FDS=1,
// LISTEN_PID = this pid), close-on-exec, or -1 when none was passed. The
// LISTEN_* variables are removed from the environment, so compile workers
// never see them. INVALID_ARGUMENT when sockets were passed that qdcached
// cannot serve: more than one, or one that is not a listening AF_UNIX stream
// socket (with ListenStream=HOST:PORT, use --listen instead).
// The caller owns the fd.
[[nodiscard]] Expected<int> TakeActivationSocket();

// The filesystem path a bound unix socket has, or "" (unnamed, abstract).
[[nodiscard]] std::string BoundUnixPath(int fd);

}  // namespace qdcache::daemon
