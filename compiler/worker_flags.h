// How a compile worker process is started and how it ends: the command line
// that WorkerProcess (worker_process.h) gives it and the exit statuses it
// reads back. The worker's own main is backends/worker_main.h.
#pragma once

namespace qdcache::compiler {

// argv[1] of a worker process. The rest: "--fd=N", "--max-answer-bytes=N",
// optionally "--scratch=DIR" (its TMPDIR: scratch files go there, and
// the daemon removes the directory when it reaps the worker, also after a
// kill), "--libdevice=PATH", "--device-libs=DIR" and "--cuda-libraries=DIR".
inline constexpr char kCompileWorkerFlag[] = "--compile-worker";
inline constexpr char kMaxAnswerFlag[] = "--max-answer-bytes=";
inline constexpr char kScratchFlag[] = "--scratch=";

// Exit statuses a worker ends with on its own (besides 0 after the daemon
// closed the connection). Anything else, or a signal, is a crash.
inline constexpr int kWorkerExitOutOfMemory = 75;  // an allocation failed (memory limit)
inline constexpr int kWorkerExitFatal = 76;         // LLVM report_fatal_error (answered first)
inline constexpr int kWorkerExitUsage = 77;         // bad worker command line

}  // namespace qdcache::compiler
