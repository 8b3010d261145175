// Child processes of the bench: timed runs (wall time from spawn to exit)
// and long-running servers that report readiness on a pipe. posix_spawn,
// no shell.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/expected.h"

namespace qdcache::bench {

struct TimedRun {
  int exit_code = -1;  // -1: killed by a signal
  double seconds = 0;  // from just before spawn to just after the child was reaped
  std::string out;     // its stdout (stderr goes to the bench's)
};

// Runs `argv` (argv[0]: a path) to completion, with `env` applied to this
// process's environment ("NAME=VALUE" sets, "NAME" removes).
// DEADLINE_EXCEEDED (the child killed) past `limit`.
[[nodiscard]] Expected<TimedRun> RunTimed(const std::vector<std::string>& argv,
                                          const std::vector<std::string>& env = {},
                                          std::chrono::seconds limit = std::chrono::seconds(300));

// Runs `argv` and checks it exits 0; its stdout, or an error with the
// command line.
[[nodiscard]] Expected<std::string> RunChecked(const std::vector<std::string>& argv,
                                               const std::vector<std::string>& env = {});

// A server child: started with a pipe at fd 3 on which it writes one line
// when ready. SIGKILLed and reaped on destruction.
class ServerProcess {
 public:
  // Returns once the child wrote its ready line (in *ready_line), or with an
  // error when it exits or stays silent for a minute (it is killed then).
  [[nodiscard]] static Expected<std::unique_ptr<ServerProcess>> Start(
      const std::vector<std::string>& argv, std::string* ready_line);
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

 private:
  explicit ServerProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_;
};

// CPU time (user + system, all threads) a live process has used, in seconds.
[[nodiscard]] Expected<double> CpuSecondsOf(pid_t pid);

// Waits until `pid` uses less than `fraction` of one CPU over `window`
// twice in a row (its background work, e.g. RocksDB compactions after a
// bulk load, has settled), or until `limit` has passed: the seconds waited.
[[nodiscard]] Expected<double> WaitUntilQuiet(pid_t pid, double fraction, std::chrono::milliseconds window,
                                              std::chrono::seconds limit);

}  // namespace qdcache::bench
