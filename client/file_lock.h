// An exclusive flock(2) on a lock file, with a deadline: how racing clients
// agree that exactly one of them starts the per-user daemon.
#pragma once

#include <chrono>
#include <string>

#include "common/expected.h"

namespace qdcache::client {

class FileLock {
 public:
  // Opens `path` (created 0600 if missing; never through a symlink) and
  // takes an exclusive flock, waiting until `deadline` while another open
  // file description holds it. DEADLINE_EXCEEDED naming the path when it is
  // still held at the deadline; UNAVAILABLE when it cannot be opened or
  // locked. A lock given up at the deadline is released as soon as it is
  // granted (a helper thread waits for it; no polling). Thread-safe.
  [[nodiscard]] static Expected<FileLock> Acquire(const std::string& path,
                                                  std::chrono::steady_clock::time_point deadline);

  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();  // releases the lock (closing the file)

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace qdcache::client
