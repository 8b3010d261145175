#include "daemon/idle_monitor.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <thread>

using qdcache::daemon::IdleMonitor;
using namespace std::chrono_literals;

namespace {

// The time on_idle was called, or a timeout failure after a generous wait.
IdleMonitor::Clock::time_point AwaitIdle(std::future<IdleMonitor::Clock::time_point>& fired) {
  REQUIRE(fired.wait_for(60s) == std::future_status::ready);
  return fired.get();
}

}  // namespace

TEST_CASE("the idle monitor fires once the idle time has passed with nothing in flight",
          "[daemon][idle]") {
  std::promise<IdleMonitor::Clock::time_point> promise;
  std::future<IdleMonitor::Clock::time_point> fired = promise.get_future();
  const auto start = IdleMonitor::Clock::now();
  IdleMonitor monitor(20ms, [&](IdleMonitor::Clock::duration idle) {
    CHECK(idle == 20ms);
    promise.set_value(IdleMonitor::Clock::now());
  });
  CHECK(AwaitIdle(fired) - start >= 20ms);
}

TEST_CASE("an activity in flight holds the idle monitor off however long it lasts",
          "[daemon][idle]") {
  std::promise<IdleMonitor::Clock::time_point> promise;
  std::future<IdleMonitor::Clock::time_point> fired = promise.get_future();
  // The idle time must outlast the gap between construction and Begin() even
  // on a loaded machine (a 20 ms one fired in that gap under load).
  IdleMonitor monitor(
      500ms, [&](IdleMonitor::Clock::duration) { promise.set_value(IdleMonitor::Clock::now()); });
  monitor.Begin();
  // Not synchronisation: an activity that lasts well past the idle time (as a
  // long compile does). Had the monitor fired during it, it would have
  // recorded a time before `ended`.
  std::this_thread::sleep_for(1200ms);
  const auto ended = IdleMonitor::Clock::now();
  monitor.End();
  CHECK(AwaitIdle(fired) - ended >= 500ms);
}

TEST_CASE("a stopped idle monitor never fires", "[daemon][idle]") {
  bool fired = false;
  {
    IdleMonitor monitor(1h, [&](IdleMonitor::Clock::duration) { fired = true; });
    monitor.Begin();
    monitor.End();
    monitor.Stop();
    monitor.Stop();  // idempotent
  }
  CHECK_FALSE(fired);
}
