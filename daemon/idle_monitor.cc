#include "daemon/idle_monitor.h"

namespace qdcache::daemon {

IdleMonitor::IdleMonitor(Clock::duration idle_for, std::function<void(Clock::duration)> on_idle)
    : idle_for_(idle_for), on_idle_(std::move(on_idle)), last_activity_(Clock::now()) {
  watcher_ = std::thread([this] { Watch(); });
}

IdleMonitor::~IdleMonitor() { Stop(); }

void IdleMonitor::Begin() {
  std::lock_guard lock(mu_);
  ++in_flight_;
  last_activity_ = Clock::now();
}

void IdleMonitor::End() {
  std::lock_guard lock(mu_);
  --in_flight_;
  last_activity_ = Clock::now();
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
      cv_.wait(lock);
      continue;
    }
    const Clock::time_point deadline = last_activity_ + idle_for_;
    if (Clock::now() >= deadline) break;
    cv_.wait_until(lock, deadline);
  }
  // Called without the lock, so Begin/End never wait for the callback; Stop
  // joins this thread, so the callback has finished when Stop returns.
  lock.unlock();
  on_idle_(idle_for_);
}

}  // namespace qdcache::daemon
