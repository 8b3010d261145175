#include <catch2/catch.hpp>

#include "remote/circuit_breaker.h"

using namespace qdcache::remote;
using namespace std::chrono_literals;

namespace {

struct FakeClock {
  std::chrono::steady_clock::time_point now{};
  CircuitBreaker::Clock fn() {
    return [this] { return now; };
  }
};

CircuitBreaker::Options Opts() {
  CircuitBreaker::Options o;
  o.failure_threshold = 3;
  o.backoff = 1s;
  o.max_backoff = 4s;
  return o;
}

void Fail(CircuitBreaker& b, int n) {
  for (int i = 0; i < n; ++i) {
    REQUIRE(b.Allow());
    b.RecordFailure();
  }
}

}  // namespace

TEST_CASE("the breaker stays closed below the failure threshold", "[remote][breaker]") {
  FakeClock clock;
  CircuitBreaker b(Opts(), clock.fn());
  Fail(b, 2);
  CHECK(b.state() == CircuitBreaker::State::kClosed);
  REQUIRE(b.Allow());
  b.RecordSuccess();  // resets the count
  Fail(b, 2);
  CHECK(b.state() == CircuitBreaker::State::kClosed);
  CHECK(b.trips() == 0);
}

TEST_CASE("consecutive failures open the breaker and calls fail fast", "[remote][breaker]") {
  FakeClock clock;
  CircuitBreaker b(Opts(), clock.fn());
  Fail(b, 3);
  CHECK(b.state() == CircuitBreaker::State::kOpen);
  CHECK(b.trips() == 1);
  CHECK_FALSE(b.Allow());
  clock.now += 999ms;
  CHECK_FALSE(b.Allow());
}

TEST_CASE("after the back-off one probe goes through, and its success closes the breaker", "[remote][breaker]") {
  FakeClock clock;
  CircuitBreaker b(Opts(), clock.fn());
  Fail(b, 3);
  clock.now += 1s;
  REQUIRE(b.Allow());
  CHECK(b.state() == CircuitBreaker::State::kHalfOpen);
  CHECK_FALSE(b.Allow());  // one probe at a time
  b.RecordSuccess();
  CHECK(b.state() == CircuitBreaker::State::kClosed);
  CHECK(b.Allow());
  b.RecordSuccess();
}

TEST_CASE("a failed probe reopens with the back-off doubled up to the cap", "[remote][breaker]") {
  FakeClock clock;
  CircuitBreaker b(Opts(), clock.fn());
  Fail(b, 3);
  for (auto expected : {2s, 4s, 4s}) {
    clock.now += b.current_backoff();
    REQUIRE(b.Allow());
    b.RecordFailure();
    CHECK(b.state() == CircuitBreaker::State::kOpen);
    CHECK(b.current_backoff() == expected);
    clock.now += expected - 1ms;
    CHECK_FALSE(b.Allow());
    clock.now -= expected - 1ms;  // the next round advances by the whole back-off
  }
  clock.now += b.current_backoff();
  REQUIRE(b.Allow());
  b.RecordSuccess();
  CHECK(b.current_backoff() == 1s);  // reset once closed
  CHECK(b.trips() == 1);
}

TEST_CASE("Trip opens a closed breaker at once", "[remote][breaker]") {
  FakeClock clock;
  CircuitBreaker b(Opts(), clock.fn());
  b.Trip();
  CHECK(b.state() == CircuitBreaker::State::kOpen);
  CHECK_FALSE(b.Allow());
  clock.now += 1s;
  CHECK(b.Allow());
}
