#include "engine/failure_memory.h"

namespace qdcache::engine {

FailureMemory::FailureMemory(std::chrono::seconds ttl, std::size_t capacity,
                             std::function<Clock::time_point()> now)
    : ttl_(ttl), capacity_(capacity), now_(std::move(now)) {}

bool FailureMemory::Worth(const Status& failure) {
  switch (failure.code()) {
    case Code::kInternal:
    case Code::kDeadlineExceeded:
    case Code::kResourceExhausted:
      return true;
    default:
      return false;
  }
}

void FailureMemory::DropExpired(Clock::time_point now) {
  while (!order_.empty() && (order_.front().second + ttl_ <= now || entries_.size() > capacity_)) {
    auto it = entries_.find(order_.front().first);
    // A key remembered again has a newer order_ entry; drop only the current one.
    if (it != entries_.end() && it->second.at == order_.front().second) entries_.erase(it);
    order_.pop_front();
  }
}

void FailureMemory::Remember(const std::string& key, const Status& failure) {
  if (ttl_.count() <= 0 || capacity_ == 0 || !Worth(failure)) return;
  const Clock::time_point now = now_();
  std::lock_guard lock(mu_);
  entries_[key] = Entry{failure, now};
  order_.emplace_back(key, now);
  DropExpired(now);
}

std::optional<Status> FailureMemory::Find(const std::string& key) {
  const Clock::time_point now = now_();
  std::lock_guard lock(mu_);
  DropExpired(now);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  using std::chrono::duration_cast;
  using std::chrono::seconds;
  const auto ago = duration_cast<seconds>(now - it->second.at).count();
  const auto left = duration_cast<seconds>(it->second.at + ttl_ - now).count();
  return Status(it->second.failure.code(),
                it->second.failure.message() + " (remembered: this input failed this way " +
                    std::to_string(ago) + " s ago; it is not compiled again for " +
                    std::to_string(left) + " s)");
}

std::size_t FailureMemory::size() {
  std::lock_guard lock(mu_);
  DropExpired(now_());
  return entries_.size();
}

}  // namespace qdcache::engine
