// One compile worker process, owned by the daemon: spawned with a socketpair
// as fd 3, its own process group, SIGKILL on the spawning thread's death
// (PR_SET_PDEATHSIG) and an address-space limit; talked to one request at a
// time. Not thread-safe: one owner at a time (WorkerPool hands it out).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/expected.h"
#include "compiler/compiler.h"
#include "qdcache/worker/v1/worker.pb.h"

namespace qdcache::compiler {

struct WorkerSpawnConfig {
  std::string executable;          // a binary whose main runs RunCompileWorkerMain for kCompileWorkerFlag
  std::vector<std::string> args;   // after "--compile-worker --fd=3", e.g. "--libdevice=PATH"
  std::uint64_t memory_limit_bytes = 0;  // RLIMIT_AS of the worker; 0: none
  // Largest answer the worker may send (an artifact plus its PTX and log):
  // the worker refuses a larger one RESOURCE_EXHAUSTED instead of sending it.
  // 0: kMaxFrameBytes.
  std::uint64_t max_answer_bytes = 0;
  std::chrono::milliseconds start_timeout{std::chrono::seconds(60)};  // until its Hello
  // Where the worker's scratch directory goes (worker_scratch.h); empty: the
  // system's temporary directory.
  std::string scratch_root;
};

class WorkerProcess {
 public:
  // Forks and executes the worker, then waits for its Hello. UNAVAILABLE
  // (with the reason: exec failure, early exit, timeout) if it does not start.
  // Must be called from a thread that outlives the worker (PR_SET_PDEATHSIG
  // follows the spawning thread).
  [[nodiscard]] static Expected<std::unique_ptr<WorkerProcess>> Spawn(const WorkerSpawnConfig& config);
  ~WorkerProcess();  // SIGKILLs (if alive) and reaps the process
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Sends `request` and waits for the answer within `control`. Returns the
  // Response (whose code may be an error the compiler reported), or:
  // CANCELLED / DEADLINE_EXCEEDED (the worker was killed),
  // INTERNAL "compiler crashed (SIGSEGV) ..." / "... exited with status N",
  // RESOURCE_EXHAUSTED (it ran out of memory under its limit). After any of
  // those, and after a response marked fatal, alive() is false.
  [[nodiscard]] Expected<worker::v1::Response> Call(const worker::v1::Request& request,
                                                    const CallControl& control);

  // Kills and reaps the process (alive() becomes false).
  void Retire() { (void)Reap(); }

  [[nodiscard]] bool alive() const { return fd_ >= 0; }
  [[nodiscard]] pid_t pid() const { return pid_; }
  [[nodiscard]] const ToolchainInfo& toolchain() const { return toolchain_; }

  // The token of the parse this worker keeps for a compile (CallControl::
  // kept_parse; 0: none). The pool's to set.
  [[nodiscard]] std::uint64_t kept_parse() const { return kept_parse_; }
  void set_kept_parse(std::uint64_t token) { kept_parse_ = token; }

 private:
  WorkerProcess(pid_t pid, int fd, std::string scratch, std::uint64_t memory_limit_bytes,
                std::uint64_t max_frame_bytes)
      : pid_(pid),
        fd_(fd),
        scratch_(std::move(scratch)),
        memory_limit_bytes_(memory_limit_bytes),
        max_frame_bytes_(max_frame_bytes) {}
  // Closes the connection, SIGKILLs and reaps the process; returns how it
  // ended. (A worker whose connection hit EOF is already exiting, so the kill
  // cannot change its exit status; one that is not must not block us.)
  Status Reap();
  Status Describe(int wait_status) const;

  pid_t pid_;
  int fd_;  // -1 once dead
  std::string scratch_;  // the worker's TMPDIR, removed once it is reaped
  std::uint64_t memory_limit_bytes_;
  std::uint64_t max_frame_bytes_;  // what Call reads at most
  std::uint64_t kept_parse_ = 0;
  ToolchainInfo toolchain_;
};

}  // namespace qdcache::compiler
