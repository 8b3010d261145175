// Daemons that clients under test started themselves (per-user mode). They
// are not the test's children, so DaemonProcess cannot own them: this guard
// makes the test process their subreaper (a spawned daemon is reparented to
// it when the client's intermediate process exits), finds them through
// /proc by their --socket argument, and kills them when it goes out of
// scope, on every path (also when a REQUIRE throws).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace qdcache::testing {

class SpawnedDaemons {
 public:
  // Makes this process a child subreaper (for the rest of its life: one
  // test case per process under CTest).
  explicit SpawnedDaemons(std::string socket_path);
  ~SpawnedDaemons();  // SIGKILLs and reaps every daemon still serving socket_path
  SpawnedDaemons(const SpawnedDaemons&) = delete;
  SpawnedDaemons& operator=(const SpawnedDaemons&) = delete;

  // Running qdcached processes (argv[0] named qdcached: compile workers are
  // not counted) whose arguments hold "--socket <socket_path>".
  std::vector<pid_t> Find() const;

  // SIGTERM to each of Find(), then waits up to `deadline` for each: its
  // exit status (-1 when killed by a signal), or nullopt when it did not
  // exit in time or is not this process's child to reap.
  std::vector<std::optional<int>> Terminate(std::chrono::seconds deadline);

 private:
  std::string socket_path_;
};

}  // namespace qdcache::testing
