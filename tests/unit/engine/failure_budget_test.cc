// FailureBudget and TokenBucket: a tenant that keeps using up compile
// workers is refused for a while; others are not, and it earns its budget
// back with time (a clock the test moves).
#include "engine/failure_budget.h"

#include <catch2/catch.hpp>

#include "common/token_bucket.h"

using namespace qdcache;
using namespace qdcache::engine;
using namespace std::chrono_literals;

namespace {

struct FakeTime {
  std::chrono::steady_clock::time_point now{};
  FailureBudget::Clock clock() {
    return [this] { return now; };
  }
};

}  // namespace

TEST_CASE("a token bucket gives its burst, then one token per interval, and may go into debt",
          "[daemon][budget]") {
  const auto t0 = std::chrono::steady_clock::time_point{} + 1h;
  TokenBucket bucket(3, 100ms, t0);
  CHECK(bucket.TryTake(t0));
  CHECK(bucket.TryTake(t0));
  CHECK(bucket.TryTake(t0));
  CHECK_FALSE(bucket.TryTake(t0));
  CHECK(bucket.NextToken(t0) == t0 + 100ms);
  CHECK_FALSE(bucket.TryTake(t0 + 99ms));
  CHECK(bucket.TryTake(t0 + 100ms));
  CHECK_FALSE(bucket.Has(t0 + 150ms));  // the half token earned is kept, not rounded up
  CHECK(bucket.Has(t0 + 200ms));
  bucket.Charge(t0 + 200ms);  // takes the token there
  bucket.Charge(t0 + 200ms);  // and goes into debt
  CHECK(bucket.NextToken(t0 + 200ms) == t0 + 400ms);
  CHECK_FALSE(bucket.Full(t0 + 599ms));
  CHECK(bucket.Full(t0 + 600ms));  // four tokens from -1 to the burst of 3
}

TEST_CASE("a tenant that used up its burst of workers is refused, others are not", "[daemon][budget]") {
  FakeTime time;
  FailureBudget budget({3, 1000ms}, time.clock());
  CHECK(budget.Check("token:storm").ok());
  budget.Charge("token:storm", 3);
  Status refused = budget.Check("token:storm");
  CHECK(refused.code() == Code::kResourceExhausted);
  CHECK_THAT(refused.message(), Catch::Contains("hits are still served"));
  CHECK_THAT(refused.message(), Catch::Contains("1000 ms"));
  CHECK(budget.Check("uid:1000").ok());
  CHECK(budget.charged() == 3);

  time.now += 999ms;
  CHECK_FALSE(budget.Check("token:storm").ok());
  time.now += 1ms;  // one failure forgiven
  CHECK(budget.Check("token:storm").ok());
}

TEST_CASE("failures charged past the budget are debt that delays the tenant's return",
          "[daemon][budget]") {
  FakeTime time;
  FailureBudget budget({2, 1000ms}, time.clock());
  budget.Charge("token:storm", 10);  // more than the burst at once (many calls in flight)
  time.now += 2000ms;  // pays back the debt (2), not yet a token
  CHECK_FALSE(budget.Check("token:storm").ok());
  time.now += 1000ms;
  CHECK(budget.Check("token:storm").ok());
}

TEST_CASE("a budget of 0 never refuses", "[daemon][budget]") {
  FailureBudget budget({0, 1000ms});
  budget.Charge("token:storm", 100);
  CHECK(budget.Check("token:storm").ok());
  CHECK(budget.charged() == 0);
}
