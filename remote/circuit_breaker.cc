#include "remote/circuit_breaker.h"

#include <algorithm>

namespace qdcache::remote {

CircuitBreaker::CircuitBreaker(Options options, Clock clock)
    : options_(options), clock_(std::move(clock)), backoff_(options.backoff) {}

std::chrono::steady_clock::time_point CircuitBreaker::Now() const {
  return clock_ ? clock_() : std::chrono::steady_clock::now();
}

bool CircuitBreaker::Allow() {
  std::lock_guard lock(mu_);
  switch (state_) {
    case State::kClosed:
      return true;
    case State::kOpen:
      if (Now() < open_until_) return false;
      state_ = State::kHalfOpen;
      probe_in_flight_ = true;
      return true;
    case State::kHalfOpen:
      if (probe_in_flight_) return false;
      probe_in_flight_ = true;
      return true;
  }
  return false;
}

void CircuitBreaker::RecordSuccess() {
  std::lock_guard lock(mu_);
  consecutive_failures_ = 0;
  probe_in_flight_ = false;
  state_ = State::kClosed;
  backoff_ = options_.backoff;
}

void CircuitBreaker::RecordFailure() {
  std::lock_guard lock(mu_);
  if (state_ == State::kHalfOpen) {
    // The probe failed: open again, for longer.
    probe_in_flight_ = false;
    backoff_ = std::min(backoff_ * 2, std::max(options_.max_backoff, options_.backoff));
    state_ = State::kOpen;
    open_until_ = Now() + backoff_;
    return;
  }
  if (state_ == State::kOpen) return;  // a call let through before the breaker opened
  if (++consecutive_failures_ >= std::max(1, options_.failure_threshold)) {
    state_ = State::kOpen;
    open_until_ = Now() + backoff_;
    consecutive_failures_ = 0;
    ++trips_;
  }
}

void CircuitBreaker::Trip() {
  std::lock_guard lock(mu_);
  if (state_ != State::kClosed) return;
  state_ = State::kOpen;
  open_until_ = Now() + backoff_;
  consecutive_failures_ = 0;
  ++trips_;
}

CircuitBreaker::State CircuitBreaker::state() const {
  std::lock_guard lock(mu_);
  return state_;
}

std::optional<std::chrono::steady_clock::time_point> CircuitBreaker::retry_at() const {
  std::lock_guard lock(mu_);
  if (state_ != State::kOpen) return std::nullopt;
  return open_until_;
}

std::chrono::milliseconds CircuitBreaker::current_backoff() const {
  std::lock_guard lock(mu_);
  return backoff_;
}

std::uint64_t CircuitBreaker::trips() const {
  std::lock_guard lock(mu_);
  return trips_;
}

}  // namespace qdcache::remote
