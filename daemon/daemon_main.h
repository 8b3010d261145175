// The whole qdcached program: flags, logging, start, wait for SIGTERM/SIGINT,
// drain, exit status; or, with kCompileWorkerFlag first, a compile worker.
// `main` only calls this.
#pragma once

namespace qdcache::daemon {

[[nodiscard]] int RunDaemonMain(int argc, const char* const* argv);

}  // namespace qdcache::daemon
