#include "daemon/idle_monitor.h"

namespace qdcache::daemon {
namespace {

class SteadyIdleClock final : public IdleClock {
 public:
  Clock::time_point Now() const override { return Clock::now(); }
  void WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 Clock::time_point deadline) override {
    if (deadline == Clock::time_point::max()) {
      cv.wait(lock);
    } else {
      cv.wait_until(lock, deadline);
    }
  }
};

}  // namespace

IdleClock& IdleClock::Steady() {
  static SteadyIdleClock clock;
  return clock;
}

IdleMonitor::IdleMonitor(Clock::duration idle_for, std::function<void(Clock::duration)> on_idle,
                         IdleClock& clock)
    : idle_for_(idle_for), on_idle_(std::move(on_idle)), clock_(clock), last_activity_(clock.Now()) {
  watcher_ = std::thread([this] { Watch(); });
}

IdleMonitor::~IdleMonitor() { Stop(); }

void IdleMonitor::Begin() {
  std::lock_guard lock(mu_);
  ++in_flight_;
  last_activity_ = clock_.Now();
}

void IdleMonitor::End() {
  std::lock_guard lock(mu_);
  --in_flight_;
  last_activity_ = clock_.Now();
  // The watcher waits without a deadline while anything is in flight.
  if (in_flight_ == 0) cv_.notify_one();
}

void IdleMonitor::Stop() {
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
    cv_.notify_one();
  }
  if (watcher_.joinable()) watcher_.join();
}

void IdleMonitor::Watch() {
  std::unique_lock lock(mu_);
  for (;;) {
    if (stopped_) return;
    if (in_flight_ > 0) {
      clock_.WaitUntil(cv_, lock, Clock::time_point::max());
      continue;
    }
    const Clock::time_point deadline = last_activity_ + idle_for_;
    if (clock_.Now() >= deadline) break;
    clock_.WaitUntil(cv_, lock, deadline);
  }
  // Called without the lock, so Begin/End never wait for the callback; Stop
  // joins this thread, so the callback has finished when Stop returns.
  lock.unlock();
  on_idle_(idle_for_);
}

}  // namespace qdcache::daemon
