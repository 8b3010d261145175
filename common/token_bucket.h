// A token bucket: up to `burst` tokens, one more every `interval`. Pure
// logic over times the caller passes in (nothing sleeps, no clock inside),
// so the same rules drive the daemon and its unit tests. Not thread-safe:
// the owner locks.
#pragma once

#include <chrono>

namespace qdcache {

class TokenBucket {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  using Duration = std::chrono::steady_clock::duration;

  // Starts full at `now`. `burst` >= 1; `interval` > 0.
  TokenBucket(int burst, Duration interval, TimePoint now)
      : burst_(burst), interval_(interval), tokens_(burst), stamp_(now) {}

  // Takes one token if there is one at `now`.
  [[nodiscard]] bool TryTake(TimePoint now) {
    Refill(now);
    if (tokens_ == 0) return false;
    --tokens_;
    return true;
  }
  // Takes one token whether or not there is one: the bucket may go into
  // debt (down to -burst), which later refills pay back first. For costs
  // known only after the fact.
  void Charge(TimePoint now) {
    Refill(now);
    if (tokens_ > -burst_) --tokens_;
  }
  // True if a token is there at `now` (takes none).
  [[nodiscard]] bool Has(TimePoint now) {
    Refill(now);
    return tokens_ > 0;
  }
  // When the next token is there; `now` if one already is.
  [[nodiscard]] TimePoint NextToken(TimePoint now) {
    Refill(now);
    if (tokens_ > 0) return now;
    return stamp_ + interval_ * (1 - tokens_);
  }
  // True once the bucket is full again at `now`: nothing to remember.
  [[nodiscard]] bool Full(TimePoint now) {
    Refill(now);
    return tokens_ >= burst_;
  }

 private:
  void Refill(TimePoint now) {
    if (now <= stamp_) return;
    if (tokens_ >= burst_) {
      stamp_ = now;
      return;
    }
    const auto earned = (now - stamp_) / interval_;
    if (earned >= burst_ - tokens_) {
      tokens_ = burst_;
      stamp_ = now;
    } else {
      tokens_ += static_cast<int>(earned);
      stamp_ += interval_ * earned;  // keep the fraction of the next token
    }
  }

  const int burst_;
  const Duration interval_;
  int tokens_;       // may be negative: debt from Charge
  TimePoint stamp_;  // when tokens_ was last brought up to date
};

}  // namespace qdcache
