// Is a daemon listening at a unix socket? A raw connect(2), no gRPC, so the
// answer keeps errno's distinctions: "nobody there" (which per-user mode may
// fix by starting a daemon) apart from "not allowed" (which it must not).
#pragma once

#include <string>

#include "common/expected.h"

namespace qdcache::client {

enum class SocketState {
  kListening,  // something accepts connections there (not necessarily qdcached)
  kMissing,    // no file at the path (ENOENT, also for a missing directory)
  kStale,      // a socket file nobody listens on (ECONNREFUSED): a dead daemon's
};

// Connects to `path` and closes at once (the daemon counts no RPC for it).
// Any other failure comes back as a Status naming the path and the reason:
// PERMISSION_DENIED for EACCES/EPERM, INVALID_ARGUMENT for a path too long
// for sun_path, FAILED_PRECONDITION for a path that is not a socket (or
// lies under a non-directory), UNAVAILABLE otherwise. Thread-safe.
[[nodiscard]] Expected<SocketState> ProbeSocket(const std::string& path);

}  // namespace qdcache::client
