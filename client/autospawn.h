// Per-user mode: when a client finds no daemon at its unix socket, it starts
// one. Racing clients agree through an exclusive flock on "<socket>.lock"
// that exactly one of them starts it; the others wait for that lock and then
// find the daemon serving. The spawned daemon writes to "<socket>.log" and
// exits by itself after an idle period (--idle-exit).
//
// Whether a client spawns (most specific first): an explicit choice (the
// CLI's --spawn / --no-spawn, ClientOptions::spawn), else $QDCACHE_AUTOSPAWN
// (1/0, true/false, yes/no, on/off), else the default: off for the library,
// on for the CLI (except `qdcache ping`). Never for a TCP address.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "client/client_options.h"
#include "common/expected.h"

namespace qdcache::client {


// Makes sure a daemon listens at `socket_path`. OK at once when something
// listens there. When nothing does (no socket file, or a stale one nobody
// listens on), takes the lock, checks again, and starts qdcached with
// --socket, --idle-exit and --ready-fd, waiting for its readiness (see
// LaunchDaemon for its errors, which carry the daemon's log). The socket's
// directory must be private to this user (CheckPrivateDir; created 0700 if
// missing): FAILED_PRECONDITION otherwise. Any other failure to connect
// (permission denied, not a socket) comes back as ProbeSocket reports it,
// with nothing started. Thread-safe; blocks up to twice the ready timeout.
[[nodiscard]] Status EnsureDaemon(const std::string& socket_path, const SpawnOptions& options);

}  // namespace qdcache::client
