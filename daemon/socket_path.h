// Preparing a unix-socket path for listening: parent directory, a stale
// socket left by a dead daemon, and refusing to steal a live daemon's socket.
#pragma once

#include <string>

#include "common/status.h"

namespace qdcache::daemon {

// Checks, without creating or removing anything, that this daemon could
// take `path`: INVALID_ARGUMENT if it is too long for sun_path,
// FAILED_PRECONDITION if a live daemon answers there or `path` exists and is
// not a socket. The daemon calls it before it creates its store or starts
// workers, so a second daemon on a busy socket leaves no trace.
[[nodiscard]] Status CheckSocketPathFree(const std::string& path);

// CheckSocketPathFree, then creates the parent directory (0700 if created), removes a stale socket at
// `path`, and fails with FAILED_PRECONDITION if a live daemon answers there or
// `path` is not a socket, INVALID_ARGUMENT if it is too long for sun_path.
[[nodiscard]] Status PrepareSocketPath(const std::string& path);

}  // namespace qdcache::daemon
