#include "engine/fleet_waits.h"

namespace qdcache::engine {

FleetWaits::FleetWaits(FleetLeases& leases, std::chrono::milliseconds interval)
    : leases_(leases), interval_(interval), thread_([this] { Loop(); }) {}

FleetWaits::~FleetWaits() { Stop(); }

void FleetWaits::Park(Entry entry) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_) {
      entries_.push_back(std::move(entry));
      cv_.notify_all();
      return;
    }
  }
  entry.resume(Outcome::kTimedOut);
}

std::size_t FleetWaits::parked() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

void FleetWaits::Stop() {
  std::vector<Entry> left;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  {
    std::lock_guard lock(mu_);
    left = std::move(entries_);
  }
  for (Entry& e : left) {
    if (!e.abandoned()) e.resume(Outcome::kTimedOut);
  }
}

void FleetWaits::Loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || !entries_.empty(); });
    if (stopping_) return;
    // One interval between polls, cut short only by Stop.
    if (cv_.wait_for(lock, interval_, [&] { return stopping_; })) return;
    std::vector<Entry> batch = std::move(entries_);
    entries_.clear();
    lock.unlock();
    std::vector<Entry> still;
    for (Entry& e : batch) {
      if (e.abandoned()) continue;
      if (e.published()) {
        e.resume(Outcome::kPublished);
      } else if (!leases_.Held(e.key)) {
        e.resume(Outcome::kLeaseFree);
      } else if (Clock::now() >= e.deadline) {
        e.resume(Outcome::kTimedOut);
      } else {
        still.push_back(std::move(e));
      }
    }
    lock.lock();
    // Entries parked while we polled come after those still waiting.
    for (Entry& e : entries_) still.push_back(std::move(e));
    entries_ = std::move(still);
  }
}

}  // namespace qdcache::engine
