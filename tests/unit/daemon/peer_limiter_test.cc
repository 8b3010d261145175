#include <catch2/catch.hpp>

#include "daemon/peer_limiter.h"

using namespace qdcache;
using qdcache::daemon::PeerLimiter;

TEST_CASE("the per-peer limit refuses the request beyond it and frees slots", "[daemon]") {
  PeerLimiter limiter(2);
  auto a = limiter.Acquire("uid:1000");
  auto b = limiter.Acquire("uid:1000");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  auto c = limiter.Acquire("uid:1000");
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().code() == Code::kResourceExhausted);
  CHECK_THAT(c.status().message(), Catch::Contains("uid:1000") && Catch::Contains("--max-peer-requests"));
  CHECK(limiter.Acquire("uid:1001").ok());  // other peers are not affected
  a->reset();
  CHECK(limiter.in_flight("uid:1000") == 1);
  CHECK(limiter.Acquire("uid:1000").ok());
  CHECK(limiter.in_flight("uid:1000") == 1);  // that slot was released at once
}

TEST_CASE("a zero per-peer limit is unlimited", "[daemon]") {
  PeerLimiter limiter(0);
  std::vector<PeerLimiter::Slot> slots;
  for (int i = 0; i < 1000; ++i) {
    auto s = limiter.Acquire("p");
    REQUIRE(s.ok());
    slots.push_back(std::move(s).value());
  }
  CHECK(limiter.in_flight("p") == 1000);
}
