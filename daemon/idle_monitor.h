// The daemon's idle timer (--idle-exit): notices when nothing has been in
// flight, and nothing has begun, for a given time. Transport-free: the gRPC
// side reports each RPC's begin and end (activity_interceptor.h).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>

namespace qdcache::daemon {

// The idle monitor's time: the steady clock in the daemon, a clock the test
// moves by hand in tests (tests/unit/daemon/manual_clock.h).
class IdleClock {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~IdleClock() = default;
  [[nodiscard]] virtual Clock::time_point Now() const = 0;
  // Waits on `cv` (whose mutex `lock` holds) until it is notified or
  // `deadline` has passed by this clock; may wake early, as cv waits do.
  virtual void WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                         Clock::time_point deadline) = 0;
  // The steady clock; lives as long as the process.
  [[nodiscard]] static IdleClock& Steady();
};

class IdleMonitor {
 public:
  using Clock = IdleClock::Clock;

  // Starts a watcher thread that calls `on_idle(idle_for)` once, from that
  // thread, when no activity has been in flight for `idle_for` (counting from
  // construction, then from the end of the last activity). An activity in
  // flight (a two-minute compile) holds it off however long it takes. The
  // watcher sleeps on a condition variable until the next possible deadline;
  // no polling. `idle_for` must be positive; `clock` must outlive the monitor.
  IdleMonitor(Clock::duration idle_for, std::function<void(Clock::duration)> on_idle,
              IdleClock& clock = IdleClock::Steady());
  ~IdleMonitor();  // Stop()s
  IdleMonitor(const IdleMonitor&) = delete;
  IdleMonitor& operator=(const IdleMonitor&) = delete;

  // An activity began / ended; every Begin is matched by one End.
  // Thread-safe; a mutex and, on the last End, a notify.
  void Begin();
  void End();

  // Ends the watcher; on_idle is not called after Stop returns. Idempotent;
  // must not be called from on_idle. Thread-safe.
  void Stop();

 private:
  void Watch();

  const Clock::duration idle_for_;
  const std::function<void(Clock::duration)> on_idle_;
  IdleClock& clock_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::size_t in_flight_ = 0;        // guarded by mu_
  Clock::time_point last_activity_;  // guarded by mu_
  bool stopped_ = false;             // guarded by mu_
  std::thread watcher_;              // started last: it reads the fields above
};

}  // namespace qdcache::daemon
