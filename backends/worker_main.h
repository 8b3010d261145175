// The compile worker process: the in-process compiler behind a frame
// protocol on an inherited socket (compiler/worker_protocol.h). qdcached
// re-executes itself with kCompileWorkerFlag as argv[1] to start one;
// WorkerPool (compiler/worker_pool.h) supervises them.
#pragma once

#include "compiler/worker_flags.h"

namespace qdcache::compiler {

// Runs a worker: argv as compiler/worker_flags.h describes. Writes a Hello
// frame, then answers requests until the connection closes. Returns the
// exit status.
int RunCompileWorkerMain(int argc, const char* const* argv);

}  // namespace qdcache::compiler
