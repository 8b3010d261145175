// An IdleClock that moves only when the test says so, and tells the test
// when the watcher has gone back to waiting: idle tests wait for events,
// never for real time.
#pragma once

#include <condition_variable>
#include <mutex>

#include "daemon/idle_monitor.h"

namespace qdcache::daemon::testing {

class ManualClock final : public IdleClock {
 public:
  Clock::time_point Now() const override {
    std::lock_guard lock(mu_);
    return now_;
  }

  void WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 Clock::time_point deadline) override {
    {
      std::lock_guard mine(mu_);
      if (now_ >= deadline) return;
      waiter_ = {&cv, lock.mutex()};
      ++waits_;
      waits_cv_.notify_all();
    }
    cv.wait(lock);  // Advance notifies it under the waiter's mutex: no lost wake-up
  }

  // Moves the time forward and wakes the waiting watcher.
  void Advance(Clock::duration d) {
    Waiter w;
    {
      std::lock_guard lock(mu_);
      now_ += d;
      w = waiter_;
    }
    if (w.cv != nullptr) {
      std::lock_guard lock(*w.mu);  // the watcher is either waiting or has not checked the time yet
      w.cv->notify_all();
    }
  }

  // How many times a watcher has started to wait so far.
  [[nodiscard]] int waits() const {
    std::lock_guard lock(mu_);
    return waits_;
  }
  // Blocks until the watcher has started more than `n` waits: it has seen
  // everything that happened before and gone back to sleep.
  void AwaitWaitsAbove(int n) {
    std::unique_lock lock(mu_);
    waits_cv_.wait(lock, [&] { return waits_ > n; });
  }

 private:
  struct Waiter {
    std::condition_variable* cv = nullptr;
    std::mutex* mu = nullptr;
  };
  mutable std::mutex mu_;
  std::condition_variable waits_cv_;
  Clock::time_point now_{};  // guarded by mu_
  Waiter waiter_;            // guarded by mu_
  int waits_ = 0;            // guarded by mu_
};

}  // namespace qdcache::daemon::testing
