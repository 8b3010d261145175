// Starting a qdcached process for per-user mode: find the binary, detach it
// from the client completely, and wait for its readiness handshake.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/expected.h"

namespace qdcache::client {

// Where qdcached is, as an absolute path: $QDCACHED_BIN if set (it must be
// executable); else, when this code runs inside a shared library
// (libqdcache.so in a Python process), the daemon installed with it (the
// install's bin/ seen from its lib/: QDCACHE_LIBDIR_TO_BINDIR, set by the
// build) or at ../../daemon/qdcached from it (the build tree); else
// `qdcached` next to the real path of this executable (/proc/self/exe), or
// at ../../daemon/qdcached from there (build/client/cli/qdcache ->
// build/daemon/qdcached); else the first executable `qdcached` in a
// non-empty $PATH entry. NOT_FOUND naming what was tried. Thread-safe.
[[nodiscard]] Expected<std::string> FindDaemonBinary();

struct LaunchPlan {
  std::string binary;             // absolute path of qdcached
  std::vector<std::string> args;  // its flags; "--ready-fd 3" is appended
  // The daemon's stdout and stderr (created 0600, truncated); a previous
  // file there is kept as "<log_path>.1".
  std::string log_path;
  std::chrono::milliseconds ready_timeout{std::chrono::seconds(30)};
};

// Starts the daemon detached from the caller: double fork and setsid (it is
// not the caller's child, outlives it, has no controlling terminal, so a
// Ctrl-C or hang-up of the caller's terminal does not reach it), working
// directory "/", stdin /dev/null, stdout and stderr to the log, every other
// descriptor closed except the readiness pipe (fd 3), signal mask and
// dispositions reset, the caller's environment. Then blocks until the daemon
// writes "ready\n" there. OK once it has. UNAVAILABLE with the log's last
// lines when the daemon exits (or closes the pipe) before that, which is
// noticed at once; DEADLINE_EXCEEDED, with the log's last lines, when it is
// not ready by `ready_timeout` (the daemon is then killed). Safe to call from
// any thread; between fork and exec only async-signal-safe calls are made.
[[nodiscard]] Status LaunchDaemon(const LaunchPlan& plan);

// The last `max_lines` lines of the file at `path` (at most its last 8 KiB);
// empty if it cannot be read.
[[nodiscard]] std::string TailOfFile(const std::string& path, int max_lines = 20);

}  // namespace qdcache::client
