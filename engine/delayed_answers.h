// Answers given later, in due order, from one thread of their own: a refusal
// that should not come back at once (a tenant past its failure budget would
// otherwise turn refusals into a busy loop that eats the CPU everyone shares).
// Transport-free; thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace qdcache::engine {

class DelayedAnswers {
 public:
  using Clock = std::chrono::steady_clock;

  DelayedAnswers();
  ~DelayedAnswers();  // Flush()es and ends the thread
  DelayedAnswers(const DelayedAnswers&) = delete;
  DelayedAnswers& operator=(const DelayedAnswers&) = delete;

  // Runs `answer` at `when` (or at once after Flush). It runs on the
  // answers' thread, or on the calling thread once flushed.
  void At(Clock::time_point when, std::function<void()> answer);
  // Runs every pending answer now, and every later one as it arrives: for a
  // daemon that drains. Idempotent.
  void Flush();
  [[nodiscard]] std::size_t pending() const;

 private:
  void Run();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::multimap<Clock::time_point, std::function<void()>> queue_;  // guarded by mu_
  bool flushed_ = false;                                           // guarded by mu_
  std::thread thread_;
};

}  // namespace qdcache::engine
