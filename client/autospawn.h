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

#include "common/expected.h"

namespace qdcache::client {

// Defaults of SpawnOptions (each also read from the environment).
inline constexpr std::chrono::seconds kDefaultSpawnIdleExit{600};     // $QDCACHE_SPAWN_IDLE_EXIT
inline constexpr std::chrono::seconds kDefaultSpawnReadyTimeout{30};  // $QDCACHE_SPAWN_TIMEOUT

struct SpawnOptions {
  // The qdcached to start; empty: FindDaemonBinary() ($QDCACHED_BIN, next to
  // this executable, $PATH).
  std::string daemon_binary;
  // The spawned daemon's --idle-exit. Unset: $QDCACHE_SPAWN_IDLE_EXIT (a
  // duration: 90s, 10m, 2h; 0 = never), else kDefaultSpawnIdleExit.
  std::optional<std::chrono::seconds> idle_exit;
  // How long to wait for the daemon's readiness. Unset:
  // $QDCACHE_SPAWN_TIMEOUT (a duration), else kDefaultSpawnReadyTimeout.
  // Waiting for another client's start (the lock) may take twice as long.
  std::optional<std::chrono::seconds> ready_timeout;
  // More flags for the daemon (e.g. {"--store", dir}). The daemon also sees
  // this process's environment.
  std::vector<std::string> extra_args;
};

// Whether to spawn: `choice` if set, else $QDCACHE_AUTOSPAWN if set and not
// empty, else `default_value`. INVALID_ARGUMENT for an unrecognised value of
// the variable. Thread-safe (reads the environment).
[[nodiscard]] Expected<bool> ResolveAutospawn(std::optional<bool> choice, bool default_value);

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
