// A fixed set of threads running queued tasks in FIFO order. Used for compiles
// so that cache hits, answered on gRPC's own threads, never queue behind them.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <limits>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "common/status.h"

namespace qdcache::engine {

class ThreadPool {
 public:
  // `max_queue`: tasks that may wait (beyond those running) before Submit refuses.
  explicit ThreadPool(unsigned threads,
                      std::size_t max_queue = std::numeric_limits<std::size_t>::max());
  ~ThreadPool();  // Drain()s
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queues `task`. UNAVAILABLE (and the task is not run) once Drain() has
  // begun, or when max_queue tasks are already waiting (the message names
  // the limit).
  [[nodiscard]] Status Submit(std::function<void()> task);

  // Stops accepting tasks, runs everything already queued, joins the threads.
  void Drain();

  [[nodiscard]] std::size_t queued_or_running() const;
  [[nodiscard]] unsigned size() const { return static_cast<unsigned>(threads_.size()); }

 private:
  void Run();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;  // guarded by mu_
  std::size_t running_ = 0;                  // guarded by mu_
  bool draining_ = false;                    // guarded by mu_
  const std::size_t max_queue_;
  std::vector<std::thread> threads_;
};

}  // namespace qdcache::engine
