// A circuit breaker in front of the remote tier: after `failure_threshold`
// consecutive failures it opens and every call is refused (fails fast to the
// local store) for a back-off period; then one probe call is let through
// (half-open). A successful probe closes the breaker; a failed one opens it
// again with the back-off doubled, up to `max_backoff`.
//
// Pure logic: the clock is injected, nothing sleeps. Thread-safe: every
// method may be called concurrently.
//
// Protocol: each Allow() that returned true must be followed by exactly one
// RecordSuccess() or RecordFailure() for that call.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>

namespace qdcache::remote {

class CircuitBreaker {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  enum class State { kClosed, kOpen, kHalfOpen };

  struct Options {
    int failure_threshold = 3;  // consecutive failures that open the breaker (>= 1)
    std::chrono::milliseconds backoff{std::chrono::seconds(2)};      // first open period
    std::chrono::milliseconds max_backoff{std::chrono::seconds(60)};  // cap when doubling
  };

  // `clock` null: std::chrono::steady_clock.
  explicit CircuitBreaker(Options options, Clock clock = nullptr);

  // True if a call may go to the remote now. While open, false until the
  // back-off has passed; then true for one probe at a time (half-open).
  [[nodiscard]] bool Allow();
  void RecordSuccess();
  void RecordFailure();
  // Opens the breaker now, as if the threshold had been reached (e.g. the
  // remote did not answer the start-up probe). No effect unless closed.
  void Trip();

  [[nodiscard]] State state() const;
  // While open: when the back-off ends and Allow() lets a probe through.
  // Closed or half-open: nullopt.
  [[nodiscard]] std::optional<std::chrono::steady_clock::time_point> retry_at() const;
  // The back-off the breaker is (or would next be) open for.
  [[nodiscard]] std::chrono::milliseconds current_backoff() const;
  // Times the breaker went from closed to open (not counting failed probes).
  [[nodiscard]] std::uint64_t trips() const;

 private:
  std::chrono::steady_clock::time_point Now() const;

  const Options options_;
  const Clock clock_;
  mutable std::mutex mu_;
  State state_ = State::kClosed;                      // guarded by mu_
  int consecutive_failures_ = 0;                      // guarded by mu_
  bool probe_in_flight_ = false;                      // guarded by mu_
  std::chrono::milliseconds backoff_;                 // guarded by mu_
  std::chrono::steady_clock::time_point open_until_;  // guarded by mu_
  std::uint64_t trips_ = 0;                           // guarded by mu_
};

}  // namespace qdcache::remote
