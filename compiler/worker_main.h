// The compile worker process: the in-process compiler behind a frame
// protocol on an inherited socket (worker_protocol.h). qdcached re-executes
// itself with kCompileWorkerFlag as argv[1] to start one; WorkerPool
// (worker_pool.h) supervises them.
#pragma once

namespace qdcache::compiler {

// argv[1] of a worker process. The rest: "--fd=N", "--max-answer-bytes=N",
// optionally "--scratch=DIR" (its TMPDIR: lld's scratch files go there, and
// the daemon removes the directory when it reaps the worker, also after a
// kill) and "--libdevice=PATH".
inline constexpr char kCompileWorkerFlag[] = "--compile-worker";
inline constexpr char kMaxAnswerFlag[] = "--max-answer-bytes=";
inline constexpr char kScratchFlag[] = "--scratch=";

// Exit statuses a worker ends with on its own (besides 0 after the daemon
// closed the connection). Anything else, or a signal, is a crash.
inline constexpr int kWorkerExitOutOfMemory = 75;  // an allocation failed (memory limit)
inline constexpr int kWorkerExitFatal = 76;         // LLVM report_fatal_error (answered first)
inline constexpr int kWorkerExitUsage = 77;         // bad worker command line

// Runs a worker: argv as described above. Writes a Hello frame, then answers
// requests until the connection closes. Returns the exit status.
int RunCompileWorkerMain(int argc, const char* const* argv);

}  // namespace qdcache::compiler
