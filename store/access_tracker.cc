#include "store/access_tracker.h"

#include <utility>

namespace qdcache::store {

AccessClock::AccessClock(WallClock wall) : wall_(std::move(wall)) {
  if (!wall_) wall_ = [] { return std::chrono::system_clock::now(); };
}

std::uint64_t AccessClock::NowMicros() const {
  const auto since_epoch = wall_().time_since_epoch();
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(since_epoch).count();
  return micros > 0 ? static_cast<std::uint64_t>(micros) : 0;
}

std::uint64_t AccessClock::Tick() {
  const std::uint64_t now = NowMicros();
  std::uint64_t last = last_.load(std::memory_order_relaxed);
  std::uint64_t next = 0;
  do {
    next = now > last ? now : last + 1;
  } while (!last_.compare_exchange_weak(last, next, std::memory_order_relaxed));
  return next;
}

void AccessClock::AdvancePast(std::uint64_t tick) {
  std::uint64_t last = last_.load(std::memory_order_relaxed);
  while (last < tick && !last_.compare_exchange_weak(last, tick, std::memory_order_relaxed)) {
  }
}

void AccessTracker::Record(EntryKind kind, std::string_view key, std::uint64_t tick) {
  std::string id;
  id.reserve(1 + key.size());
  id.push_back(static_cast<char>(kind));
  id.append(key);
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = pending_.try_emplace(std::move(id), tick);
  if (!inserted && it->second < tick) it->second = tick;
}

std::vector<AccessTracker::Access> AccessTracker::TakeAll() {
  std::unordered_map<std::string, std::uint64_t> taken;
  {
    std::lock_guard<std::mutex> lock(mu_);
    taken.swap(pending_);
  }
  std::vector<Access> out;
  out.reserve(taken.size());
  for (auto& [id, tick] : taken) {
    out.push_back(Access{static_cast<EntryKind>(id[0]), id.substr(1), tick});
  }
  return out;
}

}  // namespace qdcache::store
