// A one-shot cancellation flag that can also be waited on with poll(2): once
// Cancel() is called, fd() is readable forever. Used to stop a compile whose
// callers have all gone (client disconnected, deadline passed).
#pragma once

#include <atomic>

namespace qdcache {

class CancelToken {
 public:
  // Creates the eventfd; if the kernel refuses one, fd() is -1 and waiters
  // must fall back to checking cancelled().
  CancelToken();
  ~CancelToken();
  CancelToken(const CancelToken&) = delete;
  CancelToken& operator=(const CancelToken&) = delete;

  // Idempotent, thread-safe, async-signal-unsafe.
  void Cancel();
  [[nodiscard]] bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }
  // Readable (POLLIN) once cancelled; never read from it.
  [[nodiscard]] int fd() const { return fd_; }

 private:
  std::atomic<bool> cancelled_{false};
  int fd_ = -1;
};

}  // namespace qdcache
