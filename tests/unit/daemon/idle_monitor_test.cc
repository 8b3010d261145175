#include "daemon/idle_monitor.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <optional>
#include <thread>
#include <atomic>

#include "tests/unit/daemon/manual_clock.h"

using qdcache::daemon::IdleMonitor;
using qdcache::daemon::testing::ManualClock;
using namespace std::chrono_literals;

namespace {

// Records when (by the manual clock) on_idle was called.
struct Firing {
  explicit Firing(ManualClock& c) : clock(c) {}
  std::function<void(IdleMonitor::Clock::duration)> Callback() {
    return [this](IdleMonitor::Clock::duration) { promise.set_value(clock.Now()); };
  }
  IdleMonitor::Clock::time_point Await() {
    auto fired = promise.get_future();
    REQUIRE(fired.wait_for(60s) == std::future_status::ready);  // a bound on a hang, not a timing
    return fired.get();
  }
  ManualClock& clock;
  std::promise<IdleMonitor::Clock::time_point> promise;
};

}  // namespace

TEST_CASE("the idle monitor fires when the idle time has passed with nothing in flight, not before",
          "[daemon][idle]") {
  ManualClock clock;
  Firing firing(clock);
  const auto start = clock.Now();
  IdleMonitor monitor(20ms, firing.Callback(), clock);
  clock.AwaitWaitsAbove(0);
  const int waits = clock.waits();
  clock.Advance(19ms);
  clock.AwaitWaitsAbove(waits);  // it looked at 19 ms and went back to sleep
  clock.Advance(1ms);
  CHECK(firing.Await() == start + 20ms);
}

TEST_CASE("an activity in flight holds the idle monitor off however long it lasts",
          "[daemon][idle]") {
  ManualClock clock;
  Firing firing(clock);
  IdleMonitor monitor(500ms, firing.Callback(), clock);
  monitor.Begin();
  clock.AwaitWaitsAbove(0);
  int waits = clock.waits();
  clock.Advance(2h);  // a long compile, many idle times over
  clock.AwaitWaitsAbove(waits);
  const auto ended = clock.Now();
  waits = clock.waits();
  monitor.End();
  clock.AwaitWaitsAbove(waits);  // counting from the end of the activity now
  clock.Advance(500ms);
  CHECK(firing.Await() == ended + 500ms);
}

TEST_CASE("the idle monitor never fires after Stop has returned", "[daemon][idle]") {
  ManualClock clock;
  std::atomic<bool> stop_returned{false};
  std::atomic<int> calls{0}, late_calls{0};
  {
    IdleMonitor monitor(1h, [&](IdleMonitor::Clock::duration) {
      if (stop_returned.load()) ++late_calls;
      ++calls;
    }, clock);
    clock.AwaitWaitsAbove(0);
    // The deadline passes as Stop runs: firing is allowed only before Stop returns.
    std::thread advancer([&] { clock.Advance(2h); });
    monitor.Stop();
    stop_returned = true;
    advancer.join();
    monitor.Stop();  // idempotent
  }
  CHECK(late_calls.load() == 0);
  CHECK(calls.load() <= 1);
}
